// SpareValues: value vectors a node's messages are done with, kept so that the next message
// received decodes into memory already faulted in, and the next one sent is filled there
// (DESIGN.md, "The hot path"). One node's. Thread-safe: a transport's I/O thread gives back the
// values it sent from (ZeroMQ's free function).
#pragma once

#include <cstddef>
#include <mutex>
#include <vector>

namespace pstwin::net {

/// At most `kKept` vectors, the ones of largest capacity; their contents are undefined.
class SpareValues {
 public:
  static constexpr std::size_t kKept = 2;
  /// Smaller vectors are not worth keeping: the allocator serves them from memory it holds.
  static constexpr std::size_t kWorthKeepingBytes = 64 * 1024;

  /// Keeps `values`' memory if it is among the kKept largest held (small ones are dropped).
  void give(std::vector<float> values);
  /// For a message of about n values: the smallest held vector of capacity >= n, else the
  /// largest held; an empty one when nothing is held or n is too small to be worth it (so a
  /// small control message does not carry off the buffer the next push needs).
  std::vector<float> take(std::size_t n);
  /// For a transport to receive n values into: a held vector of capacity >= n, resized to n
  /// (no pass over its memory when it held n or more before), contents unspecified; an empty one
  /// when none is held (a new one would be zero-filled first: a whole pass for nothing, so the
  /// caller receives into a buffer of its own instead).
  std::vector<float> take_sized(std::size_t n);

 private:
  /// The held vector of smallest capacity >= n, or held_.end(). REQUIRES: mutex_ held.
  std::vector<std::vector<float>>::iterator smallest_fitting(std::size_t n);
  /// Takes *pick out of held_. REQUIRES: mutex_ held, pick valid.
  std::vector<float> remove(std::vector<std::vector<float>>::iterator pick);
  std::mutex mutex_;
  std::vector<std::vector<float>> held_;
};

}  // namespace pstwin::net
