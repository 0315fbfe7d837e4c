// "simulation": {"nic_send_window": K}: each NIC sends K transfers at a time, first in, first out,
// while receiving stays the exact model's. Checked against hand-computed per-iteration times on
// the smallest platform where order matters: one server answering two workers.
#include <gtest/gtest.h>

#include <tuple>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

/// Seconds per clock from the evaluation at clock 10: the steady state, past the start where
/// both workers pull at once.
double steady_per_iteration_s(const std::string& variant_dir) { return per_iteration_s(variant_dir, 10); }

// One message: 15,000 values, 60 kB, under one part of a NIC's queue (kNicPartBytes, 64 KiB), at
// 100 Mbit/s (12.5 MB/s): t = 4.8 ms on either link. A gradient: 1e10 flop at 10 Tflop/s:
// c = 1 ms. CM02 without cross-traffic, 1 us links: nothing but the bytes and the order in which
// a NIC sends them.
constexpr double kValues = 15000;
constexpr double kMessage_s = 4 * kValues / 12.5e6;
constexpr double kCompute_s = 1e-3;
constexpr double kTolerance = 0.01;  // the frames' headers, 2 us of latency, the server's apply

nlohmann::json one_server_two_workers(const std::string& mode, double values = kValues) {
  auto s = synthetic_scenario(values, 1e10);
  s["cluster"]["workers"] = 2;
  s["cluster"]["servers"] = 1;
  for (const char* group : {"worker", "server"}) s["cluster"][group]["link"] = {{"bandwidth", "100Mbps"}, {"latency", "1us"}};
  s["training"]["iterations"] = 40;
  s["training"]["eval_every"] = 10;
  s["consistency"] = nlohmann::json::array({{{"mode", mode}}});
  s["simulation"]["cfg"] = {"network/model:CM02", "network/crosstraffic:0"};
  return s;
}

// ASP. Exact: the server's two replies share its uplink and both land at 2t; both workers compute
// and push together (2t on its downlink), so a cycle is 2t + c + 2t. First in, first out: the
// replies land t apart and each worker's push and reply fit between the other's, so neither
// link is ever shared: a cycle is t + c + t.
TEST(NicSendWindow, AspAlternatesTheWorkersInsteadOfSharingTheServersLinks) {
  const auto s = one_server_two_workers("asp");
  const double exact = steady_per_iteration_s(simulate(fresh_dir("-exact"), s) + "/asp");
  EXPECT_NEAR(exact, 4 * kMessage_s + kCompute_s, kTolerance * exact);
  auto fifo = s;
  fifo["simulation"]["nic_send_window"] = 1;
  const double sent_in_order = steady_per_iteration_s(simulate(fresh_dir("-fifo"), fifo) + "/asp");
  EXPECT_NEAR(sent_in_order, 2 * kMessage_s + kCompute_s, kTolerance * sent_in_order);
}

// BSP. Exact, as above: 2t + c + 2t. First in, first out: the first worker has its parameters
// at t and pushes while the second's are still on the way (t + c .. 2t + c); the second pushes
// from 2t + c and the barrier passes at 3t + c. The receiving side is unchanged: with
// nic_window 1 the pushes would be the same here, as each server receives one at a time anyway.
TEST(NicSendWindow, BspOverlapsTheFirstWorkersPushWithTheSecondsParameters) {
  auto s = one_server_two_workers("bsp");
  s["simulation"]["nic_send_window"] = 1;
  const double sent_in_order = steady_per_iteration_s(simulate(fresh_dir(), s) + "/bsp");
  EXPECT_NEAR(sent_in_order, 3 * kMessage_s + kCompute_s, kTolerance * sent_in_order);
}

// A slot frees when its message's last byte has left the sender's link, not when it has arrived
// (sim/serialising_slots.h): with 5 ms links (a route of l = 10 ms), the server's second reply
// leaves at t, while the first is still propagating, and lands at 2t + l. The round is then the
// BSP round above plus the latency out and back: 3t + c + 2l (holding the slot until the first
// reply arrived made it 3t + c + 3l). The exact model pays 2l on top of its 4t + c too.
TEST(NicSendWindow, TheNextMessageLeavesWhileTheLastOneIsStillPropagating) {
  constexpr double kRoute_s = 2 * 5e-3;
  auto s = one_server_two_workers("bsp");
  for (const char* group : {"worker", "server"}) s["cluster"][group]["link"]["latency"] = "5ms";
  const double exact = steady_per_iteration_s(simulate(fresh_dir("-exact"), s) + "/bsp");
  EXPECT_NEAR(exact, 4 * kMessage_s + kCompute_s + 2 * kRoute_s, kTolerance * exact);
  s["simulation"]["nic_send_window"] = 1;
  const double sent_in_order = steady_per_iteration_s(simulate(fresh_dir("-fifo"), s) + "/bsp");
  EXPECT_NEAR(sent_in_order, 3 * kMessage_s + kCompute_s + 2 * kRoute_s, kTolerance * sent_in_order);
}

// A message longer than a part (kNicPartBytes) enters the NIC's queue a part at a time, as TCP
// hands a connection's data to the qdisc in packets of at most 64 KiB and TCP Small Queues holds
// the rest back until they have left: two such replies leave part by part, in turn, and share
// the server's uplink as two TCP connections do. BSP with 4 MB messages (1M values, T = 320 ms
// each at 100 Mbit/s): both replies land at 2T, both workers push at once (2T on the server's
// downlink): 4T + c, the exact model's round, where whole messages first in, first out gave
// 3T + c (the test above).
TEST(NicSendWindow, RepliesLongerThanAPartShareTheLinkAsTwoConnectionsDo) {
  constexpr double kLong_s = 4e6 / 12.5e6;
  auto s = one_server_two_workers("bsp", 1e6);
  s["training"]["iterations"] = 20;
  s["simulation"]["nic_send_window"] = 1;
  const double in_parts = steady_per_iteration_s(simulate(fresh_dir(), s) + "/bsp");
  EXPECT_NEAR(in_parts, 4 * kLong_s + kCompute_s, kTolerance * in_parts);
}

// "nic_send_part" sets the part: with parts of 30,100 bytes, just over half of a 60 kB reply (so
// a part and a rest), the two replies of the BSP test above leave in turn, half of t at a time
// (A, B, A, B): the first lands at 3t/2 and the second at 2t. The first worker pushes from
// 3t/2 + c; the server's downlink is then busy with both pushes (2t) without a gap, so the
// barrier passes at 3t/2 + c + 2t = 7t/2 + c, between whole messages' 3t + c and the exact
// model's 4t + c.
TEST(NicSendWindow, RepliesInSmallerPartsInterleaveAsTheScenarioSays) {
  auto s = one_server_two_workers("bsp");
  s["simulation"]["nic_send_window"] = 1;
  s["simulation"]["nic_send_part"] = 30100;
  const double in_halves = steady_per_iteration_s(simulate(fresh_dir(), s) + "/bsp");
  EXPECT_NEAR(in_halves, 7 * kMessage_s / 2 + kCompute_s, kTolerance * in_halves);
}

TEST(NicSendWindow, RefusedWithNicWindowFaultToleranceOrOutsideAStar) {
  const std::string dir = fresh_dir();
  // validate must exit 2 naming the field and why; without SimGrid options, which it would try.
  const auto expect_refused = [&](nlohmann::json s, const std::string& flags, const std::string& why) {
    s["simulation"].erase("cfg");
    write_json(dir + "/s.json", s);
    const auto r = run_pstwin("validate " + dir + "/s.json " + flags);
    EXPECT_EQ(r.exit_code, 2) << why << "\n" << r.output;
    EXPECT_NE(r.output.find("/simulation/nic_send_window" + why), std::string::npos) << r.output;
  };
  auto s = one_server_two_workers("bsp");
  s["simulation"]["nic_send_window"] = 1;
  auto both = s;
  both["simulation"]["nic_window"] = 1;
  expect_refused(both, "", ": cannot be given with nic_window");
  auto ft = with_fault_tolerance(s, 1, "50ms", "1s");
  ft.erase("failures");
  expect_refused(ft, "", ": does not apply to a job with fault tolerance");
  expect_refused(s, "--set /cluster/server_placement=colocated", ": applies only to a star of separate machines");
  for (const int value : {0, 1025}) {
    s["simulation"]["nic_send_window"] = value;
    expect_refused(s, "", "");
  }
  // A part below a frame or past 64 MiB, or without the window it belongs to.
  s["simulation"].erase("cfg");
  for (const auto& [window, part, why] : {std::tuple{1, 1499, ""}, std::tuple{1, 1 << 27, ""},
                                          std::tuple{0, 20000, ": applies only with nic_send_window"}}) {
    s["simulation"] = {{"nic_send_part", part}};
    if (window > 0) s["simulation"]["nic_send_window"] = window;
    write_json(dir + "/s.json", s);
    const auto r = run_pstwin("validate " + dir + "/s.json");
    EXPECT_EQ(r.exit_code, 2) << part << "\n" << r.output;
    EXPECT_NE(r.output.find(std::string("/simulation/nic_send_part") + why), std::string::npos) << r.output;
  }
}

}  // namespace
}  // namespace pstwin
