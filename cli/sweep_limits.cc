#include "cli/sweep_limits.h"

#include <limits>

#include "runtime/count_text.h"

namespace pstwin::cli {

namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

/// a x b, or nothing when it passes 2^64 - 1.
bool multiply(std::uint64_t& a, std::uint64_t b) {
  if (b != 0 && a > kMax / b) return false;
  a *= b;
  return true;
}

}  // namespace

std::string sweep_size_problem(const std::vector<GridAxis>& axes, std::uint64_t seeds, std::uint64_t variants) {
  std::uint64_t points = 1;
  bool fits = true;
  std::string sizes;
  for (const GridAxis& axis : axes) {
    fits = multiply(points, axis.values.size()) && fits;
    sizes += (sizes.empty() ? "" : " x ") + std::to_string(axis.values.size());
  }
  std::uint64_t runs = points;
  fits = fits && multiply(runs, seeds) && multiply(runs, variants);
  if (fits && runs <= kMaxSweepRuns) return "";
  const std::string grid = axes.size() > 1 && fits ? "--grid (" + sizes + " = " + count_text(points, "point") + ")"
                           : fits                  ? "--grid (" + count_text(points, "point") + ")"
                                                   : "--grid (" + sizes + " points)";
  return grid + " x --seeds " + std::to_string(seeds) + " x " + count_text(variants, "variant") + " = " +
         (fits ? std::to_string(runs) : "more than " + std::to_string(kMax)) + " runs, more than the " +
         std::to_string(kMaxSweepRuns) + " a sweep takes; give fewer --grid values or --seeds, or split the grid "
         "into sweeps of their own --out";
}

std::string seed_range_problem(std::uint64_t base, std::uint64_t seeds) {
  if (seeds == 0 || base <= kMax - (seeds - 1)) return "";
  return "--seeds " + std::to_string(seeds) + " from the scenario's seed " + std::to_string(base) +
         " would pass 2^64 - 1, the largest seed, and wrap around to 0; give fewer --seeds or a smaller base "
         "seed (--set /seed=" + std::to_string(kMax - (seeds - 1)) + " at most)";
}

}  // namespace pstwin::cli
