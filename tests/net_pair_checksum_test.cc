// Which pairs of nodes send each other frames without a checksum (net/pair_checksum.h): nodes of
// one machine, over ZeroMQ and UCX alike; every other pair, and any pair the address book cannot
// place, keeps it. Both ends must always decide alike.
#include "net/pair_checksum.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace pstwin::net {
namespace {

TEST(PairChecksum, NodesOfOneMachineSkipIt) {
  EXPECT_EQ(pair_frame_checksum("tcp://127.0.0.1:5000", "tcp://127.0.0.1:5001"), FrameChecksum::kSkip);
  EXPECT_EQ(pair_frame_checksum("tcp://127.0.0.1:5000#ucx=ab01", "tcp://127.0.0.1:5001#ucx=cd"),
            FrameChecksum::kSkip)
      << "a UCX entry";
  EXPECT_EQ(pair_frame_checksum("tcp://127.0.0.1:5000", "tcp://localhost:5001"), FrameChecksum::kSkip)
      << "both loopback";
  EXPECT_EQ(pair_frame_checksum("tcp://[::1]:1", "tcp://127.0.0.1:2"), FrameChecksum::kSkip) << "both loopback";
  EXPECT_EQ(pair_frame_checksum("tcp://10.0.0.5:1", "tcp://10.0.0.5:2"), FrameChecksum::kSkip) << "one address";
  EXPECT_EQ(pair_frame_checksum("tcp://hostA:1", "tcp://hostA:2"), FrameChecksum::kSkip) << "one host name";
}

TEST(PairChecksum, AnyOtherPairKeepsItWhicheverEndAsks) {
  for (const auto& [a, b] : std::vector<std::pair<std::string, std::string>>{
           {"tcp://10.0.0.5:1#ucx=ab", "tcp://10.0.0.6:1#ucx=cd"},  // two machines
           {"tcp://10.0.0.5:1", "tcp://127.0.0.1:1"},               // one loopback, one not
           {"tcp://hostA:1", "tcp://hostB:1"},
           {"tcp://hostA:1", "tcp://127.0.0.1:1"},  // a name: maybe this machine, maybe not
           // A scheduler bound to every interface (launch --hostfile) names no machine.
           {"tcp://*:1", "tcp://*:2"},
           {"tcp://0.0.0.0:1", "tcp://0.0.0.0:2"},
           {"tcp://[::]:1", "tcp://[::1]:2"},
           {"tcp://[::]:1", "tcp://[::]:2"},
           {"not an address", "tcp://127.0.0.1:1"},
           {"", "tcp://127.0.0.1:1"}}) {  // a server yet to join
    EXPECT_EQ(pair_frame_checksum(a, b), FrameChecksum::kVerify) << a << " and " << b;
    EXPECT_EQ(pair_frame_checksum(b, a), FrameChecksum::kVerify) << b << " and " << a;
  }
}

}  // namespace
}  // namespace pstwin::net
