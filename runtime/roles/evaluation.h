// Evaluation: the scheduler's measurements. Snapshots of every key range put together by clock,
// the model evaluated on them, the servers' staleness reports, and the parameters' hash.
// Evaluation is a measurement: the scheduler accounts its cost, which the simulation charges only
// where it takes CPU cores from the roles (scenario "cpu"; docs/DESIGN.md, "Cost model").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kernels/backend.h"
#include "runtime/message.h"
#include "runtime/metrics.h"
#include "runtime/partition.h"
#include "runtime/roles/job.h"

namespace pstwin {

/// When a server took snapshot `m`: header.time_us in seconds (its Env::now()).
double snapshot_time_s(const Message& m);

/// One parameter vector put together from every key range's snapshot (values in key order).
class RangeAssembly {
 public:
  /// `ranges`: the job's key ranges; `values_per_key` floats per key; `num_parameters` floats in
  /// all, 0 for the synthetic model (values are then not kept). `what` names the snapshots in
  /// errors ("snapshot", "final snapshot").
  RangeAssembly(const std::vector<KeyRange>& ranges, std::uint64_t values_per_key,
                std::uint64_t num_parameters, const char* what);
  /// An assembly of no ranges, to assign a real one to.
  RangeAssembly() = default;

  /// Adds `m`, range m.header.range's snapshot at clock m.header.clock. Returns false, changing
  /// nothing, when that range is in already (a promoted primary may send it again). Throws
  /// ProtocolError for an unknown range, or values that do not fill the range (unless synthetic).
  bool add(const Message& m);
  /// Whether every range is in.
  bool complete() const { return count_ == seen_.size(); }
  /// By range: whether it is in.
  const std::vector<bool>& ranges_in() const { return seen_; }
  /// The smallest clock among the snapshots added (ranges may stop at different clocks).
  std::int64_t clock() const { return clock_; }
  /// The latest snapshot stamp (seconds): when the last range reached its clock.
  double time_s() const { return time_s_; }
  /// The parameters; REQUIRES complete() for them all to be set (others stay 0).
  std::vector<float>& params() { return params_; }

 private:
  const std::vector<KeyRange>* ranges_ = nullptr;
  std::uint64_t values_per_key_ = 1;
  const char* what_ = "snapshot";
  std::vector<float> params_;
  std::vector<bool> seen_;  // by key range
  std::size_t count_ = 0;
  std::int64_t clock_ = 0;
  double time_s_ = 0.0;
};

/// The periodic snapshots (kSnapshot without kFinal), assembled per clock.
class SnapshotAssembler {
 public:
  /// Arguments as RangeAssembly's; `ranges` must outlive the assembler.
  SnapshotAssembler(const std::vector<KeyRange>& ranges, std::uint64_t values_per_key,
                    std::uint64_t num_parameters)
      : ranges_(ranges), values_per_key_(values_per_key), num_parameters_(num_parameters) {}

  /// Adds snapshot `m`. Returns the assembly of m.header.clock when `m` completes it (the clock is
  /// then forgotten), else nullopt. Throws as RangeAssembly::add.
  std::optional<RangeAssembly> add(const Message& m);
  /// Drops every unfinished clock (nothing more is worth evaluating).
  void clear() { by_clock_.clear(); }

 private:
  const std::vector<KeyRange>& ranges_;
  std::uint64_t values_per_key_;
  std::uint64_t num_parameters_;
  std::map<std::int64_t, RangeAssembly> by_clock_;
};

/// The two forward passes of an evaluation: `model` at `params` over rows `train_rows` of `train`
/// (into *train_stats) and rows `test_rows` of `test` (into *test_stats), on `kernels`. Returns the
/// kernels' cost of both. evaluate_model runs it with spec.train_eval_rows and every test row;
/// `pstwin calibrate` times it (cli/calibrate_kernels.h), so that the scheduler's evaluation is
/// priced from runs of the code it runs. Throws what Model::evaluate throws (std::out_of_range
/// for a row past a dataset's end, DataError for data the model cannot read).
Cost evaluation_passes(const Model& model, KernelBackend& kernels, const Dataset& train,
                       RowSelection train_rows, const Dataset& test, RowSelection test_rows,
                       const float* params, LossStats* train_stats, LossStats* test_stats);

/// Evaluates the model `spec` describes at `params` (num_parameters floats) for global clock
/// `clock`, stamped `time_s`: mean train loss on spec.train_eval_rows, mean test loss on the whole
/// test set (both plus the regularizer) and Model::metric. Returns nullopt when a loss is not
/// finite (diverged). The synthetic model has nothing to evaluate: a row of NaN losses.
/// `spent`, when given, receives the kernels' cost of both passes (empty for the synthetic
/// model), for the scheduler to account.
std::optional<EvalRow> evaluate_model(const JobSpec& spec, KernelBackend& kernels,
                                      std::int64_t clock, const std::vector<float>& params,
                                      double time_s, Cost* spent = nullptr);

/// A stopping rule met by an evaluation: which one, and a sentence for the summary's reason.
struct StopDecision {
  std::string rule;    ///< "target_metric", "time_budget", or empty: keep going
  std::string reason;  ///< e.g. "stopped at the first evaluation at or past the target: ..."
};

/// Whether evaluation `row` ends the job under `spec`'s stopping rules: its test metric at or
/// past spec.stop_at_metric (>= when spec.higher_is_better, else <=; a NaN metric never is), then
/// its time_s at or past spec.time_budget_s. Throws nothing.
StopDecision stop_rule_met(const JobSpec& spec, const EvalRow& row);

/// Passes snapshot `m`'s staleness histogram (keys = staleness values, lengths = counts) to
/// `metrics`, and range 0's total as the job's count of applied updates (every range applies
/// every gradient). Throws ProtocolError when keys and lengths differ in number.
void report_staleness(const Message& m, MetricsSink& metrics);

/// SHA-256 (64 lowercase hex digits) of `params` as little-endian float32 in key order.
std::string params_sha256(const std::vector<float>& params);

}  // namespace pstwin
