#include "runtime/roles/batch_order.h"

#include <utility>

namespace pstwin {

std::vector<std::uint32_t> next_shuffled_batch(std::vector<std::uint32_t>& order, std::size_t& cursor,
                                               std::size_t batch_size, Rng& rng) {
  std::vector<std::uint32_t> batch;
  if (order.empty()) return batch;
  batch.reserve(batch_size);
  while (batch.size() < batch_size) {
    if (cursor == 0) {
      // A new pass over the partition: Fisher-Yates with the node's own stream.
      for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
    }
    batch.push_back(order[cursor]);
    cursor = (cursor + 1) % order.size();
  }
  return batch;
}

}  // namespace pstwin
