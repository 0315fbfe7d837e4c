// Supervising a launched job's processes while a scenario's failures are injected into them.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "net/stop_request.h"
#include "runtime/scenario/failure_schedule.h"

namespace pstwin::cli {

/// The processes of one launched job.
struct JobProcesses {
  pid_t scheduler = -1;
  std::vector<pid_t> servers;  ///< by server index; the current process of each (-1: none yet, a joining one)
  std::vector<pid_t> workers;  ///< by worker index
  /// Starts node `ref` again as a restarted process (pstwin node --rejoin --index ...), or a
  /// joining server's first process (its --index alone makes it join).
  std::function<pid_t(const NodeRef&)> restart;
};

/// Carries out `schedule` on `job` and waits for it to end. Time 0 is when `time0_file` (the
/// scheduler's address_book.json, written when the rendezvous ends, which is the job's time 0)
/// appears. A node failure is SIGKILL to that node's process; a recovery starts it again
/// through job.restart, and so does a server joining (kJoin, at its at_s), its first process.
/// Nothing is injected once the scheduler has written summary.json (beside `time0_file`): the
/// job is over. Killing the scheduler ends the job: pstwin does not replicate it. Once the
/// scheduler exits, the other processes get `grace_s` seconds and are then terminated (SIGTERM,
/// then SIGKILL). Processes killed on purpose do not count as failures. Appends an event
/// {"time_s", "type": "node_failed" | "node_restarted" | "node_started" (a join), "node"} per
/// action to `events` (times in seconds since time 0). A server or worker not killed on purpose
/// that exits with kTransportUnavailableExit (net/transport_unavailable.h) ends the job: the
/// scheduler gets SIGTERM (it writes what it has), and that status is returned. Once `stop`
/// (null: none; not owned) is requested, nothing more is injected or restarted, and every
/// process still running kStoppedChildrenGrace_s later (the signal reached them already) is
/// killed (SIGKILL). Otherwise returns the scheduler's exit status (or 1 when it was killed on
/// purpose). Each process reaped is forgotten (forget_spawned).
int supervise_job(JobProcesses& job, const std::vector<FailureEvent>& schedule,
                  const std::string& time0_file, double grace_s, std::vector<nlohmann::json>& events,
                  const net::StopRequest* stop = nullptr);

}  // namespace pstwin::cli
