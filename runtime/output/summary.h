// summary.json: a run's configuration and final figures, the same in every environment.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/output/run_recorder.h"
#include "runtime/scenario/scenario.h"

namespace pstwin {

/// What the environment knows about a run beyond what the recorder measured.
struct RunFacts {
  std::string environment;         ///< "simulated", "inproc", "zmq" or "ucx"
  double time_s = 0.0;             ///< simulated seconds, or wall seconds of the job
  double wall_time_s = 0.0;        ///< wall seconds the run took on this machine
  std::uint64_t bytes_sent = 0;    ///< encoded bytes of every message
  std::uint64_t messages_sent = 0;
  std::uint64_t iterations = 0;    ///< clocks per worker the job was given (JobSpec::iterations)
  /// Seconds each worker computed, straggler slowdowns included, by worker index (a real job:
  /// measured by the worker; a simulation: priced). Empty: not known (a job that never started).
  std::vector<double> worker_compute_s;
  bool roles_finished = false;     ///< every role returned normally
  std::string failure;             ///< why not, when roles_finished is false
  /// The signal that stopped the run from outside before it completed ("SIGINT", as
  /// net::StopRequest::signal_name gives it); empty when none did.
  std::string stopped_by;
};

/// The summary of `variant` of `scenario`: the keys listed in README "Outputs" (variant, mode,
/// metric (the recorder's MetricGoal name, null when empty), final_test_metric, time_to_target_s,
/// sim_time_s, wall_time_s, failures and time_lost_s (set_failure_fields over the recorder's
/// failure_events, the run ending at facts.time_s), updates, bytes_sent, worker_compute_s,
/// params_sha256, staleness figures, completed, diverged, reason, stop_reason, config, ...).
/// stop_reason is
/// "target_metric" or "time_budget" (a stopping rule), "iterations" or "epochs" (ran them all),
/// "diverged", the signal that stopped it ("SIGINT": facts.stopped_by, not completed), or
/// "failed" (not completed otherwise). A stopped run also gets "progress": clocks_share of the
/// recorder's worker_clocks_done, the share of its clocks the job reached; its sim_time_s is
/// facts.time_s, the time of the stop (its figures stay those of its last evaluation).
/// A stopped run's "progress" (0..1), the same in every environment: the share of its clocks the
/// job reached, `clocks_done` (the workers' clocks finished, all together: RunRecorder::
/// worker_clocks_done) over `workers` x `iterations`, or the share of the last evaluated clock
/// `evaluated_clock` when larger (a resumed job's clocks before its checkpoint are not pushed
/// again); at most 1 (a restarted worker pushes some clocks twice). 0 when workers or iterations
/// is 0. A trial's launch read "at 0%" 20 clocks in, before its first evaluation.
double clocks_share(std::uint64_t clocks_done, std::uint64_t workers, std::uint64_t iterations,
                    std::int64_t evaluated_clock);

nlohmann::json make_summary(const Scenario& scenario, const ConsistencyVariant& variant,
                            const RunRecorder& recorder, const RunFacts& facts);

/// The summary of a run whose process ended without writing one (killed, crashed, or the job
/// never started): what every summary says of its run (scenario, variant, mode, `environment`
/// ("simulated", "zmq"), workers, servers, metric (null for a model without one), target_metric
/// (null without a target)), completed false and `reason`, so that every variant folder says how
/// it ended and what it was. `run`: the variant's own scenario (scenario_for_variant; its
/// consistency.front() is the variant). `stopped_by`: the signal that stopped it ("SIGINT"),
/// written as its stop_reason (run_status then reads "stopped"); empty for a run that failed,
/// which gets no stop_reason.
nlohmann::json unfinished_summary(const Scenario& run, const std::string& environment, const std::string& reason,
                                  const std::string& stopped_by = "");

/// The same for `variant` of `scenario`, whose consistency list may hold every variant (a
/// launched node's scenario).
nlohmann::json unfinished_summary(const Scenario& scenario, const ConsistencyVariant& variant,
                                  const std::string& environment, const std::string& reason,
                                  const std::string& stopped_by = "");

/// Writes `summary` to DIR/summary.json. Throws std::runtime_error naming the path on failure.
void write_summary(const std::string& dir, const nlohmann::json& summary);

}  // namespace pstwin
