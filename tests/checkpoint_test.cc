// Checkpoints (runtime/checkpoint/): the binary form's round trip and its rejection of truncated,
// corrupt and oversized input; atomic writes; the checkpoint folder's layout, the choice of the
// newest complete checkpoint and loading one.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "runtime/byte_order.h"
#include "runtime/checkpoint/checkpoint_dir.h"
#include "runtime/checkpoint/shard_checkpoint.h"
#include "runtime/errors.h"

namespace pstwin {
namespace {

namespace fs = std::filesystem;

/// A fresh, empty folder under the test temp dir, named after the running test.
std::string fresh_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string dir = ::testing::TempDir() + "pstwin-" + info->test_suite_name() + "-" +
                          info->name();
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// Range `range` of 3 keys of width 2 from key 3*range at `clock`, with Adam-shaped state.
ShardCheckpoint sample(std::uint32_t range = 1, std::int64_t clock = 7) {
  ShardCheckpoint c;
  c.range = range;
  c.key_begin = 3 * range;
  c.key_count = 3;
  c.width = 2;
  c.clock = clock;
  for (int i = 0; i < 6; ++i) {
    c.params.push_back(0.5f * i - 1.25f + range);
    c.optimizer.first.push_back(0.01f * i);
    c.optimizer.second.push_back(1e-4f * i + 1e-6f);
  }
  c.optimizer.steps = 42;
  return c;
}

void expect_same(const ShardCheckpoint& a, const ShardCheckpoint& b) {
  EXPECT_EQ(a.range, b.range);
  EXPECT_EQ(a.key_begin, b.key_begin);
  EXPECT_EQ(a.key_count, b.key_count);
  EXPECT_EQ(a.width, b.width);
  EXPECT_EQ(a.clock, b.clock);
  EXPECT_EQ(a.params, b.params);
  EXPECT_EQ(a.optimizer.first, b.optimizer.first);
  EXPECT_EQ(a.optimizer.second, b.optimizer.second);
  EXPECT_EQ(a.optimizer.steps, b.optimizer.steps);
}

ShardCheckpoint round_trip(const ShardCheckpoint& c) {
  const std::vector<std::uint8_t> bytes = encode_checkpoint(c);
  return decode_checkpoint(bytes.data(), bytes.size());
}

/// The CheckpointError message of decoding `bytes`, or "" when it decodes.
std::string decode_error(const std::vector<std::uint8_t>& bytes) {
  try {
    decode_checkpoint(bytes.data(), bytes.size());
  } catch (const CheckpointError& e) {
    return e.what();
  }
  return "";
}

/// Recomputes the trailing CRC-32, so a crafted field reaches the checks behind the checksum.
void reseal(std::vector<std::uint8_t>& bytes) {
  byte_order::store_u32(bytes.data() + bytes.size() - 4,
                        byte_order::crc32_of(bytes.data(), bytes.size() - 4));
}

void contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "'" << text << "' lacks '" << part << "'";
}

TEST(ShardCheckpoint, RoundTripsWithAndWithoutOptimizerStateAndWithEmptyParams) {
  expect_same(round_trip(sample()), sample());

  ShardCheckpoint momentum = sample();
  momentum.optimizer.second.clear();
  expect_same(round_trip(momentum), momentum);

  ShardCheckpoint sgd = sample();
  sgd.optimizer = {};
  expect_same(round_trip(sgd), sgd);

  // The timing-only synthetic model: no floats, the key range still recorded.
  ShardCheckpoint synthetic;
  synthetic.range = 3;
  synthetic.key_begin = 1000;
  synthetic.key_count = 1u << 30;
  synthetic.width = 16;
  synthetic.clock = -1;  // the format carries any int64; folders require >= 0
  synthetic.optimizer.steps = 5;
  const std::vector<std::uint8_t> bytes = encode_checkpoint(synthetic);
  EXPECT_EQ(bytes.size(), kCheckpointHeaderBytes + 4);
  expect_same(decode_checkpoint(bytes.data(), bytes.size()), synthetic);
}

TEST(ShardCheckpoint, EncodeRejectsInconsistentSizes) {
  ShardCheckpoint c = sample();
  c.params.pop_back();
  EXPECT_THROW(encode_checkpoint(c), CheckpointError);
  c = sample();
  c.optimizer.first.pop_back();
  EXPECT_THROW(encode_checkpoint(c), CheckpointError);
  c = sample();
  c.optimizer.first.clear();  // second without first
  EXPECT_THROW(encode_checkpoint(c), CheckpointError);
  c = sample();
  c.params.clear();  // state for params that are not there
  EXPECT_THROW(encode_checkpoint(c), CheckpointError);
  c = sample();
  c.width = 0;
  EXPECT_THROW(encode_checkpoint(c), CheckpointError);
  c = sample();
  c.params.clear();
  c.optimizer = {};
  c.key_begin = ~std::uint64_t{0};
  EXPECT_THROW(encode_checkpoint(c), CheckpointError);
}

TEST(ShardCheckpoint, EveryTruncationIsRejectedNamingTheField) {
  const std::vector<std::uint8_t> full = encode_checkpoint(sample());
  for (std::size_t n = 0; n < full.size(); ++n) {
    const std::vector<std::uint8_t> cut(full.begin(), full.begin() + n);
    const std::string what = decode_error(cut);
    EXPECT_NE(what, "") << "a checkpoint cut to " << n << " bytes decoded";
    contains(what, "truncated in ");
  }
  contains(decode_error({full.begin(), full.begin() + 30}), "truncated in key_count");
  contains(decode_error({full.begin(), full.begin() + kCheckpointHeaderBytes + 8}),
           "truncated in params");
  contains(decode_error({full.begin(), full.end() - 1}), "truncated in CRC-32");
  std::vector<std::uint8_t> longer = full;
  longer.push_back(0);
  contains(decode_error(longer), "trailing bytes");
}

TEST(ShardCheckpoint, AFlippedByteAnywhereIsDetected) {
  const std::vector<std::uint8_t> full = encode_checkpoint(sample());
  for (std::size_t i = 0; i < full.size(); ++i) {
    for (const std::uint8_t mask : {std::uint8_t{0x01}, std::uint8_t{0xff}}) {
      std::vector<std::uint8_t> bad = full;
      bad[i] ^= mask;
      EXPECT_NE(decode_error(bad), "") << "byte " << i << " xor " << int(mask) << " undetected";
    }
  }
  std::vector<std::uint8_t> bad = full;
  bad[0] = 'X';
  contains(decode_error(bad), "bad magic");
  bad = full;
  bad[8] = 2;
  contains(decode_error(bad), "unsupported format version 2");
  bad = full;
  bad[kCheckpointHeaderBytes] ^= 1;  // a params byte
  contains(decode_error(bad), "CRC mismatch");
}

TEST(ShardCheckpoint, AHugeSizeFieldIsRejectedBeforeAllocating) {
  // Counts near 2^62 floats, consistent with each other and the key range, with a valid CRC:
  // only the bytes actually present can refuse them, and they must do so before any allocation.
  ShardCheckpoint c;
  c.key_count = std::uint64_t{1} << 62;
  c.width = 1;
  std::vector<std::uint8_t> bytes = encode_checkpoint(c);
  for (const std::size_t at : {52, 60, 68}) byte_order::store_u64(bytes.data() + at, c.key_count);
  reseal(bytes);
  contains(decode_error(bytes), "truncated in params");

  // The largest count of all, which a multiplication by 4 would wrap to a small number.
  bytes = encode_checkpoint(c);
  c.key_count = ~std::uint64_t{0};
  byte_order::store_u64(bytes.data() + 24, c.key_count);
  byte_order::store_u64(bytes.data() + 52, c.key_count);
  reseal(bytes);
  contains(decode_error(bytes), "truncated in params");

  // Inconsistent counts are refused even earlier.
  bytes = encode_checkpoint(sample());
  byte_order::store_u64(bytes.data() + 60, std::uint64_t{1} << 61);
  reseal(bytes);
  contains(decode_error(bytes), "optimizer state 'first'");
}

TEST(ShardCheckpoint, WriteFileAtomicallyReplacesTheFileAndLeavesNoTemporaryFile) {
  const std::string dir = fresh_dir();
  const std::string path = dir + "/range-0.ckpt";
  const std::vector<std::uint8_t> first = encode_checkpoint(sample(0));
  const std::vector<std::uint8_t> second = encode_checkpoint(sample(1));
  write_file_atomically(path, first);
  EXPECT_EQ(read_file(path), first);
  write_file_atomically(path, second);
  EXPECT_EQ(read_file(path), second);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"range-0.ckpt"});

  // Errors name the path and the reason; a failed write leaves nothing behind either.
  try {
    write_file_atomically(dir + "/no-such-folder/x.ckpt", first);
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& e) {
    contains(e.what(), "no-such-folder/x.ckpt");
    contains(e.what(), "No such file or directory");
  }
  try {
    read_file(dir + "/absent.ckpt");
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& e) {
    contains(e.what(), "absent.ckpt");
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

/// Writes every range of a 3-range checkpoint at `clock`, and its COMPLETE marker if `complete`.
void write_all(const std::string& dir, std::int64_t clock, bool complete) {
  for (std::uint32_t r = 0; r < 3; ++r) write_checkpoint(dir, sample(r, clock));
  if (complete) mark_complete(dir, clock, 3, 1.5 * clock, "abc123");
}

TEST(CheckpointDir, LayoutAndCompleteMarker) {
  const std::string dir = fresh_dir();
  EXPECT_EQ(checkpoint_file(dir, 20, 3), dir + "/clock-20/range-3.ckpt");
  EXPECT_EQ(complete_marker(dir, 20), dir + "/clock-20/COMPLETE");
  EXPECT_THROW(checkpoint_file(dir, -1, 0), std::invalid_argument);
  write_all(dir, 20, true);
  const std::vector<std::uint8_t> marker = read_file(complete_marker(dir, 20));
  const auto j = nlohmann::json::parse(marker.begin(), marker.end());
  EXPECT_EQ(j.at("clock"), 20);
  EXPECT_EQ(j.at("ranges"), 3);
  EXPECT_DOUBLE_EQ(j.at("time_s").get<double>(), 30.0);
  EXPECT_EQ(j.at("params_sha256"), "abc123");
  mark_complete(dir, 21, 1, 0.0);
  const std::vector<std::uint8_t> bare = read_file(complete_marker(dir, 21));
  EXPECT_FALSE(nlohmann::json::parse(bare.begin(), bare.end()).contains("params_sha256"));
}

TEST(CheckpointDir, CompleteMarkerContentIsCheckedInMemory) {
  auto ranges = [](const std::string& text, std::int64_t clock) {
    return parse_complete_marker(reinterpret_cast<const std::uint8_t*>(text.data()), text.size(),
                                 "DIR/COMPLETE", clock);
  };
  EXPECT_EQ(ranges(R"({"clock": 7, "ranges": 3, "time_s": 1.5})", 7), 3u);
  for (const std::string bad : {"", "[]", R"({"clock": 8, "ranges": 3})", R"({"clock": 7, "ranges": 0})",
                                R"({"clock": 7, "ranges": -1})", R"({"clock": 7, "ranges": 4294967296})",
                                R"({"clock": 7.5, "ranges": 1})", R"({"clock": 7})"}) {
    try {
      ranges(bad, 7);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const CheckpointError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("DIR/COMPLETE: ", 0), 0u) << e.what();
    }
  }
}

TEST(CheckpointDir, LatestCompleteSkipsIncompleteAndCorruptCheckpoints) {
  const std::string dir = fresh_dir();
  EXPECT_EQ(latest_complete(dir + "/absent"), std::nullopt);
  EXPECT_EQ(latest_complete(dir), std::nullopt);
  write_all(dir, 10, true);
  write_all(dir, 20, true);
  write_all(dir, 30, true);   // corrupted below
  write_all(dir, 40, false);  // no COMPLETE: the job died mid-checkpoint
  fs::create_directories(dir + "/clock-x");  // not a checkpoint: ignored
  std::vector<std::uint8_t> bytes = read_file(checkpoint_file(dir, 30, 1));
  bytes[kCheckpointHeaderBytes + 3] ^= 0x40;
  write_file_atomically(checkpoint_file(dir, 30, 1), bytes);

  std::vector<std::string> skipped;
  EXPECT_EQ(latest_complete(dir, &skipped), 20);
  ASSERT_EQ(skipped.size(), 2u);
  contains(skipped[0], "clock-40");
  contains(skipped[0], "not complete");
  contains(skipped[1], "clock-30/range-1.ckpt");
  contains(skipped[1], "CRC mismatch");
  EXPECT_EQ(latest_complete(dir), 20);  // no out-param is fine too
}

TEST(CheckpointDir, LoadCheckpointReturnsTheRangesInOrderAndRejectsGaps) {
  const std::string dir = fresh_dir();
  write_all(dir, 5, true);
  const std::vector<ShardCheckpoint> all = load_checkpoint(dir, 5);
  ASSERT_EQ(all.size(), 3u);
  for (std::uint32_t r = 0; r < 3; ++r) expect_same(all[r], sample(r, 5));

  // A missing range.
  fs::remove(checkpoint_file(dir, 5, 2));
  try {
    load_checkpoint(dir, 5);
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& e) {
    contains(e.what(), "range-2.ckpt");
    contains(e.what(), "missing");
  }
  // Ranges that leave a gap in the keys.
  ShardCheckpoint gap = sample(2, 5);
  gap.key_begin += 1;
  write_checkpoint(dir, gap);
  try {
    load_checkpoint(dir, 5);
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& e) {
    contains(e.what(), "contiguous");
  }
  // A file whose content belongs to another range.
  write_file_atomically(checkpoint_file(dir, 5, 2), encode_checkpoint(sample(1, 5)));
  EXPECT_THROW(load_checkpoint(dir, 5), CheckpointError);
  // No marker, or a malformed one.
  EXPECT_THROW(load_checkpoint(dir, 6), CheckpointError);
  write_file_atomically(complete_marker(dir, 5), {'{', 'x'});
  EXPECT_THROW(load_checkpoint(dir, 5), CheckpointError);
}

}  // namespace
}  // namespace pstwin
