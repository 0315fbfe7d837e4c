// The side-by-side comparison of a scenario's variants: a table for people, a CSV for tools.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/scenario/scenario.h"

namespace pstwin::cli {

/// Writes comparison.csv: a header (variant, mode, time_to_target_s, last_test_metric,
/// last_test_loss, updates, staleness_mean, staleness_max, sim_time_s, wall_time_s, time_lost_s,
/// bytes_sent, bytes_to_servers, params_sha256, stop_reason, status), then one row per summary
/// (as written to summary.json; last_test_metric and last_test_loss are its final_test_metric and
/// final_test_loss: the last evaluation's, final for a completed run, reached for a stopped
/// one); null figures are empty fields, status is run_status ("ok", "DIVERGED", "stopped",
/// "FAILED"; cli/run_status.h). Throws std::runtime_error if it cannot write.
void write_comparison_csv(const std::string& path, const std::vector<nlohmann::json>& summaries);

/// Reads OUT/<name>/summary.json for each variant (a missing or unreadable one, or a non-zero
/// exit code, marks the variant failed), writes OUT/comparison.csv, prints the scenario line,
/// the table and where the outputs are. Returns 0 when every variant completed, else 1.
int report_comparison(const Scenario& scenario, const std::string& out,
                      const std::vector<std::string>& names, const std::vector<int>& exit_codes);

/// What the "outputs:" line after a run names: "OUT/ (comparison.csv, <variant>/metrics.csv,
/// summary.json, events.jsonl" then trace.json and link_load.csv when any of the variants
/// `names` has one in OUT/<variant>/, then ")". Reads only whether those files exist.
std::string outputs_text(const std::string& out, const std::vector<std::string>& names);

/// Prints an aligned table of the same figures; "-" for figures that are null (e.g. a target
/// not reached), run_status_text in the status column ("stopped (SIGINT) at 62%"). The metric
/// column reads "final test accuracy" when no run was stopped, "last test accuracy" when some
/// were and some completed, "test accuracy at stop" when none completed and some stopped after
/// starting, else (every run stopped before it started, or failed) "test accuracy".
void print_comparison_table(std::ostream& out, const std::vector<nlohmann::json>& summaries);

}  // namespace pstwin::cli
