#include "runtime/output/summary.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <stdexcept>

#include "runtime/job_setup.h"
#include "runtime/output/atomic_file.h"
#include "runtime/output/failure_accounting.h"
#include "runtime/output/server_load_summary.h"

namespace pstwin {

namespace {
nlohmann::json optional_number(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

/// What every summary says of its run, finished or not: which scenario, variant and cluster, and
/// what it measures against which target, so that a summary read alone (a stopped run's, whose
/// siblings may all be stopped too) names its scenario and metric (a trial's figures of a run
/// whose variants were all stopped were titled with the folder's name).
nlohmann::json run_identity(const Scenario& scenario, const ConsistencyVariant& variant,
                            const std::string& environment) {
  const std::string metric = scenario_metric_goal(scenario).name;
  return {{"scenario", scenario.name},
          {"variant", variant.name},
          {"mode", consistency_mode_name(variant.config.mode)},
          {"environment", environment},
          {"workers", scenario.cluster.workers},
          {"servers", scenario.cluster.servers},
          {"metric", metric.empty() ? nlohmann::json(nullptr) : nlohmann::json(metric)},
          {"target_metric", optional_number(scenario.training.target_metric)}};
}
}  // namespace

double clocks_share(std::uint64_t clocks_done, std::uint64_t workers, std::uint64_t iterations,
                    std::int64_t evaluated_clock) {
  if (workers == 0 || iterations == 0) return 0.0;
  const double pushed = static_cast<double>(clocks_done) / (static_cast<double>(workers) * static_cast<double>(iterations));
  const double evaluated = static_cast<double>(std::max<std::int64_t>(evaluated_clock, 0)) / static_cast<double>(iterations);
  return std::min(1.0, std::max(pushed, evaluated));
}

nlohmann::json make_summary(const Scenario& scenario, const ConsistencyVariant& variant,
                            const RunRecorder& recorder, const RunFacts& facts) {
  const bool completed = facts.roles_finished && recorder.finished();
  nlohmann::json s = run_identity(scenario, variant, facts.environment);
  s["staleness_bound"] = variant.config.staleness;
  s["backup_workers"] = variant.config.backup_workers;
  s["sync"] = variant.config.sync == SyncMode::kHybrid ? "hybrid" : "ps";
  s["iterations"] = facts.iterations ? facts.iterations : scenario.training.iterations;
  if (scenario.training.epochs) s["epochs"] = *scenario.training.epochs;
  s["completed"] = completed;
  s["diverged"] = recorder.diverged();
  s["reason"] = completed ? recorder.reason()
                          : (facts.failure.empty() ? "the job did not finish" : facts.failure);
  const bool stopped = !completed && !facts.stopped_by.empty();
  s["stop_reason"] = stopped                ? facts.stopped_by
                     : !completed            ? "failed"
                     : recorder.diverged() ? "diverged"
                     : !recorder.stop_rule().empty()
                         ? recorder.stop_rule()
                         : (scenario.training.epochs ? "epochs" : "iterations");
  const auto& rows = recorder.rows();
  auto last_finite = [&](double EvalRow::*field) -> std::optional<double> {
    if (rows.empty() || !std::isfinite(rows.back().*field)) return std::nullopt;
    return rows.back().*field;
  };
  const std::string& metric = recorder.metric_goal().name;
  s["metric"] = metric.empty() ? nlohmann::json(nullptr) : nlohmann::json(metric);
  s["final_test_metric"] = optional_number(last_finite(&EvalRow::test_metric));
  s["final_test_loss"] = optional_number(last_finite(&EvalRow::test_loss));
  s["final_train_loss"] = optional_number(last_finite(&EvalRow::train_loss));
  s["final_clock"] = rows.empty() ? 0 : rows.back().clock;
  if (stopped) {
    const std::uint64_t iterations = facts.iterations ? facts.iterations : scenario.training.iterations;
    s["progress"] = clocks_share(recorder.worker_clocks_done(), scenario.cluster.workers, iterations,
                                 rows.empty() ? 0 : rows.back().clock);
  }
  s["time_to_target_s"] = optional_number(recorder.time_to_target_s());
  s["sim_time_s"] = facts.time_s;
  s["wall_time_s"] = facts.wall_time_s;
  set_failure_fields(s, recorder.failure_events(), facts.time_s);  // "failures", "time_lost_s"
  s["updates"] = recorder.updates();
  s["bytes_sent"] = facts.bytes_sent;
  s["bytes_to_servers"] = recorder.bytes_to_servers();
  s["server_load"] = server_load_summary(recorder.server_loads(), scenario.cluster.servers);
  s["partition"] = partition_scheme_name(scenario.partition.scheme);
  s["messages_sent"] = facts.messages_sent;
  s["worker_compute_s"] = facts.worker_compute_s;
  s["staleness_mean"] = recorder.staleness_mean();
  s["staleness_max"] = recorder.staleness_max();
  s["staleness_histogram"] = recorder.staleness_histogram();
  s["params_sha256"] = recorder.params_sha256();
  s["busiest_links"] = nlohmann::json::array();  // simulate fills it in (sim/link_load.h)
  s["config"] = scenario.source;
  return s;
}

nlohmann::json unfinished_summary(const Scenario& run, const std::string& environment, const std::string& reason,
                                  const std::string& stopped_by) {
  return unfinished_summary(run, run.consistency.front(), environment, reason, stopped_by);
}

nlohmann::json unfinished_summary(const Scenario& scenario, const ConsistencyVariant& variant,
                                  const std::string& environment, const std::string& reason,
                                  const std::string& stopped_by) {
  nlohmann::json s = run_identity(scenario, variant, environment);
  s["completed"] = false;
  s["reason"] = reason;
  if (!stopped_by.empty()) s["stop_reason"] = stopped_by;
  return s;
}

void write_summary(const std::string& dir, const nlohmann::json& summary) {
  // Whole or not at all: the launcher and the plot scripts read it while jobs may be killed.
  write_file_atomically(dir + "/summary.json", summary.dump(2) + "\n");
}

}  // namespace pstwin
