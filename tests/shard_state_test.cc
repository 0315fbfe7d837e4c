// shard_state: the kShardState codec and a range's kStart (fresh and resuming), each read back
// to the values written, against the wire layout spelled out by hand.
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/errors.h"
#include "runtime/model/model.h"
#include "runtime/roles/shard_state.h"
#include "runtime/scenario/scenario.h"

namespace pstwin {
namespace {

ShardState example_state() {
  ShardState s;
  s.clock = 6;
  s.params = {1, 2, 3};
  s.optimizer.first = {4, 5, 6};
  s.optimizer.steps = 7;
  s.consistency.pushes = {3, 2};
  s.consistency.live = {true, false};
  s.consistency.applied_clock = 2;
  s.consistency.arrived_for_clock = 1;
  s.last_request = {9, 4};
  s.buffered.push_back({1, 2, {0.5f, 0.25f}, {0, 2}});
  return s;
}

TEST(ShardState, TheMessageLaysOutValuesThenCountsAndReadsBackTheSameState) {
  const Message m = shard_state_message(3, 11, example_state());
  EXPECT_EQ(m.header.type, MsgType::kShardState);
  EXPECT_EQ(m.header.range, 3u);
  EXPECT_EQ(m.header.seq, 11u);
  EXPECT_EQ(m.header.clock, 6);
  EXPECT_EQ(m.values, (std::vector<float>{1, 2, 3, 4, 5, 6, 0.5f, 0.25f}));
  EXPECT_EQ(nlohmann::json::parse(m.data),
            nlohmann::json::parse(R"({"params":3,"opt_first":3,"opt_second":0,"opt_steps":7,
              "pushes":[3,2],"live":[1,0],"applied_clock":2,"arrived_for_clock":1,
              "last_request":[9,4],
              "buffers":[{"worker":1,"version":2,"values":2,"rows":[0,2]}]})"));

  const ShardState back = read_shard_state(m);
  EXPECT_EQ(back.clock, 6);
  EXPECT_EQ(back.params, (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(back.optimizer.first, (std::vector<float>{4, 5, 6}));
  EXPECT_TRUE(back.optimizer.second.empty());
  EXPECT_EQ(back.optimizer.steps, 7u);
  EXPECT_EQ(back.consistency.pushes, (std::vector<std::int64_t>{3, 2}));
  EXPECT_EQ(back.consistency.live, (std::vector<bool>{true, false}));
  EXPECT_EQ(back.consistency.applied_clock, 2);
  EXPECT_EQ(back.consistency.arrived_for_clock, 1u);
  EXPECT_EQ(back.last_request, (std::vector<std::uint64_t>{9, 4}));
  ASSERT_EQ(back.buffered.size(), 1u);
  EXPECT_EQ(back.buffered[0].worker, 1u);
  EXPECT_EQ(back.buffered[0].version, 2);
  EXPECT_EQ(back.buffered[0].values, (std::vector<float>{0.5f, 0.25f}));
  EXPECT_EQ(back.buffered[0].rows, (std::vector<std::uint32_t>{0, 2}));
}

TEST(ShardState, AMessageWhoseValuesDoNotFitItsLayoutIsAProtocolErrorNamingTheSender) {
  Message m = shard_state_message(3, 11, example_state());
  m.header.sender = 2;
  m.values.pop_back();
  try {
    (void)read_shard_state(m);
    FAIL() << "a short state was read";
  } catch (const ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("from node 2 for key range 3"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("carries 7 values, its layout needs 8"), std::string::npos)
        << e.what();
  }
  m = shard_state_message(3, 11, example_state());
  m.data = R"({"params":3})";
  EXPECT_THROW(read_shard_state(m), ProtocolError);
}

// The layout's counts come off the wire: their sum once wrapped around 2^64 to match the values
// carried, and the copy then read past them. Each count is now bounded by what the message carries.
TEST(ShardState, LayoutCountsThatWouldWrapTheirSumAreRefused) {
  Message m = shard_state_message(3, 11, example_state());
  auto j = nlohmann::json::parse(m.data);
  j["params"] = std::numeric_limits<std::uint64_t>::max() - 2;  // + 3 + 2 + 2 + 2 wraps to 8 - 1
  m.data = j.dump();
  try {
    (void)read_shard_state(m);
    FAIL() << "a wrapping layout was read";
  } catch (const ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("\"params\" is 18446744073709551613, the message carries 8 values"),
              std::string::npos)
        << e.what();
  }
  j = nlohmann::json::parse(shard_state_message(3, 11, example_state()).data);
  j["applied_clock"] = 0.5;
  m.data = j.dump();
  EXPECT_THROW(read_shard_state(m), ProtocolError);
}

/// A logistic model of 4 parameters over 2 servers: range 1 is keys [2, 4).
struct StartJob {
  StartJob() {
    ModelSection section;
    section.type = "logistic";
    model = make_model(section, 3, 2);
    spec.layout = JobLayout{2, 1};
    spec.model = model.get();
  }
  std::unique_ptr<Model> model;
  JobSpec spec;
  const KeyRange keys{2, 4};
};

TEST(RangeStart, AFreshStartCarriesTheRangesSliceOfTheInitialValues) {
  StartJob job;
  Message m = range_start_message(job.spec, 1, job.keys, {10, 11, 12, 13});
  EXPECT_EQ(m.header.type, MsgType::kStart);
  EXPECT_EQ(m.header.range, 1u);
  EXPECT_EQ(m.keys, (std::vector<Key>{2}));
  EXPECT_EQ(m.lengths, (std::vector<std::uint32_t>{2}));
  EXPECT_EQ(m.values, (std::vector<float>{12, 13}));
  EXPECT_TRUE(m.data.empty());
  const RangeStart start = read_range_start(m, job.keys, 2);
  EXPECT_EQ(start.params, (std::vector<float>{12, 13}));
  EXPECT_FALSE(start.resume);
}

TEST(RangeStart, AResumingStartCarriesTheCheckpointAndReadsBackTheSame) {
  StartJob job;
  ResumePoint rp;
  rp.clock = 5;
  rp.params = {{1, 2}, {3, 4}};
  rp.optimizer_first = {{0, 0}, {7, 8}};
  rp.optimizer_second = {{0, 0}, {}};
  rp.optimizer_steps = {0, 9};
  job.spec.resume = rp;
  const Message m = range_start_message(job.spec, 1, job.keys, {});
  EXPECT_EQ(m.values, (std::vector<float>{3, 4, 7, 8}));
  EXPECT_EQ(m.data, R"({"clock":5,"opt_first":2,"opt_second":0,"opt_steps":9})");
  const RangeStart start = read_range_start(m, job.keys, 2);
  EXPECT_EQ(start.params, (std::vector<float>{3, 4}));
  ASSERT_TRUE(start.resume);
  EXPECT_EQ(start.resume->clock, 5);
  EXPECT_EQ(start.resume->optimizer.first, (std::vector<float>{7, 8}));
  EXPECT_TRUE(start.resume->optimizer.second.empty());
  EXPECT_EQ(start.resume->optimizer.steps, 9u);
}

TEST(RangeStart, TheSyntheticModelsStartHasVirtualValuesAndNoParameters) {
  JobSpec spec;
  spec.layout = JobLayout{2, 1};
  spec.synthetic = SyntheticModel{4, 0.0, 0.0};
  const Message m = range_start_message(spec, 1, KeyRange{2, 4}, {});
  EXPECT_TRUE(m.values.empty());
  EXPECT_EQ(m.virtual_values, 2u);
  EXPECT_EQ(range_floats(spec, KeyRange{2, 4}), 0u);
  EXPECT_TRUE(read_range_start(m, KeyRange{2, 4}, 0).params.empty());
}

TEST(RangeStart, AMalformedStartIsAProtocolError) {
  StartJob job;
  const Message good = range_start_message(job.spec, 1, job.keys, {10, 11, 12, 13});
  Message other_keys = good;
  other_keys.keys = {0};
  EXPECT_THROW(read_range_start(other_keys, job.keys, 2), ProtocolError);
  Message short_values = good;
  short_values.values.pop_back();
  EXPECT_THROW(read_range_start(short_values, job.keys, 2), ProtocolError);
  Message resume = good;  // 2 values where the resume says 2 + 2 + 0
  resume.data = R"({"clock":5,"opt_first":2,"opt_second":0,"opt_steps":9})";
  try {
    (void)read_range_start(resume, job.keys, 2);
    FAIL() << "a resume start without its optimizer values was read";
  } catch (const ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("resume start carries 2 values, expected 2 parameters"),
              std::string::npos) << e.what();
  }
  resume.data = R"({"clock":5})";
  EXPECT_THROW(read_range_start(resume, job.keys, 2), ProtocolError);
}

TEST(ShardState, TheStalenessCountsSinceTheLastSnapshotTravelWithTheState) {
  ShardState s = example_state();
  s.staleness_counts = {5, 0, 2};  // five gradients of staleness 0, two of staleness 2
  const Message m = shard_state_message(3, 11, s);
  EXPECT_EQ(nlohmann::json::parse(m.data).at("staleness"), nlohmann::json::parse("[5,0,2]"));
  EXPECT_EQ(read_shard_state(m).staleness_counts, (std::vector<std::uint32_t>{5, 0, 2}));
  // None to hand over: the message is as before, without the key.
  EXPECT_FALSE(nlohmann::json::parse(shard_state_message(3, 11, example_state()).data).contains("staleness"));
}

}  // namespace
}  // namespace pstwin
