// Starting and waiting for child processes (the roles of a job that launch starts).
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "cli/child_exit.h"

namespace pstwin::cli {

/// Starts `argv[0]` with arguments argv[1..] (searched on PATH when it has no '/'), stdout and
/// stderr inherited. Throws std::runtime_error when fork fails; a failed exec exits the child
/// with status 127 and a message on stderr. The child ends when this process does
/// (die_with_parent). REQUIRES: called from the main thread.
pid_t spawn(const std::vector<std::string>& argv);

/// In a child just forked by `parent`: asks Linux to send it `death_signal` when the thread that
/// forked it ends (prctl PR_SET_PDEATHSIG), and ends it at once if `parent` is already gone. A
/// launcher or simulate killed with SIGKILL forwards nothing, and its children would otherwise go
/// on writing into an output folder whose lock died with it. The signal is unblocked for it (a
/// parent with StopOnSignals forked with it blocked). SIGTERM lets an exec'd role write what it
/// has; a forked variant, which blocks SIGTERM (block_stop_signals), takes SIGKILL. REQUIRES:
/// called in the child, and the fork made by a thread that lives as long as the child should
/// (the main thread).
void die_with_parent(pid_t parent, int death_signal = SIGTERM);

/// Waits for every pid. When one ends other than ok (ChildExit::ok), the others get `grace_s`
/// seconds to finish and are then sent SIGTERM (and SIGKILL 5 s later); at once instead when
/// `stop_at_once`, given, returns true for that pid's index and end (a node the job cannot go on
/// without). Returns how each ended, in order. When `first_failure` is given, it is set to the
/// index of the first pid that ended other than ok by itself (before any signal from here; e.g.
/// killed by someone else), or pids.size() if none.
std::vector<ChildExit> wait_all(const std::vector<pid_t>& pids, double grace_s, std::size_t* first_failure = nullptr,
                                const std::function<bool(std::size_t, const ChildExit&)>& stop_at_once = {});

/// Makes SIGINT, SIGTERM and SIGHUP sent to this process go to every child spawn() started as
/// well (the same signal, so that the job reports the user's), then waits for those children to
/// end (at most 10 s, then kills them) before this process ends as the signal would have ended
/// it. So stopping a launcher stops its job, even when the signal was not sent to the whole
/// process group, and no child writes into OUT after the launcher's lock on it is gone.
void forward_termination_to_children();

/// Path of the running executable (/proc/self/exe), so launch starts the same build.
std::string self_executable();

}  // namespace pstwin::cli
