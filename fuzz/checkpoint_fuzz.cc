// Fuzz target: the checkpoint reader (runtime/checkpoint/): decode_checkpoint of a range file
// and parse_complete_marker of a COMPLETE marker, as load_checkpoint reads them.
//
// The first byte chooses what the rest is: bit 0 set, a COMPLETE marker (of clock 3); otherwise a
// range file, with its CRC-32 made valid when bit 1 is set (so mutations reach the checks behind
// it). A range file decode accepts must re-encode to exactly the same bytes.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz/fuzz_support.h"
#include "runtime/checkpoint/checkpoint_dir.h"
#include "runtime/checkpoint/shard_checkpoint.h"
#include "runtime/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::uint8_t mode = data[0];
  std::vector<std::uint8_t> body(data + 1, data + size);
  try {
    if (mode & 1) {
      const std::uint32_t ranges = pstwin::parse_complete_marker(body.data(), body.size(), "COMPLETE", 3);
      pstwin::fuzz::require(ranges >= 1, "a complete checkpoint has a range");
      return 0;
    }
    if (mode & 2) body = pstwin::fuzz::with_valid_crc(body.data(), body.size());
    const pstwin::ShardCheckpoint c = pstwin::decode_checkpoint(body.data(), body.size());
    pstwin::fuzz::require(pstwin::encode_checkpoint(c) == body, "encode(decode(bytes)) == bytes");
  } catch (const pstwin::CheckpointError&) {
    // rejected with a reason
  }
  return 0;
}
