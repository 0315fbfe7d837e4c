// What the codec's encoder (codec_encode.cc) and decoder (codec_decode.cc) share of the frame
// layout runtime/codec.h describes. Internal to those two files: everything else goes through
// codec.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/codec.h"
#include "runtime/frame_checksum.h"

namespace pstwin::codec_layout {

/// Bytes 0..3 of every frame.
inline constexpr std::uint8_t kMagic[4] = {'P', 'S', 'T', 'W'};
/// The checksum field that ends a frame.
inline constexpr std::size_t kCrcBytes = 4;
/// The shortest frame: the fixed header and the checksum.
inline constexpr std::size_t kMinMessageBytes = kWireHeaderBytes + kCrcBytes;

/// Byte 6 of a frame: how the keys are written.
enum KeyMode : std::uint8_t { kNoKeys = 0, kExplicitKeys = 1, kKeyRange = 2 };

/// frame_checksum of the frame a split one stands for: its head, values section and tail, in
/// frame order (so both forms of a frame carry the same checksum). Never throws.
inline std::uint32_t split_checksum(const std::uint8_t* head, std::size_t head_size, const std::uint8_t* values,
                                    std::size_t values_size, const std::uint8_t* tail, std::size_t tail_size) {
  FrameHasher hasher;
  hasher.add(head, head_size);
  hasher.add(values, values_size);
  hasher.add(tail, tail_size);
  return hasher.digest();
}

}  // namespace pstwin::codec_layout
