// Little-endian scalar and array access and CRC-32, shared by the binary formats (the wire
// encoding in codec_encode.cc and codec_decode.cc, checkpoints in checkpoint/). Integers are
// written byte by byte, so a format does not depend on the host; arrays are copied with memcpy
// only when the host is little-endian too.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace pstwin::byte_order {

static_assert(std::numeric_limits<float>::is_iec559 && sizeof(float) == 4,
              "the binary formats carry IEEE 754 binary32 values");

inline constexpr bool kHostIsLittleEndian = std::endian::native == std::endian::little;

inline void store_u32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
inline void store_u64(std::uint8_t* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
inline std::uint32_t load_u32(const std::uint8_t* p) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= std::uint32_t{p[i]} << (8 * i);
  return v;
}
inline std::uint64_t load_u64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t{p[i]} << (8 * i);
  return v;
}

/// Writes n values of T (a 4- or 8-byte integer or float) at p, little-endian: n*sizeof(T) bytes.
template <typename T>
void store_array(std::uint8_t* p, const T* src, std::size_t n) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8);
  if constexpr (kHostIsLittleEndian) {
    if (n > 0) std::memcpy(p, src, n * sizeof(T));
  } else {
    for (std::size_t i = 0; i < n; ++i, p += sizeof(T)) {
      if constexpr (sizeof(T) == 4) store_u32(p, std::bit_cast<std::uint32_t>(src[i]));
      else store_u64(p, std::bit_cast<std::uint64_t>(src[i]));
    }
  }
}

/// Reads n values of T (a 4- or 8-byte integer or float) from p into dst, little-endian.
template <typename T>
void load_array(T* dst, const std::uint8_t* p, std::size_t n) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8);
  if constexpr (kHostIsLittleEndian) {
    if (n > 0) std::memcpy(dst, p, n * sizeof(T));
  } else {
    for (std::size_t i = 0; i < n; ++i, p += sizeof(T)) {
      if constexpr (sizeof(T) == 4) dst[i] = std::bit_cast<T>(load_u32(p));
      else dst[i] = std::bit_cast<T>(load_u64(p));
    }
  }
}

/// Replaces v's contents with n values of T read from p, little-endian, without first filling v
/// with zeros (a plain copy into v's existing capacity when the host is little-endian and p is
/// aligned for T). Used by decoders, where a zero fill doubles the cost of a large payload.
template <typename T>
void assign_array(std::vector<T>& v, const std::uint8_t* p, std::size_t n) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8);
  if constexpr (kHostIsLittleEndian) {
    if (reinterpret_cast<std::uintptr_t>(p) % alignof(T) == 0) {
      const T* first = reinterpret_cast<const T*>(p);
      v.assign(first, first + n);
      return;
    }
  }
  v.resize(n);
  load_array(v.data(), p, n);
}

/// zlib's CRC-32 of data[0..size), for any size (zlib takes 32-bit lengths; this feeds chunks).
std::uint32_t crc32_of(const std::uint8_t* data, std::size_t size);

/// v as "0x" and eight lower-case hex digits, for error messages.
std::string hex32(std::uint32_t v);

}  // namespace pstwin::byte_order
