// The side-by-side comparison of a scenario's variants: a table for people, a CSV for tools.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/scenario/scenario.h"

namespace pstwin::cli {

/// Columns, in order, of comparison.csv and the printed table.
const std::vector<std::string>& comparison_columns();

/// Writes comparison.csv: a header of comparison_columns() and "status", then one row per summary
/// (as written to summary.json); null figures are empty fields, status is run_status ("ok",
/// "DIVERGED", "stopped", "FAILED"; cli/run_status.h). Throws std::runtime_error if it cannot
/// write.
void write_comparison_csv(const std::string& path, const std::vector<nlohmann::json>& summaries);

/// Reads OUT/<name>/summary.json for each variant (a missing or unreadable one, or a non-zero
/// exit code, marks the variant failed), writes OUT/comparison.csv, prints the scenario line,
/// the table and where the outputs are. Returns 0 when every variant completed, else 1.
int report_comparison(const Scenario& scenario, const std::string& out,
                      const std::vector<std::string>& names, const std::vector<int>& exit_codes);

/// Prints an aligned table of the same figures; "-" for figures that are null (e.g. a target
/// not reached), run_status_text in the status column ("stopped (SIGINT) at 62%"). The metric
/// column reads "final test accuracy" when no run was stopped, "test accuracy at stop" when some
/// were and none completed, else "last test accuracy".
void print_comparison_table(std::ostream& out, const std::vector<nlohmann::json>& summaries);

}  // namespace pstwin::cli
