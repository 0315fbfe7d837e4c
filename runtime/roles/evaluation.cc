#include "runtime/roles/evaluation.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <sstream>
#include <string>

#include "runtime/errors.h"
#include "runtime/sha256_hex.h"
#include "runtime/count_text.h"

namespace pstwin {

double snapshot_time_s(const Message& m) { return static_cast<double>(m.header.time_us) * 1e-6; }

RangeAssembly::RangeAssembly(const std::vector<KeyRange>& ranges, std::uint64_t values_per_key,
                             std::uint64_t num_parameters, const char* what)
    : ranges_(&ranges),
      values_per_key_(values_per_key),
      what_(what),
      params_(num_parameters, 0.0f),
      seen_(ranges.size(), false) {}

bool RangeAssembly::add(const Message& m) {
  const std::uint32_t r = m.header.range;
  if (r >= seen_.size())
    throw ProtocolError(std::string("scheduler: ") + what_ + " of unknown key range " +
                        std::to_string(r));
  if (seen_[r]) return false;
  if (!params_.empty()) {
    const KeyRange& kr = (*ranges_)[r];
    if (m.values.size() != kr.size() * values_per_key_)
      throw ProtocolError(std::string("scheduler: ") + what_ + " size does not match its range");
    std::copy(m.values.begin(), m.values.end(),
              params_.begin() + static_cast<long>(kr.begin * values_per_key_));
  }
  clock_ = count_ == 0 ? m.header.clock : std::min(clock_, m.header.clock);
  time_s_ = std::max(time_s_, snapshot_time_s(m));
  seen_[r] = true;
  ++count_;
  return true;
}

std::optional<RangeAssembly> SnapshotAssembler::add(const Message& m) {
  const std::int64_t clock = m.header.clock;
  auto it = by_clock_.try_emplace(clock, ranges_, values_per_key_, num_parameters_, "snapshot").first;
  if (!it->second.add(m) || !it->second.complete()) return std::nullopt;
  RangeAssembly done = std::move(it->second);
  by_clock_.erase(it);
  return done;
}

Cost evaluation_passes(const Model& model, KernelBackend& kernels, const Dataset& train,
                       RowSelection train_rows, const Dataset& test, RowSelection test_rows,
                       const float* params, LossStats* train_stats, LossStats* test_stats) {
  Cost cost = model.evaluate(kernels, train, train_rows, params, train_stats);
  cost += model.evaluate(kernels, test, test_rows, params, test_stats);
  return cost;
}

std::optional<EvalRow> evaluate_model(const JobSpec& spec, KernelBackend& kernels,
                                      std::int64_t clock, const std::vector<float>& params,
                                      double time_s, Cost* spent) {
  EvalRow row;
  row.time_s = time_s;
  row.clock = clock;
  if (spec.synthetic) {
    row.train_loss = row.test_loss = row.test_metric = std::nan("");
    return row;
  }
  const double reg = spec.model->regularizer(params.data());
  std::vector<std::uint32_t> all(spec.test->rows);
  for (std::uint32_t i = 0; i < all.size(); ++i) all[i] = i;
  LossStats train, test;
  const Cost cost = evaluation_passes(
      *spec.model, kernels, *spec.train,
      RowSelection{spec.train_eval_rows.data(), spec.train_eval_rows.size()}, *spec.test,
      RowSelection{all.data(), all.size()}, params.data(), &train, &test);
  if (spent) *spent = cost;
  row.train_loss = train.count ? train.loss_sum / static_cast<double>(train.count) + reg : reg;
  row.test_loss = test.count ? test.loss_sum / static_cast<double>(test.count) + reg : reg;
  row.test_metric = spec.model->metric(test);  // accuracy, or RMSE for mf
  if (!std::isfinite(row.train_loss) || !std::isfinite(row.test_loss)) return std::nullopt;
  return row;
}

void report_staleness(const Message& m, MetricsSink& metrics) {
  if (m.keys.size() != m.lengths.size())
    throw ProtocolError("scheduler: snapshot staleness histogram has " +
                        count_text(m.keys.size(), "value") + " but " +
                        count_text(m.lengths.size(), "count"));
  std::uint64_t applied = 0;
  for (std::size_t i = 0; i < m.keys.size(); ++i) {
    metrics.staleness(static_cast<std::int64_t>(m.keys[i]), m.lengths[i]);
    applied += m.lengths[i];
  }
  if (m.header.range == 0) metrics.updates_applied(applied);
}

std::string params_sha256(const std::vector<float>& params) {
  // Little-endian float32 bytes in key order: the bytes as they lie in memory, on a machine
  // whose order is asserted at compile time rather than converted at run time.
  static_assert(sizeof(float) == 4 && std::endian::native == std::endian::little);
  return sha256_hex(params.data(), params.size() * sizeof(float));
}

StopDecision stop_rule_met(const JobSpec& spec, const EvalRow& row) {
  StopDecision d;
  std::ostringstream why;
  why.precision(6);
  const bool target_met = spec.stop_at_metric && std::isfinite(row.test_metric) &&
                          (spec.higher_is_better ? row.test_metric >= *spec.stop_at_metric
                                                 : row.test_metric <= *spec.stop_at_metric);
  if (target_met) {
    d.rule = "target_metric";
    why << "stopped at the first evaluation at or past the target: test metric " << row.test_metric
        << " (target " << *spec.stop_at_metric << ") at clock " << row.clock;
  } else if (spec.time_budget_s && row.time_s >= *spec.time_budget_s) {
    d.rule = "time_budget";
    why << "stopped at the first evaluation past the time budget of " << *spec.time_budget_s
        << " s: clock " << row.clock << " at " << row.time_s << " s";
  }
  d.reason = why.str();
  return d;
}

}  // namespace pstwin
