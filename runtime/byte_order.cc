#include "runtime/byte_order.h"

#include <zlib.h>

namespace pstwin::byte_order {

std::uint32_t crc32_of(const std::uint8_t* data, std::size_t size) {
  uLong crc = crc32(0L, Z_NULL, 0);
  constexpr std::size_t kChunk = std::size_t{1} << 30;
  while (size > 0) {
    const std::size_t n = size < kChunk ? size : kChunk;
    crc = crc32(crc, data, static_cast<uInt>(n));
    data += n;
    size -= n;
  }
  return static_cast<std::uint32_t>(crc);
}

std::string hex32(std::uint32_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s = "0x";
  for (int i = 7; i >= 0; --i) s += digits[(v >> (4 * i)) & 0xf];
  return s;
}

}  // namespace pstwin::byte_order
