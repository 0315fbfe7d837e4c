// "simulation.nic_send_window": each receiver is its own TCP connection. A message that waits
// behind its own connection's earlier one (in order delivery, sim/nic_window.h) must not hold back
// the messages queued behind it for other receivers, as each socket keeps its own send buffer and
// only the NIC's queue is shared. Checked against a schedule computed by hand on three hosts.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include <simgrid/s4u.hpp>
#include <xbt/log.h>

#include "sim/nic_window.h"

namespace pstwin {
namespace {

namespace sg4 = simgrid::s4u;

// 1 MB/s links (a byte per microsecond: 10 kB take 10 ms), 1 us of latency each, CM02 (no
// bandwidth or latency factors) without cross-traffic: the times are the bytes and the order.
constexpr double kRate_Bps = 1e6;
constexpr double kLatency_s = 1e-6;
constexpr std::uint64_t kPart = 10000;
// Two links between the sender and a receiver, and a slot that waits for arrival now and then:
// a few latencies on any time below.
constexpr double kTolerance_s = 20e-6;

// Node 0 sends, one after another with no time between: A, 25 kB to node 1 (parts of 10, 10 and
// 5 kB), B, 1 kB to node 1, and C, 5 kB to node 2; one slot (nic_send_window 1). Returns each
// message's arrival time (simulated s) by its request_id.
std::map<std::uint64_t, double> arrivals() {
  int argc = 3;
  std::string a0 = "test", a1 = "--cfg=network/model:CM02", a2 = "--cfg=network/crosstraffic:0";
  std::vector<char*> argv = {a0.data(), a1.data(), a2.data(), nullptr};
  sg4::Engine engine(&argc, argv.data());
  xbt_log_control_set("root.thresh:critical");
  auto* zone = sg4::create_star_zone("star");
  std::vector<sg4::Host*> hosts;
  std::vector<sg4::Mailbox*> mailboxes;
  for (int n = 0; n < 3; ++n) {
    const std::string name = "h" + std::to_string(n);
    sg4::Host* host = zone->create_host(name, 1e9);
    sg4::Link* link = zone->create_split_duplex_link("link-" + name, kRate_Bps)->set_latency(kLatency_s);
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, {{link, sg4::LinkInRoute::Direction::UP}}, true);
    hosts.push_back(host);
    mailboxes.push_back(sg4::Mailbox::by_name("node-" + std::to_string(n)));
  }
  zone->seal();
  NicSenders nics(1, mailboxes, hosts, /*receivers_take_all=*/true, kPart);
  std::map<std::uint64_t, double> at;
  const auto receive = [&](int node, int messages) {
    mailboxes[node]->set_receiver(sg4::Actor::self());
    for (int i = 0; i < messages; ++i) {
      auto* m = mailboxes[node]->get<Message>();
      at[m->header.request_id] = sg4::Engine::get_clock();
      delete m;
    }
  };
  sg4::Actor::create("receiver-1", hosts[1], [&] { receive(1, 2); });
  sg4::Actor::create("receiver-2", hosts[2], [&] { receive(2, 1); });
  sg4::Actor::create("sender", hosts[0], [&] {
    for (const auto& [id, to, bytes] : {std::tuple<std::uint64_t, NodeId, std::uint64_t>{1, 1, 25000},
                                        {2, 1, 1000}, {3, 2, 5000}}) {
      Message m;
      m.header.request_id = id;
      nics.send(0, to, std::move(m), bytes);
    }
  });
  engine.run();
  return at;
}

// Real sockets: A's socket hands the queue its first 10 kB; B waits in A's socket behind A; C's
// socket hands its 5 kB at once. The queue sends A1 (0-10 ms), then C (10-15), as A's second
// part joined behind it, then A2 (15-25) and A3 (25-30): A lands at 30 ms, C at 15 and B, behind
// A on its connection, at 31. Held behind B in one queue, C left after A and B: at 31 ms, B at
// 26 and A at 25.
TEST(NicSendWindowConnections, AMessageHeldBehindItsOwnConnectionHoldsNoOtherBack) {
  const auto at = arrivals();
  ASSERT_EQ(at.size(), 3u);
  EXPECT_NEAR(at.at(3), 15e-3, kTolerance_s) << "C, to another receiver, leaves after A's first part";
  EXPECT_NEAR(at.at(1), 30e-3, kTolerance_s) << "A, 25 kB in three parts";
  EXPECT_NEAR(at.at(2), 31e-3, kTolerance_s) << "B arrives after A, on the same connection";
}

}  // namespace
}  // namespace pstwin
