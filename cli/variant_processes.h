// Running each consistency variant in a child process (SimGrid allows one engine per process),
// several at once, with their progress gathered into one status line.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cli/child_exit.h"
#include "net/stop_request.h"

namespace pstwin::cli {

/// Per-variant progress as reported by its child.
struct VariantStatus {
  std::string name;
  double sim_time_s = 0.0;
  double fraction = 0.0;
  bool running = false;
  bool done = false;
  int exit_code = -1;  ///< child's exit status, -1 while it runs; 128+signal if killed
  ChildExit end;       ///< how the child ended, once it has (for messages: a code or a signal)
  bool stopped = false;  ///< ended (or never started) because the run was stopped (a signal)
  long pid = -1;         ///< its child process once started (it names the files a killed one left)
};

/// What a variant's summary says when the run was stopped before it finished: "the simulation
/// was stopped by SIGINT at 42% (simulated time 1.25 s), before it completed", or "... before it
/// started". `why`: the StopRequest's reason ("stopped by SIGINT").
std::string stopped_variant_reason(const VariantStatus& status, const std::string& why);

/// Work a child does: run variant `index`, calling report(sim_time_s, fraction) as it goes (the
/// share of clocks done, ProgressFn), and report(sim_time_s, 1) once its run is over (whatever its outcome) and only its
/// outputs are left to write: a stop then lets it finish rather than kill it, so that a run done
/// is never reported as stopped. Returns the child's exit status.
using VariantBody = std::function<int(std::size_t index,
                                      const std::function<void(double, double)>& report)>;

/// The progress line's text from every variant's status (after "progress: ").
using StatusLineFn = std::function<std::string(const std::vector<VariantStatus>&)>;

/// Forks one child per name, at most `jobs` at a time, runs `body` in each, and shows progress
/// on stderr (one rewritten line on a terminal, a line every few seconds otherwise; nothing when
/// quiet): by default each variant's share done, else what `status_line` makes of the statuses
/// (a sweep's dozens of runs need a shorter line). A child's stderr comes through this process
/// and out on stderr a whole line at a time, each prefixed "[NAME] " (its entry of `names`), so
/// that children running at once never cut into each other's lines; a last line without '\n' is
/// ended with one. Returns the final status of every variant, in order. Once `stop` (null: none;
/// not owned) is requested, no child starts any more and the running ones are killed (SIGKILL)
/// and reaped at once, except those that reported a fraction of 1 (their run is over: they are
/// waited for and end as they end); each killed one is `stopped`, as is every variant not
/// started; what a killed child was writing is the caller's to tidy (tidy_killed_run_folder,
/// runtime/output/cut_outputs.h, with its `pid`). Children block SIGINT, SIGTERM and SIGHUP:
/// they are the parent's to act on (StopOnSignalsInHandler), which stops its children; a child
/// dies with its parent by SIGKILL.
/// Throws std::runtime_error when pipe or fork fails.
std::vector<VariantStatus> run_variant_processes(const std::vector<std::string>& names,
                                                 unsigned jobs, const VariantBody& body,
                                                 bool quiet, const StatusLineFn& status_line = {},
                                                 const net::StopRequest* stop = nullptr);

/// For variant folder `dir` whose child `pid` ended with a status other than 0 (killed when the
/// run was stopped, or crashed): tidy_killed_run_folder(dir, pid), so that its files hold whole
/// records only. What cannot be tidied is said on stderr, naming the file; the run goes on to
/// write its summaries and comparison.
void tidy_variant_folder(const std::string& dir, long pid);

}  // namespace pstwin::cli
