// Membership: the starting replica placement and the kMembership message, including bad ones.
#include "runtime/roles/membership.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "runtime/errors.h"

namespace pstwin {
namespace {

TEST(Membership, InitialPlacementPutsEachRangeOnConsecutiveServers) {
  // 3 ranges on servers with node ids 1..3, replication 2: r on r and r+1 (mod 3).
  const Membership m = initial_membership(3, 3, 4, 2, 1);
  ASSERT_EQ(m.replicas.size(), 3u);
  EXPECT_EQ(m.replicas[0], (std::vector<NodeId>{1, 2}));
  EXPECT_EQ(m.replicas[1], (std::vector<NodeId>{2, 3}));
  EXPECT_EQ(m.replicas[2], (std::vector<NodeId>{3, 1}));
  EXPECT_EQ(m.primary(2), 3u);
  EXPECT_TRUE(m.holds(1, 2));
  EXPECT_FALSE(m.holds(2, 2));
  EXPECT_EQ(m.dead_workers, std::vector<bool>(4, false));
  EXPECT_THROW(initial_membership(3, 3, 4, 4, 1), std::invalid_argument);
  EXPECT_THROW(initial_membership(3, 3, 4, 0, 1), std::invalid_argument);
}

TEST(Membership, MessageRoundTrip) {
  Membership m = initial_membership(2, 3, 3, 2, 1);
  m.epoch = 5;
  m.replicas[0] = {3, 2};
  m.dead_workers[1] = true;
  const Membership back = Membership::from_message(m.to_message(), 2, 3, 1, 3);
  EXPECT_EQ(back.epoch, 5u);
  EXPECT_EQ(back.replicas, m.replicas);
  EXPECT_EQ(back.dead_workers, m.dead_workers);
}

TEST(Membership, BadMessagesAreProtocolErrorsThatSayWhy) {
  const Membership good = initial_membership(2, 3, 3, 2, 1);
  auto error_of = [](const Message& msg) {
    try {
      Membership::from_message(msg, 2, 3, 1, 3);
    } catch (const ProtocolError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  Message m = good.to_message();
  m.data = "{not json";
  EXPECT_NE(error_of(m).find("membership from node"), std::string::npos);
  m = good.to_message();
  m.header.epoch = 9;
  EXPECT_NE(error_of(m).find("epoch"), std::string::npos);
  Membership bad = good;
  bad.replicas.pop_back();
  EXPECT_NE(error_of(bad.to_message()).find("lists 1 key ranges"), std::string::npos);
  bad = good;
  bad.replicas[1] = {};
  EXPECT_NE(error_of(bad.to_message()).find("no replica"), std::string::npos);
  bad = good;
  bad.replicas[0] = {1, 7};
  EXPECT_NE(error_of(bad.to_message()).find("not a server"), std::string::npos);
  bad = good;
  bad.replicas[0] = {2, 2};
  EXPECT_NE(error_of(bad.to_message()).find("twice"), std::string::npos);
  bad = good;
  bad.dead_workers.push_back(true);  // worker 3 of 3
  EXPECT_NE(error_of(bad.to_message()).find("dead worker 3"), std::string::npos);
}

// Found by fuzz/membership_fuzz.cc: numbers were converted with nlohmann's get<uint32_t>(), so a
// huge float was undefined behaviour, -1 became worker 4294967295 and 1.5 became epoch 1. Every
// number is now an integer in its stored type's range, or the message is refused naming it.
TEST(Membership, NumbersOutsideTheirTypeAreRefusedByName) {
  auto error_of = [](const std::string& body, std::uint32_t header_epoch) {
    Message m;
    m.header.type = MsgType::kMembership;
    m.header.epoch = header_epoch;
    m.data = body;
    try {
      Membership::from_message(m, 1, 2, 1, 1);
    } catch (const ProtocolError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of(R"({"epoch":1,"replicas":[[1]],"dead_workers":[1]})", 1), "no error");
  EXPECT_NE(error_of(R"({"epoch":1,"replicas":[[1222222222222222222222222]],"dead_workers":[]})", 1)
                .find("\"replicas/0/0\" must be an integer in [0, 4294967295], got 1.2222"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"epoch":1,"replicas":[[1]],"dead_workers":[-1]})", 1)
                .find("\"dead_workers/0\" must be an integer in [0, 4294967295], got -1"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"epoch":1.5,"replicas":[[1]],"dead_workers":[]})", 1)
                .find("\"epoch\" must be an integer"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"epoch":4294967297,"replicas":[[1]],"dead_workers":[]})", 1)
                .find("\"epoch\" must be an integer in [0, 4294967295], got 4294967297"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"epoch":1,"replicas":[1],"dead_workers":[]})", 1).find("\"replicas/0\" must be an array"),
            std::string::npos);
  EXPECT_NE(error_of(R"([1,2])", 1).find("must be a JSON object"), std::string::npos);
  // Copying a value recurses per level: a body nested without bound is refused before that.
  const std::string deep = R"({"epoch":1,"replicas":[[1]],"dead_workers":[],"x":)" + std::string(100000, '[') +
                           std::string(100000, ']') + "}";
  EXPECT_NE(error_of(deep, 1).find("body nested more than 128 levels deep"), std::string::npos);
}

}  // namespace
}  // namespace pstwin
