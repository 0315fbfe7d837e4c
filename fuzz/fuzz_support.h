// Helpers shared by the libFuzzer targets in fuzz/ (README, "Sanitizers and fuzzing").
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "runtime/byte_order.h"
#include "runtime/codec.h"

namespace pstwin::fuzz {

/// Stops the run as a crash when a property that must hold for every accepted input fails, so
/// libFuzzer saves the input: a reader that accepts something it cannot reproduce is a bug even
/// when no sanitizer notices.
inline void require(bool ok, const char* property) {
  if (ok) return;
  std::fprintf(stderr, "fuzz property violated: %s\n", property);
  std::abort();
}

/// A copy of data[0..size) whose last four bytes are the little-endian CRC-32 of the bytes before
/// them, as the checkpoint format ends. Random mutations almost never keep a checksum
/// valid, so without this the fuzzer would rarely get past the CRC check to the parsing behind it.
inline std::vector<std::uint8_t> with_valid_crc(const std::uint8_t* data, std::size_t size) {
  std::vector<std::uint8_t> out(data, data + size);
  if (out.size() >= 4) {
    const std::uint32_t crc = byte_order::crc32_of(out.data(), out.size() - 4);
    for (int i = 0; i < 4; ++i) out[out.size() - 4 + i] = static_cast<std::uint8_t>(crc >> (8 * i));
  }
  return out;
}

/// The same with the wire codec's frame checksum (runtime/codec.h: XXH3's low 32 bits).
inline std::vector<std::uint8_t> with_valid_frame_checksum(const std::uint8_t* data, std::size_t size) {
  std::vector<std::uint8_t> out(data, data + size);
  if (out.size() >= 4) {
    const std::uint32_t sum = frame_checksum(out.data(), out.size() - 4);
    for (int i = 0; i < 4; ++i) out[out.size() - 4 + i] = static_cast<std::uint8_t>(sum >> (8 * i));
  }
  return out;
}

}  // namespace pstwin::fuzz
