// What a sweep refuses before it plans anything: a grid too large to run (the plan loads every
// setting's scenario up front) and seeds that would pass the largest seed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/sweep_grid.h"

namespace pstwin::cli {

/// The most runs (grid points x seeds x variants) one sweep takes (README, "Sweeps"). Each run is
/// a whole simulation with a folder of its own; the plan validates every grid point x seed as a
/// scenario of its own before anything runs, so its memory grows with the count.
constexpr std::uint64_t kMaxSweepRuns = 10000;

/// "" when `axes` x `seeds` x `variants` runs are at most kMaxSweepRuns, else the message that
/// refuses the sweep, naming the flags, the count and the limit: "--grid (2 x 3 = 6 points) x
/// --seeds 1000000000 x 3 variants = 18000000000 runs, more than the 10000 a sweep takes; ...".
/// Counts in 64 bits without wrapping (a product past 2^64 - 1 is said as "more than
/// 18446744073709551615"), before any point exists.
std::string sweep_size_problem(const std::vector<GridAxis>& axes, std::uint64_t seeds, std::uint64_t variants);

/// "" when seeds `base` + 0..seeds-1 all fit in 64 bits, else the message that refuses --seeds:
/// the seeds would wrap around to 0 past 2^64 - 1.
std::string seed_range_problem(std::uint64_t base, std::uint64_t seeds);

}  // namespace pstwin::cli
