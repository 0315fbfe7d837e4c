// The integrity check a wire frame ends with (runtime/codec.h's layout, its last 4 bytes): the low
// 32 bits of XXH3-64 (xxHash, seed 0) over every byte before it, in frame order (DESIGN.md, "The
// hot path" says why XXH3 and when frames carry none).
#pragma once

#include <cstddef>
#include <cstdint>

namespace pstwin {

/// The checksum of data[0..size): the low 32 bits of XXH3-64 with seed 0. Runs near memory speed;
/// it catches corruption, not forgery (CURVE authenticates frames). Never throws.
std::uint32_t frame_checksum(const std::uint8_t* data, std::size_t size);

/// frame_checksum of a frame given in pieces (a split frame's header part around its values, a
/// values part that arrived in several parts), streamed in frame order, so that no piece has to
/// be copied next to another and a piece can be hashed as it is copied. For any cut of a frame
/// into pieces, add() of each in order, then digest(), equals frame_checksum of the whole.
/// Allocates nothing; not copyable (it holds XXH3's streaming state, 576 bytes).
class FrameHasher {
 public:
  FrameHasher();
  FrameHasher(const FrameHasher&) = delete;
  FrameHasher& operator=(const FrameHasher&) = delete;
  /// Hashes bytes[0..size) after everything added before (size 0: nothing).
  void add(const std::uint8_t* bytes, std::size_t size);
  /// The checksum of everything added so far.
  std::uint32_t digest() const;

 private:
  alignas(64) unsigned char state_[640];  // an XXH3_state_t (checked in frame_checksum.cc)
};

}  // namespace pstwin
