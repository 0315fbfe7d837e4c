// The grid of a sweep: the values given for each swept JSON pointer (--grid /ptr=v1,v2,...) and
// their cross product, the points a sweep runs.
#pragma once

#include <string>
#include <vector>

namespace pstwin::cli {

/// One --grid flag: a JSON pointer of the scenario and the values it takes, in the given order.
struct GridAxis {
  std::string pointer;              ///< "/cluster/workers"
  std::vector<std::string> values;  ///< value texts as --set takes them: "4", "\"cpu\"", "[1,2]", "bsp"
};

/// One point of the grid: the value of every axis (same order as the axes).
struct GridPoint {
  std::vector<std::string> values;
};

/// Parses "/ptr=v1,v2,...". The values are split at commas outside JSON brackets, braces and
/// strings ("/a=[1,2],[3]" gives "[1,2]" and "[3]"), and trimmed of blanks; each is later read
/// as JSON when it parses, else as a string, like --set. Throws std::invalid_argument naming the
/// flag text for a missing '=', a pointer not starting with '/', an empty value or unbalanced
/// brackets/quotes, and for a value given twice.
GridAxis parse_grid_axis(const std::string& text);

/// Every combination of the axes' values, the first axis varying slowest. One empty point when
/// there are no axes (a sweep over seeds and variants only).
std::vector<GridPoint> grid_points(const std::vector<GridAxis>& axes);

/// A folder-safe name of `value` (a value text): letters, digits, '.', '-' and '+' kept, any
/// other run of characters replaced by one '_' ("\"10Gbps\"" gives "10Gbps", "[1,2]" "1_2").
std::string folder_safe(const std::string& value);

/// The folder name of a point and seed: "cluster.workers=4_training.batch_size=32_seed=1" (each
/// pointer without its leading '/' and with '/' as '.', then folder_safe of the value).
std::string point_folder_name(const std::vector<GridAxis>& axes, const GridPoint& point,
                              unsigned long long seed);

}  // namespace pstwin::cli
