// The layout of a job's checkpoint folder DIR:
//   DIR/clock-<c>/range-<r>.ckpt  one ShardCheckpoint per key range, written by the range's
//                                 primary server (write_checkpoint)
//   DIR/clock-<c>/COMPLETE        JSON {"clock": c, "ranges": R, "time_s": t,
//                                 "params_sha256": "..." (optional)}, written atomically by the
//                                 scheduler once every range's file of clock c is written
//                                 (mark_complete)
// A checkpoint counts only once its COMPLETE marker exists, so a job that dies mid-checkpoint
// resumes from the previous one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/checkpoint/shard_checkpoint.h"

namespace pstwin {

/// DIR/clock-<clock>. Throws std::invalid_argument for a negative clock.
std::string checkpoint_clock_dir(const std::string& dir, std::int64_t clock);

/// DIR/clock-<clock>/range-<range>.ckpt. Throws std::invalid_argument for a negative clock.
std::string checkpoint_file(const std::string& dir, std::int64_t clock, std::uint32_t range);

/// DIR/clock-<clock>/COMPLETE. Throws std::invalid_argument for a negative clock.
std::string complete_marker(const std::string& dir, std::int64_t clock);

/// Writes `c` to checkpoint_file(dir, c.clock, c.range) atomically, creating the folders.
/// Throws CheckpointError as encode_checkpoint and write_file_atomically do, or naming the
/// folder it cannot create.
void write_checkpoint(const std::string& dir, const ShardCheckpoint& c);

/// Writes the COMPLETE marker of checkpoint `clock` (atomically; creates the folders): `ranges`
/// key ranges, taken at `time_s` seconds (simulated or wall) into the job, and `params_sha256`
/// (hex) when not empty. Does not check the range files. Throws CheckpointError naming the path.
void mark_complete(const std::string& dir, std::int64_t clock, std::uint32_t ranges,
                   double time_s, const std::string& params_sha256 = "");

/// The number of key ranges that the COMPLETE marker content data[0..size) records, after
/// checking that it is a JSON object whose "clock" is `clock` and whose "ranges" is an integer in
/// [1, 2^32). Throws CheckpointError naming `path` (the marker's file, for messages) otherwise.
std::uint32_t parse_complete_marker(const std::uint8_t* data, std::size_t size,
                                    const std::string& path, std::int64_t clock);

/// The newest clock whose COMPLETE marker exists and whose every range file decodes (as
/// load_checkpoint checks); nullopt when there is none, or DIR does not exist. Incomplete or
/// corrupt newer checkpoints are skipped; when `skipped` is not null, a human-readable reason
/// is appended for each ("<folder>: <why>"). Entries of DIR not named clock-<digits> are ignored.
std::optional<std::int64_t> latest_complete(const std::string& dir,
                                            std::vector<std::string>* skipped = nullptr);

/// Every range of checkpoint `clock`, in range order. The number of ranges comes from the
/// COMPLETE marker. Throws CheckpointError naming the file when the marker is missing or
/// malformed, a range file is missing or corrupt, a file's range or clock is not the one its
/// name says, or the ranges do not cover the keys contiguously from key 0.
std::vector<ShardCheckpoint> load_checkpoint(const std::string& dir, std::int64_t clock);

}  // namespace pstwin
