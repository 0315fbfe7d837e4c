// What `launch` adds to a variant's outputs after its processes ended (summary repair): its own
// failure events, a summary for a scheduler that wrote none, and why the launcher stopped a job.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/child_exit.h"
#include "runtime/scenario/scenario.h"

namespace pstwin::cli {

/// "server:1" or "worker:3": process `index` of a launched variant, in the order launch starts
/// them (0 the scheduler, then the servers, then the workers). REQUIRES 1 <= index <= servers +
/// workers of `scenario`.
std::string launched_node_name(const Scenario& scenario, std::size_t index);

/// "worker:3 exited with status 255" or "worker:3 was killed by signal 9 (SIGKILL)": how process
/// `index` ended (ChildExit::text).
std::string node_exit_text(const Scenario& scenario, std::size_t index, const ChildExit& end);

/// Appends the launcher's `events` (failure injection's node_failed, ...) after the scheduler's
/// in DIR/events.jsonl, and computes the summary's failure count and time lost again with them
/// (when DIR/summary.json exists). Says on stderr when the summary cannot be updated.
void append_events(const std::string& dir, const std::vector<nlohmann::json>& events);

/// Writes DIR/summary.json for the variant of `run` (its own scenario) whose scheduler ended
/// without writing one (killed, or it could not start): unfinished_summary, completed false and
/// `reason`, so that every variant folder says how it ended; `stopped_by` ("SIGINT") when the launch was stopped by that signal (its stop_reason,
/// unfinished_summary). Throws std::runtime_error naming the path when it cannot write.
void write_missing_summary(const std::string& dir, const Scenario& run, const std::string& reason,
                           const std::string& stopped_by = "");

/// For the variants of `runs` (one scenario per variant, as VariantRuns::scenarios) from index
/// `first` on, which launch does not run (`reason`: why, e.g. "not run: variant bsp's job found
/// that --transport ucx cannot work on this machine, so launch stopped there", or "the job was
/// stopped by SIGINT before it started"): writes OUT/<variant>/summary.json with completed false,
/// "started" false and that reason (so that no earlier run's summary stands in for it; `stopped_by` as for
/// write_missing_summary) and returns their names, in order. Throws std::runtime_error naming
/// the path when it cannot write.
std::vector<std::string> mark_variants_not_run(const std::vector<Scenario>& runs, std::size_t first,
                                               const std::string& out, const std::string& reason,
                                               const std::string& stopped_by = "");

/// For a variant whose scheduler process had written its summary and ended when the launch was
/// stopped (`why`: "stopped by SIGINT"), so that no node saw the stop: when DIR/summary.json
/// says the job completed and did not diverge, and DIR/events.jsonl holds no
/// "stopped_after_completion" event, appends one (at the summary's sim_time_s) and adds the note
/// to the summary's reason (add_late_stop_note, runtime/output/late_stop.h), as a job in this
/// process (launch --transport inproc) has it. Otherwise changes nothing. A launch over ZeroMQ
/// once said on stderr that the job had completed while its summary's reason stayed empty. Says
/// on stderr when it cannot update.
void note_late_stop_in_folder(const std::string& dir, const std::string& why);

/// DIR/summary.json, or an empty object when it is missing or unreadable.
nlohmann::json summary_in(const std::string& dir);

/// After the launcher stopped a job because process `index` ended as `end` (`why` follows
/// the node's exit in the reason: ", and the job has no fault tolerance to go on without it"):
/// appends a "job_lost" event {"node", "exit_status" (ChildExit::shell_status), "signal" (only
/// when a signal ended it), "reason"} to DIR/events.jsonl, at the time of the scheduler's
/// "job_stopped" event (else the job's last time), and puts that node first in the reason of the
/// summary the stopped scheduler wrote ("worker:1 was killed by signal 9 (SIGKILL), and ...; the
/// launcher stopped the job: <the scheduler's reason>"). Does nothing to a summary that is
/// missing or says the job completed. Says on stderr when it cannot update.
void record_job_lost(const std::string& dir, const Scenario& scenario, std::size_t index, const ChildExit& end,
                     const std::string& why);

}  // namespace pstwin::cli
