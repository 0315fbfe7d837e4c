// Gradient steps of the real models timed on a backend, and memcpy timed on the host.
#include "cli/calibrate_kernels.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>
#include <thread>

#include <unistd.h>

#include "cli/calibration_fit.h"
#include "runtime/job_setup.h"
#include "runtime/model/model.h"
#include "runtime/rng.h"
#include "runtime/roles/batch_order.h"
#include "runtime/roles/evaluation.h"

namespace pstwin::cli {

namespace {

using Clock = std::chrono::steady_clock;

/// A model with the data its gradient is timed on.
struct TimedModel {
  std::string label;
  std::shared_ptr<const Model> model;
  std::shared_ptr<const Dataset> data;
  std::vector<std::uint32_t> rows;  ///< rows batches are drawn from
  std::size_t batch = 0;            ///< the model's own batch size
  std::shared_ptr<const Dataset> test;          ///< what the scheduler evaluates on
  std::vector<std::uint32_t> train_eval_rows;   ///< the training rows it evaluates
};

/// Dense random data of Fashion-MNIST's shape: what the shipped models train on.
std::shared_ptr<Dataset> synthetic_images(std::size_t rows) {
  auto d = std::make_shared<Dataset>();
  d->source = "synthetic";
  d->rows = rows;
  d->cols = 784;
  d->sparse = false;
  d->num_classes = 10;
  Rng rng(7);
  d->values.resize(rows * d->cols);
  for (float& v : d->values) v = static_cast<float>(rng.uniform());
  for (std::size_t r = 0; r < rows; ++r) {
    d->labels.push_back(static_cast<std::int32_t>(r % 10));
    d->labels01.push_back(static_cast<float>(r % 2));
  }
  return d;
}

/// `data` with two classes (labels r % 2), for the logistic model.
std::shared_ptr<Dataset> binary_labels(const Dataset& data) {
  auto binary = std::make_shared<Dataset>(data);
  binary->num_classes = 2;
  for (std::size_t r = 0; r < binary->rows; ++r) binary->labels[r] = static_cast<std::int32_t>(r % 2);
  return binary;
}

std::vector<TimedModel> shipped_models() {
  auto data = synthetic_images(4096);
  auto binary = binary_labels(*data);
  // A small evaluation (512 training rows and a test set of 512): there is no scenario's to time.
  auto test = synthetic_images(512);
  auto binary_test = binary_labels(*test);
  std::vector<std::uint32_t> rows(data->rows);
  std::iota(rows.begin(), rows.end(), 0u);
  const std::vector<std::uint32_t> eval_rows(rows.begin(), rows.begin() + 512);
  std::vector<TimedModel> out;
  ModelSection section;
  section.l2 = 1e-4;
  section.type = "logistic";
  out.push_back({"logistic", make_model(section, 784, 2), binary, rows, 64, binary_test, eval_rows});
  section.type = "softmax";
  out.push_back({"softmax", make_model(section, 784, 10), data, rows, 64, test, eval_rows});
  section.type = "mlp";
  section.hidden = {128};
  out.push_back({"mlp", make_model(section, 784, 10), data, rows, 64, test, eval_rows});
  return out;
}

std::vector<TimedModel> scenario_models(const std::vector<Scenario>& scenarios) {
  std::vector<TimedModel> out;
  for (const Scenario& s : scenarios) {
    if (s.model.type == "synthetic") continue;
    PreparedTraining p = prepare_training(s);
    TimedModel m;
    m.label = p.model->name() + " (" + s.name + ")";
    m.model = std::move(p.model);
    m.data = std::move(p.train);
    m.rows = p.worker_rows.at(0);
    m.batch = s.training.batch_size;
    m.test = std::move(p.test);
    m.train_eval_rows = std::move(p.train_eval_rows);
    out.push_back(std::move(m));
  }
  return out;
}

/// Seconds on the steady clock, from an arbitrary origin.
double now_s() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

/// Reads every float of `v`: the parameters a node was just sent are in its cache.
void touch(const std::vector<float>& v) {
  volatile float sum = 0;
  sum = std::accumulate(v.begin(), v.end(), 0.0f);
  (void)sum;
}

/// What one timed call did and took.
struct TimedCall {
  Cost cost;
  double seconds = 0;
};

/// One gradient step of `m` over `rows`, started as a worker's step is (see time_kernels): only
/// the model's calls are timed, and each call follows one wait.pass().
TimedCall step(const TimedModel& m, KernelBackend& backend, const std::vector<std::uint32_t>& rows,
               std::vector<float>& params, std::vector<float>& grad, NodeWait& wait) {
  const RowSelection sel{rows.data(), rows.size()};
  LossStats stats;
  if (!m.model->sparse()) {
    wait.pass();
    touch(params);
    const double t0 = now_s();
    const Cost c = m.model->gradient(backend, *m.data, sel, params.data(), grad.data(), &stats);
    return {c, now_s() - t0};
  }
  // A worker draws a batch's keys right after its last compute, while it pushes; it waits for
  // the pull replies of those keys, and computes once they have brought their rows.
  double t0 = now_s();
  const std::vector<std::uint64_t> keys = m.model->batch_keys(*m.data, sel);
  const double seconds = now_s() - t0;
  wait.pass();
  const std::size_t width = m.model->values_per_key();
  std::vector<float> touched(keys.size() * width), touched_grad(keys.size() * width);
  for (std::size_t k = 0; k < keys.size(); ++k)
    std::copy_n(params.data() + keys[k] * width, width, touched.data() + k * width);
  t0 = now_s();
  const Cost c = m.model->sparse_gradient(backend, *m.data, sel, keys, touched.data(), touched_grad.data(), &stats);
  return {c, seconds + now_s() - t0};
}

/// How many of `n` rows a `fraction` in (0, 1] of them is: at least 1, at most n (n > 0).
std::size_t first_part(std::size_t n, double fraction) {
  return std::min(n, std::max<std::size_t>(1, static_cast<std::size_t>(static_cast<double>(n) * fraction)));
}

/// The scheduler's evaluation of `m` over the first `fraction` of its train and test rows,
/// started as after a wait for the snapshots.
TimedCall evaluation(const TimedModel& m, KernelBackend& backend, const std::vector<std::uint32_t>& test_rows,
                     double fraction, const std::vector<float>& params, NodeWait& wait) {
  const RowSelection train{m.train_eval_rows.data(), first_part(m.train_eval_rows.size(), fraction)};
  const RowSelection test{test_rows.data(), first_part(test_rows.size(), fraction)};
  LossStats train_stats, test_stats;
  wait.pass();
  touch(params);
  const double t0 = now_s();
  const Cost c = evaluation_passes(*m.model, backend, *m.data, train, *m.test, test, params.data(), &train_stats,
                                   &test_stats);
  return {c, now_s() - t0};
}

/// Calls `call` once unmeasured and then until `min_seconds` have passed (at least 3 times);
/// the median seconds, and the mean cost over every call (a sparse batch's varies with its rows).
template <class Call>
std::pair<Cost, std::pair<double, int>> repeat(Call call, double min_seconds) {
  const TimedCall first = call();
  double flops = first.cost.flops, bytes = first.cost.bytes;
  std::vector<double> times;
  const auto until = Clock::now() + std::chrono::duration<double>(min_seconds);
  while (times.size() < 3 || Clock::now() < until) {
    const TimedCall c = call();
    times.push_back(c.seconds);
    flops += c.cost.flops;
    bytes += c.cost.bytes;
  }
  const double calls = static_cast<double>(times.size() + 1);
  return {Cost{flops / calls, bytes / calls}, {median(times), static_cast<int>(times.size())}};
}

}  // namespace

std::vector<KernelTiming> time_kernels(const std::vector<Scenario>& scenarios, KernelBackend& backend,
                                       double min_seconds, NodeWait& wait) {
  std::vector<TimedModel> models = scenarios.empty() ? shipped_models() : scenario_models(scenarios);
  std::vector<KernelTiming> out;
  for (const TimedModel& m : models) {
    std::vector<float> params(m.model->num_parameters()), grad(m.model->num_parameters());
    Rng rng(11);
    m.model->init(params.data(), rng);
    for (double factor : {0.25, 0.5, 1.0, 2.0, 4.0}) {
      const std::size_t batch =
          std::clamp<std::size_t>(static_cast<std::size_t>(static_cast<double>(m.batch) * factor), 1, m.rows.size());
      if (!out.empty() && out.back().model == m.label && out.back().batch == batch) continue;
      // A worker never computes the same mini-batch twice in a row: timing one batch over and
      // over found its rows (and a sparse model's touched keys) in cache every time. It walks
      // its rows in a new random order each pass, which the hardware cannot fetch ahead.
      std::vector<std::uint32_t> order = m.rows;
      std::size_t cursor = 0;
      Rng walk(13);
      const auto [cost, time] = repeat(
          [&] { return step(m, backend, next_shuffled_batch(order, cursor, batch, walk), params, grad, wait); },
          min_seconds);
      out.push_back({m.label, batch, false, cost.flops, cost.bytes, time.first, time.second});
    }
  }
  return out;
}

std::vector<KernelTiming> time_evaluations(const std::vector<Scenario>& scenarios, KernelBackend& backend,
                                           double min_seconds, NodeWait& wait) {
  std::vector<TimedModel> models = scenarios.empty() ? shipped_models() : scenario_models(scenarios);
  std::vector<KernelTiming> out;
  for (const TimedModel& m : models) {
    std::vector<float> params(m.model->num_parameters());
    Rng rng(11);
    m.model->init(params.data(), rng);
    std::vector<std::uint32_t> test_rows(m.test->rows);
    std::iota(test_rows.begin(), test_rows.end(), 0u);  // the whole test set, as evaluate_model
    for (double fraction : {0.25, 0.5, 1.0}) {
      const auto [cost, time] =
          repeat([&] { return evaluation(m, backend, test_rows, fraction, params, wait); }, min_seconds);
      out.push_back({m.label, first_part(m.train_eval_rows.size(), fraction) + first_part(test_rows.size(), fraction),
                     true, cost.flops, cost.bytes,
                     time.first, time.second});
    }
  }
  return out;
}

void NodeWait::pass() {
  ++passes_;
  // One write per cache line: every line of the buffer is then this core's, the others' gone.
  for (std::size_t i = 0; i < buffer_.size(); i += 64) ++buffer_[i];
  volatile unsigned char keep = buffer_[buffer_.size() / 2];  // so the writes cannot be dropped
  (void)keep;
  if (sleep_s_ > 0) std::this_thread::sleep_for(std::chrono::duration<double>(sleep_s_));
}

std::size_t private_cache_eviction_bytes() {
  const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return l2 > 0 ? 2 * static_cast<std::size_t>(l2) : std::size_t{8} << 20;
}

double memcpy_bandwidth(std::size_t bytes, int repetitions) {
  std::vector<char> from(bytes, 1), to(bytes, 2);
  std::vector<double> times;
  for (int r = 0; r < repetitions; ++r) {
    const auto t0 = Clock::now();
    std::memcpy(to.data(), from.data(), bytes);
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    // Read back one byte, so the copy cannot be dropped.
    if (to[bytes / 2] != 1) return 0;
    times.push_back(s);
  }
  return static_cast<double>(bytes) / median(times);
}

}  // namespace pstwin::cli
