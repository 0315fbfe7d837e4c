// Starting and waiting for child processes (the roles of a job that launch starts).
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "cli/child_exit.h"
#include "net/stop_request.h"

namespace pstwin::cli {

/// Starts `argv[0]` with arguments argv[1..] (searched on PATH when it has no '/'), stderr
/// inherited, and stdout too unless `stdout_fd` >= 0 (then the child's stdout is that file
/// descriptor, e.g. a pipe's write end; the caller closes its own copy). Throws std::runtime_error when fork fails; a failed exec exits the child
/// with status 127 and a message on stderr. The child ends when this process does
/// (die_with_parent). REQUIRES: called from the main thread.
pid_t spawn(const std::vector<std::string>& argv, int stdout_fd = -1);

/// In a child just forked by `parent`: asks Linux to send it `death_signal` when the thread that
/// forked it ends (prctl PR_SET_PDEATHSIG), and ends it at once if `parent` is already gone. A
/// launcher or simulate killed with SIGKILL forwards nothing, and its children would otherwise go
/// on writing into an output folder whose lock died with it. The signal is unblocked for it (a
/// parent with StopOnSignals forked with it blocked). SIGTERM lets an exec'd role write what it
/// has; a forked variant, which blocks SIGTERM (block_stop_signals), takes SIGKILL. REQUIRES:
/// called in the child, and the fork made by a thread that lives as long as the child should
/// (the main thread).
void die_with_parent(pid_t parent, int death_signal = SIGTERM);

/// Seconds the children of a stopped launcher get to end after the signal reached them (a
/// scheduler writes its summary within a fraction of a second); then they are killed (SIGKILL).
inline constexpr double kStoppedChildrenGrace_s = 10.0;

/// Waits for every pid. When one ends other than ok (ChildExit::ok), the others get `grace_s`
/// seconds to finish and are then sent SIGTERM (and SIGKILL 5 s later); at once instead when
/// `stop_at_once`, given, returns true for that pid's index and end (a node the job cannot go on
/// without). Once `stop` (null: none; not owned) is requested, the children, which got the
/// signal already (signal_spawned_children), get kStoppedChildrenGrace_s to end and are then
/// killed (SIGKILL); `stop_at_once` is no longer asked. Returns how each ended, in order. When
/// `first_failure` is given, it is set to the index of the first pid that ended other than ok by
/// itself (before any signal from here or a stop; e.g. killed by someone else), or pids.size()
/// if none. Each pid reaped is forgotten (forget_spawned).
std::vector<ChildExit> wait_all(const std::vector<pid_t>& pids, double grace_s, std::size_t* first_failure = nullptr,
                                const std::function<bool(std::size_t, const ChildExit&)>& stop_at_once = {},
                                const net::StopRequest* stop = nullptr);

/// Sends `sig` to every child spawn() started and not yet forgotten (forget_spawned). Async-
/// signal-safe (kill on a fixed array of atomics): launch's StopOnSignalsInHandler relays the
/// user's signal with it, so that the job reports the signal the user sent, even when it was
/// not sent to the whole process group. The caller then waits for the children (wait_all,
/// supervise_job with the StopRequest), and launch writes what the run has before it ends, its
/// lock on OUT held until no child can write into OUT any more.
void signal_spawned_children(int sig);

/// Stops signal_spawned_children from signalling `pid`: call it once `pid` was reaped, since
/// the number may then be reused by an unrelated process.
void forget_spawned(pid_t pid);

/// Path of the running executable (/proc/self/exe), so launch starts the same build.
std::string self_executable();

}  // namespace pstwin::cli
