// Gradient steps of the real models timed on a backend, and memcpy timed on the host.
#include "cli/calibrate_kernels.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>

#include "cli/calibration_fit.h"
#include "runtime/job_setup.h"
#include "runtime/model/model.h"
#include "runtime/rng.h"

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

std::vector<TimedModel> shipped_models() {
  auto data = synthetic_images(4096);
  auto binary = std::make_shared<Dataset>(*data);
  binary->num_classes = 2;
  for (std::size_t r = 0; r < binary->rows; ++r) binary->labels[r] = static_cast<std::int32_t>(r % 2);
  std::vector<std::uint32_t> rows(data->rows);
  std::iota(rows.begin(), rows.end(), 0u);
  std::vector<TimedModel> out;
  ModelSection section;
  section.l2 = 1e-4;
  section.type = "logistic";
  out.push_back({"logistic", make_model(section, 784, 2), binary, rows, 64});
  section.type = "softmax";
  out.push_back({"softmax", make_model(section, 784, 10), data, rows, 64});
  section.type = "mlp";
  section.hidden = {128};
  out.push_back({"mlp", make_model(section, 784, 10), data, rows, 64});
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
    out.push_back(std::move(m));
  }
  return out;
}

/// One gradient step of `m` over the first `batch` of `rows`; returns its Cost.
Cost step(const TimedModel& m, KernelBackend& backend, const std::vector<std::uint32_t>& rows,
          std::vector<float>& params, std::vector<float>& grad) {
  const RowSelection sel{rows.data(), rows.size()};
  LossStats stats;
  if (!m.model->sparse()) return m.model->gradient(backend, *m.data, sel, params.data(), grad.data(), &stats);
  const std::vector<std::uint64_t> keys = m.model->batch_keys(*m.data, sel);
  const std::size_t width = m.model->values_per_key();
  std::vector<float> touched(keys.size() * width), touched_grad(keys.size() * width);
  for (std::size_t k = 0; k < keys.size(); ++k)
    std::copy_n(params.data() + keys[k] * width, width, touched.data() + k * width);
  return m.model->sparse_gradient(backend, *m.data, sel, keys, touched.data(), touched_grad.data(), &stats);
}

}  // namespace

std::vector<KernelTiming> time_kernels(const std::vector<Scenario>& scenarios, KernelBackend& backend,
                                       double min_seconds) {
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
      // over found its rows (and a sparse model's touched keys) in cache every time.
      std::size_t next = 0;
      const auto next_rows = [&] { return next_batch_rows(m.rows, batch, next); };
      const Cost cost = step(m, backend, next_rows(), params, grad);  // unmeasured
      double flops = cost.flops, bytes = cost.bytes;
      std::vector<double> times;
      const auto until = Clock::now() + std::chrono::duration<double>(min_seconds);
      while (times.size() < 3 || Clock::now() < until) {
        const std::vector<std::uint32_t> rows = next_rows();
        const auto t0 = Clock::now();
        const Cost c = step(m, backend, rows, params, grad);
        times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
        flops += c.flops;
        bytes += c.bytes;
      }
      // A sparse batch's cost varies with its rows: the mean over the calls timed (and the one before).
      const double calls = static_cast<double>(times.size() + 1);
      out.push_back({m.label, batch, flops / calls, bytes / calls, median(times), static_cast<int>(times.size())});
    }
  }
  return out;
}

std::vector<std::uint32_t> next_batch_rows(const std::vector<std::uint32_t>& rows, std::size_t batch,
                                           std::size_t& next) {
  std::vector<std::uint32_t> out(rows.empty() ? 0 : batch);
  for (std::uint32_t& r : out) {
    r = rows[next];
    next = (next + 1) % rows.size();
  }
  return out;
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
