// Running each consistency variant in a child process (SimGrid allows one engine per process),
// several at once, with their progress gathered into one status line.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace pstwin::cli {

/// Per-variant progress as reported by its child.
struct VariantStatus {
  std::string name;
  double sim_time_s = 0.0;
  double fraction = 0.0;
  bool running = false;
  bool done = false;
  int exit_code = -1;  ///< child's exit status, -1 while it runs; 128+signal if killed
};

/// Work a child does: run variant `index`, calling report(sim_time_s, fraction) at each
/// evaluation. Returns the child's exit status.
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
/// ended with one. Returns the final status of every variant, in order.
std::vector<VariantStatus> run_variant_processes(const std::vector<std::string>& names,
                                                 unsigned jobs, const VariantBody& body,
                                                 bool quiet, const StatusLineFn& status_line = {});

}  // namespace pstwin::cli
