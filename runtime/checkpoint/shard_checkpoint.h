// The on-disk form of one key range's server state, and whole-file reads and atomic writes.
//
// Layout, all integers little-endian, floats IEEE 754 binary32 little-endian:
//   offset size field
//   0      8    magic "PSTWCKPT"
//   8      4    format version (kCheckpointVersion)
//   12     4    range
//   16     8    key_begin
//   24     8    key_count
//   32     4    width (floats per key, >= 1)
//   36     8    clock (int64)
//   44     8    optimizer steps
//   52     8    number of params floats n_p (0 or key_count * width)
//   60     8    number of optimizer.first floats n_1 (0 or n_p)
//   68     8    number of optimizer.second floats n_2 (0 or n_p; 0 when n_1 is 0)
//   76     ..   params: n_p floats
//   ..     ..   optimizer.first: n_1 floats
//   ..     ..   optimizer.second: n_2 floats
//   end-4  4    CRC-32 (zlib) of every preceding byte
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/optimizer_state.h"

namespace pstwin {

inline constexpr std::uint32_t kCheckpointVersion = 1;
/// Size of the fixed part, before the float arrays.
inline constexpr std::size_t kCheckpointHeaderBytes = 76;

/// One key range's state at a shard clock: what a server writes and what a resumed or rebuilt
/// replica starts from.
struct ShardCheckpoint {
  std::uint32_t range = 0;                     ///< key-range index
  std::uint64_t key_begin = 0, key_count = 0;  ///< the range [key_begin, key_begin+key_count) in keys
  std::uint32_t width = 1;                     ///< floats per key
  std::int64_t clock = 0;                      ///< shard clock the state is at (BSP: clocks applied)
  /// key_count*width floats, or empty for the timing-only synthetic model (key_count still set).
  std::vector<float> params;
  /// Each vector empty or params.size() floats; second non-empty only with first.
  OptimizerState optimizer;
};

/// The binary form of `c` (layout above). Throws CheckpointError when `c` is inconsistent:
/// width 0, key_begin + key_count past 2^64, params neither empty nor key_count*width floats,
/// optimizer vectors neither empty nor params.size() floats, or `second` without `first`.
std::vector<std::uint8_t> encode_checkpoint(const ShardCheckpoint& c);

/// Decodes data[0..size). Never trusts a size read from the data: every count is checked
/// against the bytes present before anything is allocated. Throws CheckpointError naming what
/// is wrong: bad magic, unsupported version, truncated (naming the field), trailing bytes,
/// inconsistent sizes (as encode_checkpoint), or a CRC mismatch.
ShardCheckpoint decode_checkpoint(const std::uint8_t* data, std::size_t size);

/// Writes `bytes` to `path` atomically: into a temporary file in the same folder, fsync'd, then
/// renamed over `path` (and the folder fsync'd), so a reader sees the old file or the whole new
/// one, never part of it. The folder must exist. Throws CheckpointError naming the path and the
/// errno text; the temporary file is removed then.
void write_file_atomically(const std::string& path, const std::vector<std::uint8_t>& bytes);

/// The whole content of the file at `path`, read in chunks (no size from stat is trusted).
/// Throws CheckpointError naming the path and the errno text when it cannot be opened or read.
std::vector<std::uint8_t> read_file(const std::string& path);

}  // namespace pstwin
