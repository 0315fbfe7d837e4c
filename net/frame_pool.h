// FramePool: encoded-message buffers reused across iterations, so a 40 MB push does not cost a
// fresh, zero-filled, page-faulting allocation every clock (DESIGN.md, "The hot path").
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace pstwin::net {

/// One encoded message: bytes [0, size) of a buffer of `capacity` bytes. The buffer is allocated
/// without being cleared: whoever fills it writes every byte it sends.
struct Frame {
  std::unique_ptr<std::uint8_t[]> bytes;
  std::size_t size = 0;
  std::size_t capacity = 0;

  std::uint8_t* data() { return bytes.get(); }
  const std::uint8_t* data() const { return bytes.get(); }
};

/// Free frame buffers, shared by the senders and receivers of one process. Thread-safe: a
/// ZeroMQ I/O thread gives a frame back once it has sent it.
class FramePool {
 public:
  /// Keeps at most `max_free` free buffers (the largest ones); more are freed on release.
  explicit FramePool(std::size_t max_free = 8) : max_free_(max_free) {}

  /// A frame of `size` bytes (contents undefined): the smallest free buffer that fits without
  /// wasting more than half of it, else a new one.
  Frame acquire(std::size_t size);
  /// Takes `frame`'s buffer back for a later acquire().
  void release(Frame frame);

  /// Buffers allocated so far (acquire() calls that found no free one); for tests.
  std::uint64_t allocations() const;
  /// Free buffers held now.
  std::size_t free_buffers() const;

 private:
  const std::size_t max_free_;
  mutable std::mutex mutex_;
  std::vector<Frame> free_;  // unordered; few entries
  std::uint64_t allocations_ = 0;
};

}  // namespace pstwin::net
