// The scenario check that a job's largest message fits the wire's 1 GiB limit: sizes as the codec
// counts them, the pointer, and the fix it names. Sizes only: no message is built.
#include "runtime/wire_limit_check.h"

#include <gtest/gtest.h>

#include "runtime/errors.h"

namespace pstwin {
namespace {

Scenario synthetic(std::uint64_t parameters, std::uint32_t servers) {
  Scenario s;
  s.model.type = "synthetic";
  s.model.parameters = parameters;
  s.cluster.workers = 4;
  s.cluster.servers = servers;
  return s;
}

// The ScenarioError check_messages_fit_the_wire throws, or one with an empty pointer.
ScenarioError refusal(const Scenario& s, std::uint64_t keys, std::size_t values_per_key = 1, bool sparse = false) {
  try {
    check_messages_fit_the_wire(s, keys, values_per_key, sparse);
  } catch (const ScenarioError& e) {
    return e;
  }
  return ScenarioError("", "nothing refused");
}

TEST(WireLimitCheck, A280MillionParameterModelOnOneServerNeedsTwo) {
  const Scenario s = synthetic(280'000'000, 1);
  // 112-byte header, the range's first key, 4 bytes a value, a 4-byte checksum.
  EXPECT_EQ(largest_message(s, 280'000'000, 1, false).bytes, 1'120'000'124u);
  const ScenarioError e = refusal(s, 280'000'000);
  EXPECT_EQ(e.pointer(), "/cluster/servers");
  EXPECT_NE(std::string(e.what()).find("a push or pull reply of one key range (280000000 keys x 1 float32) would be "
                                       "1120000124 bytes, over the wire's limit of 1073741824 bytes per message; "
                                       "use at least 2 servers"),
            std::string::npos)
      << e.what();
  EXPECT_NO_THROW(check_messages_fit_the_wire(synthetic(280'000'000, 2), 280'000'000, 1, false));
}

TEST(WireLimitCheck, ASixteenGibKeyRangeNamesTheFewestServersThatFit) {
  const std::uint64_t keys = 0xffffffffULL;  // the most keys one server may hold
  EXPECT_EQ(largest_message(synthetic(keys, 1), keys, 1, false).bytes, 17'179'869'304u);
  EXPECT_NE(std::string(refusal(synthetic(keys, 1), keys).what()).find("use at least 17 servers"), std::string::npos);
  EXPECT_NO_THROW(check_messages_fit_the_wire(synthetic(keys, 17), keys, 1, false));
}

TEST(WireLimitCheck, AMessageOfExactlyTheLimitFitsAndOneKeyMoreDoesNot) {
  const std::uint64_t most = ((std::uint64_t{1} << 30) - 124) / 4;  // 268435425 keys: 1 GiB exactly
  EXPECT_EQ(largest_message(synthetic(most, 1), most, 1, false).bytes, std::uint64_t{1} << 30);
  EXPECT_NO_THROW(check_messages_fit_the_wire(synthetic(most, 1), most, 1, false));
  EXPECT_EQ(refusal(synthetic(most + 1, 1), most + 1).pointer(), "/cluster/servers");
}

TEST(WireLimitCheck, ASparseModelsPullCarriesItsKeys) {
  Scenario s = synthetic(0, 1);
  s.model.type = "mf";
  // 1000 keys of 8 values: 8 bytes a key in its list, 32 a row.
  EXPECT_EQ(largest_message(s, 1000, 8, true).bytes, 116u + 8'000 + 32'000);
}

TEST(WireLimitCheck, AReplicatedRangeCopiesItsOptimizerStateAndBufferedGradients) {
  Scenario s = synthetic(0, 2);
  s.model.type = "logistic";
  s.training.optimizer = "adam";
  s.fault_tolerance.replication = 2;
  // 500 keys a range: params, Adam's m and v, and 3 of 4 workers' gradients; JSON room 256 + 4 x 128.
  const LargestMessage m = largest_message(s, 1000, 1, false);
  EXPECT_EQ(m.bytes, 116u + 4 * 500 * 6 + 256 + 512);
  EXPECT_NE(m.what.find("kShardState"), std::string::npos) << m.what;
  s.fault_tolerance.replication = 1;
  EXPECT_EQ(largest_message(s, 1000, 1, false).bytes, 116u + 8 + 4 * 500);
  s.fault_tolerance.checkpoint_every_clocks = 10;  // a resuming kStart carries Adam's state too
  EXPECT_EQ(largest_message(s, 1000, 1, false).bytes, 116u + 8 + 4 * 500 * 3 + 256);
}

TEST(WireLimitCheck, ABlockPartitionNamesTheMostKeysPerBlockThatFit) {
  Scenario s = synthetic(1'000'000'000, 4);
  s.partition.scheme = PartitionScheme::kConsistentHash;
  s.partition.block_keys = 300'000'000;
  const ScenarioError e = refusal(s, 1'000'000'000);
  EXPECT_EQ(e.pointer(), "/partition/block_keys");
  EXPECT_NE(std::string(e.what()).find("use at most 268435425 keys per block"), std::string::npos) << e.what();
}

}  // namespace
}  // namespace pstwin
