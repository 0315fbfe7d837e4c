// RunRecorder: the MetricsSink that writes a run's output folder (DESIGN.md, "Outputs").
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runtime/metrics.h"
#include "runtime/output/output_file.h"
#include "runtime/output/trace_recorder.h"

namespace pstwin {

/// What EvalRow::test_metric measures: its name, written to summary.json as "metric" ("accuracy",
/// "rmse"; empty for a model without one, the synthetic model), and which way is better.
struct MetricGoal {
  std::string name = "accuracy";
  bool higher_is_better = true;
};

/// metrics.csv's first line: its columns, in order, and the line's end.
inline constexpr const char* kMetricsCsvHeader =
    "time_s,clock,updates,train_loss,test_loss,test_metric,staleness_mean,staleness_max\n";

/// Writes DIR/metrics.csv (one row per evaluation) and DIR/events.jsonl (one JSON object per
/// line) as results arrive, and keeps the figures summary.json needs. Single-threaded.
/// Non-finite figures are written as empty CSV fields (the synthetic model has no losses).
/// The header reaches the file at once, and the rows with the events so far at the first
/// evaluation and then at the first one a second (wall clock) after the last flush, so that a
/// process killed mid-run (a stopped simulate's variant) leaves its evaluations up to a second
/// before; what it cuts is only after the last whole line (tidy_killed_run_folder,
/// runtime/output/cut_outputs.h, removes that).
class RunRecorder : public MetricsSink {
 public:
  /// Creates `dir` (and parents) and opens the two files. Throws std::runtime_error naming the
  /// path when it cannot. `target_metric`: the first time test_metric reaches it (>= when higher
  /// is better, <= otherwise, per `goal`) is the time-to-target.
  RunRecorder(const std::string& dir, std::optional<double> target_metric, MetricGoal goal = {});

  void staleness(std::int64_t staleness, std::uint64_t count) override;
  void updates_applied(std::uint64_t n) override;
  void bytes_to_servers(std::uint64_t bytes) override { bytes_to_servers_ += bytes; }
  void eval(EvalRow row) override;
  void event(double time_s, const std::string& type, nlohmann::json fields) override;
  void finish(const std::string& params_sha256, bool diverged, const std::string& reason) override;
  /// Kept in the trace given to set_trace; dropped without one. A worker's "push" span (one per
  /// clock it finishes, runtime/roles/worker.cc) is also counted (worker_clocks_done) and passed
  /// to on_push.
  void span(std::uint32_t node, std::string_view name, double start_s, double end_s) override;
  /// Where spans go from now on (null: nowhere). Not owned; the caller writes it at the end.
  void set_trace(TraceRecorder* trace) { trace_ = trace; }

  /// Called by the environment each time a progress update is worth showing; may be empty.
  std::function<void(const EvalRow&)> on_eval;
  /// Called with worker_clocks_done() and the push span's end (seconds of the run's clock) at
  /// each worker's push; may be empty.
  std::function<void(std::uint64_t clocks_done, double time_s)> on_push;

  const std::vector<EvalRow>& rows() const { return rows_; }
  std::uint64_t updates() const { return updates_; }
  /// Clocks the workers finished, all workers together: the "push" spans heard so far (a job's
  /// scheduler hears them from its nodes, net/span_forwarding.h). Its share of workers x
  /// iterations is a stopped run's progress (make_summary).
  std::uint64_t worker_clocks_done() const { return worker_clocks_done_; }
  /// Encoded bytes of the workers' pushes and pulls the servers received (bytes_to_servers).
  std::uint64_t bytes_to_servers() const { return bytes_to_servers_; }
  double staleness_mean() const;
  std::int64_t staleness_max() const { return staleness_max_all_; }
  /// Histogram of staleness values: counts[s] = gradients applied s clocks stale.
  const std::vector<std::uint64_t>& staleness_histogram() const { return histogram_; }
  std::optional<double> time_to_target_s() const { return time_to_target_s_; }
  const MetricGoal& metric_goal() const { return goal_; }
  bool finished() const { return finished_; }
  const std::string& params_sha256() const { return sha256_; }
  bool diverged() const { return diverged_; }
  const std::string& reason() const { return reason_; }
  /// The stopping rule that ended the run early ("why" of its "stopped" event: "target_metric",
  /// "time_budget"), empty when none did.
  const std::string& stop_rule() const { return stop_rule_; }
  /// Whether a "stopped_after_completion" event was written: the scheduler saw a stop from
  /// outside (a signal) once training was over.
  bool stopped_after_completion() const { return stopped_after_completion_; }
  /// The events written so far that time_lost_to_failures reads (is_failure_accounting_event),
  /// as events.jsonl holds them, in the order they arrived.
  const std::vector<nlohmann::json>& failure_events() const { return failure_events_; }
  /// The "server_load" events written so far (one per server report), as events.jsonl holds them.
  const std::vector<nlohmann::json>& server_loads() const { return server_loads_; }
  /// Flushes both files.
  void flush();

 private:
  OutputFileStream metrics_;  // opened with O_NOFOLLOW: a planted link is refused
  OutputFileStream events_;
  std::optional<double> target_;
  MetricGoal goal_;
  std::vector<EvalRow> rows_;
  std::uint64_t updates_ = 0;
  std::uint64_t worker_clocks_done_ = 0;
  std::uint64_t bytes_to_servers_ = 0;
  // Staleness since the previous row, and over the whole run.
  double window_sum_ = 0.0;
  std::uint64_t window_count_ = 0;
  std::int64_t window_max_ = 0;
  double sum_all_ = 0.0;
  std::uint64_t count_all_ = 0;
  std::int64_t staleness_max_all_ = 0;
  std::vector<std::uint64_t> histogram_;
  std::optional<double> time_to_target_s_;
  bool finished_ = false;
  bool diverged_ = false;
  std::string sha256_;
  std::string reason_;
  std::string stop_rule_;
  bool stopped_after_completion_ = false;
  std::vector<nlohmann::json> failure_events_;
  std::vector<nlohmann::json> server_loads_;
  TraceRecorder* trace_ = nullptr;
  std::chrono::steady_clock::time_point last_flush_;  // of rows and events, by eval
};

}  // namespace pstwin
