// Fuzz target: decode() of one wire message (runtime/codec.h), as a transport receives it.
//
// Each input is decoded twice: as given (the checksum must reject corruption) and with its CRC-32
// made valid (so mutations reach the size and key checks behind it). Whatever decode accepts must
// re-encode to a message that decodes to the same bytes again, in exactly encoded_size() bytes.
// The same input read as a header part: its values offset (checked_values_offset) lies within it.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz/fuzz_support.h"
#include "runtime/codec.h"
#include "runtime/errors.h"

namespace {

// A key range costs 8 payload bytes whatever its length, and decode bounds it by max_bytes / 8
// keys (8 bytes each in memory). With the default 1 GiB limit a 100-byte input may still allocate
// 1 GiB, near libFuzzer's memory limit; a 1 MiB limit exercises the same checks at a size the
// fuzzer can run.
constexpr std::size_t kMaxBytes = std::size_t{1} << 20;

void decode_and_check(const std::uint8_t* data, std::size_t size) {
  // A streamed values section is hashed from the header part's values offset on before the header
  // part is decoded (wire version 8): the offset must lie within the bytes given, or be refused.
  try {
    const std::size_t at = pstwin::checked_values_offset(data, size);
    pstwin::fuzz::require(at >= pstwin::kWireHeaderBytes && at + 4 <= size, "values offset within the header part");
  } catch (const pstwin::ProtocolError&) {
  }
  pstwin::Message m;
  try {
    m = pstwin::decode(data, size, kMaxBytes);
  } catch (const pstwin::ProtocolError&) {
    return;  // rejected with a message: the expected outcome for most inputs
  }
  const std::vector<std::uint8_t> once = pstwin::encode(m);
  pstwin::fuzz::require(once.size() == pstwin::encoded_size(m), "encode(m).size() == encoded_size(m)");
  // The first re-encoding may choose another key mode (a contiguous explicit list becomes a
  // range), so compare the second with the first rather than with the input.
  const pstwin::Message again = pstwin::decode(once.data(), once.size(), kMaxBytes);
  pstwin::fuzz::require(pstwin::encode(again) == once, "encode(decode(encode(m))) == encode(m)");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  decode_and_check(data, size);
  const std::vector<std::uint8_t> fixed = pstwin::fuzz::with_valid_frame_checksum(data, size);
  decode_and_check(fixed.data(), fixed.size());
  return 0;
}
