// What an earlier run left in an output folder, removed as a new run starts so that nothing there
// describes another run (DESIGN.md, "Outputs": a stopped variant's files).
#pragma once

#include <string>
#include <vector>

namespace pstwin::cli {

/// Removes, as `simulate` or `launch` starts into OUT: each variant's summary.json, metrics.csv,
/// events.jsonl, trace.json and link_load.csv (OUT/<variant>/), a launched job's
/// address_book.json, scheduler.endpoint and metrics.url there, and OUT's report.md and *.png
/// (analysis/plot_runs.py's figures of the earlier run). Checkpoints stay: they are a job's
/// state to resume from, not a description of it. Only regular files: a planted symbolic
/// link stays, for the writer to refuse naming it. A trial's stopped re-run kept the finished
/// run's report.md and figures beside its new summaries. Failures to remove are ignored: the
/// writers replace those files or say why they cannot.
void remove_earlier_outputs(const std::string& out, const std::vector<std::string>& variants);

/// Removes OUT's report.md and *.png (regular files only), the figures a plot script drew of an
/// earlier run: `sweep` calls it before it runs anything, since its sweep.csv is then rewritten
/// (plot_sweep.py's sweep_<pointer>.png would describe the earlier one).
void remove_earlier_figures(const std::string& out);

}  // namespace pstwin::cli
