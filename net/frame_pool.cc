#include "net/frame_pool.h"

#include <algorithm>

namespace pstwin::net {

Frame FramePool::acquire(std::size_t size) {
  {
    std::lock_guard lock(mutex_);
    auto best = free_.end();
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      // A buffer more than twice the size would sit mostly unused while a large message that
      // needs it allocates anew.
      const bool fits = it->capacity >= size && it->capacity / 2 <= std::max<std::size_t>(size, 4096);
      if (fits && (best == free_.end() || it->capacity < best->capacity)) best = it;
    }
    if (best != free_.end()) {
      Frame f = std::move(*best);
      *best = std::move(free_.back());
      free_.pop_back();
      f.size = size;
      return f;
    }
    ++allocations_;
  }
  Frame f;
  f.bytes = std::make_unique_for_overwrite<std::uint8_t[]>(std::max<std::size_t>(size, 1));
  f.size = size;
  f.capacity = std::max<std::size_t>(size, 1);
  return f;
}

void FramePool::release(Frame frame) {
  if (!frame.bytes) return;
  std::lock_guard lock(mutex_);
  free_.push_back(std::move(frame));
  if (free_.size() > max_free_) {
    // Drop the smallest: the large ones are what is expensive to allocate again.
    auto smallest = std::min_element(free_.begin(), free_.end(), [](const Frame& a, const Frame& b) {
      return a.capacity < b.capacity;
    });
    *smallest = std::move(free_.back());
    free_.pop_back();
  }
}

std::uint64_t FramePool::allocations() const {
  std::lock_guard lock(mutex_);
  return allocations_;
}

std::size_t FramePool::free_buffers() const {
  std::lock_guard lock(mutex_);
  return free_.size();
}

}  // namespace pstwin::net
