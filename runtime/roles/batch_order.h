// The order in which a worker takes its rows: one shuffled pass over its partition after another.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/rng.h"

namespace pstwin {

/// A worker's walk over its partition (docs/DESIGN.md, "Roles"): each mini-batch is the next
/// `batch_size` rows of `order` from `cursor` on, and whenever the walk is at the start of a pass
/// (cursor 0) `order` is shuffled first (Fisher-Yates, i from n down to 2 swapping element i-1
/// with element rng.below(i)), so every pass visits every row once in a new order. A batch that
/// crosses the end of a pass finishes in the next pass's order. Advances `cursor` (mod
/// order.size()) and draws from `rng` exactly as Worker has always done, so runs keep their
/// data order. Returns an empty batch when `order` is empty. `pstwin calibrate` draws its timed
/// batches with it too (cli/calibrate_kernels.h): a worker's rows are not visited in storage
/// order, and rows in storage order are fetched ahead by the hardware.
std::vector<std::uint32_t> next_shuffled_batch(std::vector<std::uint32_t>& order, std::size_t& cursor,
                                               std::size_t batch_size, Rng& rng);

}  // namespace pstwin
