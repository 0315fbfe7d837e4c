// "fault_tolerance" and "failures" (runtime/scenario/fault_sections.h): values, error pointers and
// messages; and the seeded failure schedule (runtime/scenario/failure_schedule.h).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "runtime/codec.h"
#include "runtime/errors.h"
#include "runtime/message.h"
#include "runtime/scenario/failure_schedule.h"
#include "runtime/scenario/fault_sections.h"
#include "runtime/scenario/scenario.h"
#include "tests/scenario_test_support.h"

namespace pstwin {
namespace {

using testing_support::error_message;
using testing_support::error_pointer;

using nlohmann::json;
using Role = NodeRef::Role;
using Kind = FailureSpec::Kind;
using scenario_sections::heartbeat_delivery_s;
using scenario_sections::kHeartbeatBytes;
using scenario_sections::min_heartbeat_timeout_s;

/// A timing-only scenario with 4 workers, 3 servers, and every fault key set.
json faulty_scenario() {
  return json::parse(R"({
    "name": "faults",
    "seed": 7,
    "model": {"type": "synthetic", "parameters": 1000, "flops_per_iteration": 1e6},
    "training": {"iterations": 10},
    "consistency": [{"mode": "bsp"}],
    "cluster": {"workers": 4, "servers": 3,
                "worker": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "10us"}},
                "server": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "10us"}}},
    "fault_tolerance": {"replication": 2, "heartbeat_interval": "100ms", "heartbeat_timeout": "500ms",
                        "checkpoint_every_clocks": 5, "checkpoint_every": "30s", "checkpoint_bandwidth": "2GBps"},
    "failures": [{"node": "server:1", "at": "2s", "recover_at": "5s"},
                 {"link": "worker:3", "at": "1s", "recover_at": "1.5s"},
                 {"random": "workers", "mtbf": "60s", "repair": "5s", "nodes": [0, 2]},
                 {"node": "scheduler", "at": "100s"},
                 {"link": "scheduler", "at": "3s", "recover_at": "4s"},
                 {"random": "servers", "mtbf": "1h"}]
  })");
}

TEST(ScenarioFaults, FullSectionsParseToTheRightValues) {
  const Scenario s = parse_scenario(faulty_scenario());
  const FaultToleranceSection& ft = s.fault_tolerance;
  EXPECT_TRUE(ft.enabled);
  EXPECT_EQ(ft.replication, 2u);
  EXPECT_DOUBLE_EQ(ft.heartbeat_interval_s, 0.1);
  EXPECT_DOUBLE_EQ(ft.heartbeat_timeout_s, 0.5);
  EXPECT_EQ(ft.checkpoint_every_clocks, 5u);
  EXPECT_DOUBLE_EQ(ft.checkpoint_every_s, 30.0);
  EXPECT_DOUBLE_EQ(ft.checkpoint_bandwidth_Bps, 2e9);

  ASSERT_EQ(s.failures.size(), 6u);
  const FailureSpec& node = s.failures[0];
  EXPECT_EQ(node.kind, Kind::kNode);
  EXPECT_EQ(node.target, (NodeRef{Role::kServer, 1}));
  EXPECT_DOUBLE_EQ(node.at_s, 2.0);
  EXPECT_EQ(node.recover_at_s, 5.0);

  const FailureSpec& link = s.failures[1];
  EXPECT_EQ(link.kind, Kind::kLink);
  EXPECT_EQ(link.target, (NodeRef{Role::kWorker, 3}));
  EXPECT_DOUBLE_EQ(link.at_s, 1.0);
  EXPECT_EQ(link.recover_at_s, 1.5);

  const FailureSpec& random = s.failures[2];
  EXPECT_EQ(random.kind, Kind::kRandom);
  EXPECT_EQ(random.group, Role::kWorker);
  EXPECT_EQ(random.nodes, (std::vector<std::uint32_t>{0, 2}));
  EXPECT_DOUBLE_EQ(random.mtbf_s, 60.0);
  EXPECT_EQ(random.repair_s, 5.0);

  EXPECT_EQ(s.failures[3].target, NodeRef{});
  EXPECT_FALSE(s.failures[3].recover_at_s.has_value());
  EXPECT_EQ(s.failures[4].kind, Kind::kLink);
  EXPECT_EQ(s.failures[4].target.role, Role::kScheduler);

  EXPECT_EQ(s.failures[5].group, Role::kServer);
  EXPECT_TRUE(s.failures[5].nodes.empty());
  EXPECT_DOUBLE_EQ(s.failures[5].mtbf_s, 3600.0);
  EXPECT_FALSE(s.failures[5].repair_s.has_value());
}

TEST(ScenarioFaults, DefaultsAndEnabled) {
  json d = faulty_scenario();
  d.erase("fault_tolerance");
  d.erase("failures");
  Scenario s = parse_scenario(d);
  EXPECT_FALSE(s.fault_tolerance.enabled);
  EXPECT_TRUE(s.failures.empty());
  EXPECT_EQ(s.fault_tolerance.replication, 1u);
  EXPECT_DOUBLE_EQ(s.fault_tolerance.heartbeat_interval_s, 0.2);
  EXPECT_DOUBLE_EQ(s.fault_tolerance.heartbeat_timeout_s, 1.0);
  EXPECT_EQ(s.fault_tolerance.checkpoint_every_clocks, 0u);
  EXPECT_DOUBLE_EQ(s.fault_tolerance.checkpoint_every_s, 0.0);
  EXPECT_DOUBLE_EQ(s.fault_tolerance.checkpoint_bandwidth_Bps, 1e9);

  d["failures"] = json::array();
  EXPECT_FALSE(parse_scenario(d).fault_tolerance.enabled);

  d["fault_tolerance"] = json::object();  // present, even empty: heartbeats run
  EXPECT_TRUE(parse_scenario(d).fault_tolerance.enabled);

  d.erase("fault_tolerance");
  d["failures"] = json::array({{{"link", "worker:0"}, {"at", "1s"}}});  // failures alone enable it too
  s = parse_scenario(d);
  EXPECT_TRUE(s.fault_tolerance.enabled);
  EXPECT_EQ(s.fault_tolerance.replication, 1u);
  EXPECT_FALSE(s.failures[0].recover_at_s.has_value());
}

TEST(ScenarioFaults, NodeRefs) {
  ClusterSection c;
  c.workers = 4;
  c.servers = 2;
  const auto ref = [&](const std::string& t) { return scenario_sections::parse_node_ref(t, "/x", c); };
  EXPECT_EQ(ref("scheduler"), NodeRef{});
  EXPECT_EQ(ref("server:1"), (NodeRef{Role::kServer, 1}));
  EXPECT_EQ(ref("worker:0"), (NodeRef{Role::kWorker, 0}));
  EXPECT_EQ(ref("worker:3").text(), "worker:3");
  EXPECT_EQ(ref("scheduler").text(), "scheduler");
  EXPECT_EQ(ref("server:1").text(), "server:1");
  for (const char* bad : {"", "worker", "worker:", "worker:-1", "worker:1x", "Worker:1", "scheduler:0", "server: 1",
                          "worker:1234567890", "node:1"}) {
    try {
      ref(bad);
      ADD_FAILURE() << bad << " parsed";
    } catch (const ScenarioError& e) {
      EXPECT_EQ(e.pointer(), "/x") << bad;
      EXPECT_NE(std::string(e.what()).find(R"(expected "scheduler", "server:<i>" or "worker:<i>")"), std::string::npos)
          << e.what();
    }
  }
  try {
    ref("server:2");
    ADD_FAILURE() << "server:2 parsed";
  } catch (const ScenarioError& e) {
    EXPECT_STREQ(e.what(), "/x: server:2 does not exist: the cluster has 2 servers");
  }
}

struct BadCase {
  const char* what;
  std::function<void(json&)> mutate;
  const char* pointer;
  const char* message;  ///< the full what(), pointer included; null: the pointer is enough
};

TEST(ScenarioFaults, BadValuesNameTheirPointerAndWhatWasExpected) {
  const std::vector<BadCase> cases = {
      {"replication above servers", [](json& d) { d["fault_tolerance"]["replication"] = 4; },
       "/fault_tolerance/replication", "/fault_tolerance/replication: expected at most 3 (the cluster has 3 servers), got 4"},
      {"replication zero", [](json& d) { d["fault_tolerance"]["replication"] = 0; }, "/fault_tolerance/replication",
       "/fault_tolerance/replication: expected a positive integer, got 0"},
      {"replication with one server",
       [](json& d) {
         d["cluster"]["servers"] = 1;
         d["failures"] = json::array();
       },
       "/fault_tolerance/replication", "/fault_tolerance/replication: expected at most 1 (the cluster has 1 server), got 2"},
      {"timeout not above interval", [](json& d) { d["fault_tolerance"]["heartbeat_timeout"] = "100ms"; },
       "/fault_tolerance/heartbeat_timeout",
       "/fault_tolerance/heartbeat_timeout: heartbeat_timeout (100ms) must be more than 2 x heartbeat_interval "
       "(100ms) + 0.2603ms for a heartbeat to reach the scheduler over the cluster's links = 200.3ms, or healthy "
       "nodes are declared dead: a live node's heartbeats reach the scheduler up to an interval apart (the first "
       "one an interval plus its network time after the start), and one beat may be late or missed without the "
       "node being dead"},
      {"timeout at twice the interval", [](json& d) { d["fault_tolerance"]["heartbeat_timeout"] = "200ms"; },
       "/fault_tolerance/heartbeat_timeout", nullptr},
      {"interval above the default timeout",
       [](json& d) {
         d["fault_tolerance"].erase("heartbeat_timeout");
         d["fault_tolerance"]["heartbeat_interval"] = "2s";
       },
       "/fault_tolerance/heartbeat_interval", nullptr},
      {"checkpoint clocks beyond int64", [](json& d) { d["fault_tolerance"]["checkpoint_every_clocks"] = 9223372036854775808ULL; },
       "/fault_tolerance/checkpoint_every_clocks",
       "/fault_tolerance/checkpoint_every_clocks: expected a non-negative integer <= 9223372036854775807, got "
       "9223372036854775808"},
      {"zero interval", [](json& d) { d["fault_tolerance"]["heartbeat_interval"] = "0s"; },
       "/fault_tolerance/heartbeat_interval", "/fault_tolerance/heartbeat_interval: expected a value > 0, got string \"0s\""},
      {"interval below a millisecond", [](json& d) { d["fault_tolerance"]["heartbeat_interval"] = "1us"; },
       "/fault_tolerance/heartbeat_interval",
       "/fault_tolerance/heartbeat_interval: expected at least 1ms, got 0.001ms: every node sends one heartbeat "
       "per interval"},
      {"interval without unit", [](json& d) { d["fault_tolerance"]["heartbeat_interval"] = 0.1; },
       "/fault_tolerance/heartbeat_interval",
       "/fault_tolerance/heartbeat_interval: expected a string with a unit such as \"200ms\", got 0.1"},
      {"zero checkpoint bandwidth", [](json& d) { d["fault_tolerance"]["checkpoint_bandwidth"] = "0GBps"; },
       "/fault_tolerance/checkpoint_bandwidth",
       "/fault_tolerance/checkpoint_bandwidth: expected a value > 0, got string \"0GBps\""},
      {"negative checkpoint clocks", [](json& d) { d["fault_tolerance"]["checkpoint_every_clocks"] = -1; },
       "/fault_tolerance/checkpoint_every_clocks",
       "/fault_tolerance/checkpoint_every_clocks: expected a non-negative integer, got -1"},
      {"unknown fault_tolerance key", [](json& d) { d["fault_tolerance"]["replicas"] = 2; },
       "/fault_tolerance/replicas",
       "/fault_tolerance/replicas: unknown key \"replicas\"; allowed keys: replication, heartbeat_interval, "
       "heartbeat_timeout, checkpoint_every_clocks, checkpoint_every, checkpoint_bandwidth"},
      {"fault_tolerance not an object", [](json& d) { d["fault_tolerance"] = true; }, "/fault_tolerance",
       "/fault_tolerance: expected an object, got true"},
      {"failures not an array", [](json& d) { d["failures"] = json::object(); }, "/failures",
       "/failures: expected an array, got an object"},
      {"worker out of range", [](json& d) { d["failures"][0]["node"] = "worker:7"; }, "/failures/0/node",
       "/failures/0/node: worker:7 does not exist: the cluster has 4 workers"},
      {"server out of range", [](json& d) { d["failures"][1]["link"] = "server:3"; }, "/failures/1/link",
       "/failures/1/link: server:3 does not exist: the cluster has 3 servers"},
      {"malformed node", [](json& d) { d["failures"][0]["node"] = "server1"; }, "/failures/0/node",
       "/failures/0/node: expected \"scheduler\", \"server:<i>\" or \"worker:<i>\", got string \"server1\""},
      {"node not a string", [](json& d) { d["failures"][0]["node"] = 1; }, "/failures/0/node",
       "/failures/0/node: expected \"scheduler\", \"server:<i>\" or \"worker:<i>\", got 1"},
      {"no kind", [](json& d) { d["failures"][0].erase("node"); }, "/failures/0",
       "/failures/0: expected exactly one of the keys \"node\", \"link\", \"random\" or \"join\", got none"},
      {"two kinds", [](json& d) { d["failures"][0]["link"] = "worker:1"; }, "/failures/0",
       "/failures/0: expected exactly one of the keys \"node\", \"link\", \"random\" or \"join\", got \"node\" and \"link\""},
      {"entry not an object", [](json& d) { d["failures"][0] = "server:1"; }, "/failures/0",
       "/failures/0: expected an object, got string \"server:1\""},
      {"missing at", [](json& d) { d["failures"][1].erase("at"); }, "/failures/1/at",
       "/failures/1/at: missing required key \"at\""},
      {"recover before failing", [](json& d) { d["failures"][0]["recover_at"] = "2s"; }, "/failures/0/recover_at",
       "/failures/0/recover_at: expected a time after \"at\" (2s), got string \"2s\""},
      {"link recovers before failing", [](json& d) { d["failures"][1]["recover_at"] = "500ms"; },
       "/failures/1/recover_at", "/failures/1/recover_at: expected a time after \"at\" (1s), got string \"500ms\""},
      {"scheduler recovers", [](json& d) { d["failures"][3]["recover_at"] = "200s"; }, "/failures/3/recover_at",
       "/failures/3/recover_at: the scheduler cannot recover: it is not replicated, and a failed scheduler ends the "
       "job"},
      {"mtbf on a node failure", [](json& d) { d["failures"][0]["mtbf"] = "1s"; }, "/failures/0/mtbf",
       "/failures/0/mtbf: only allowed in a \"random\" failure, not with \"node\""},
      {"at on a random failure", [](json& d) { d["failures"][2]["at"] = "1s"; }, "/failures/2/at",
       "/failures/2/at: not allowed in a \"random\" failure: its times are drawn from \"mtbf\" and \"repair\""},
      {"random group", [](json& d) { d["failures"][2]["random"] = "scheduler"; }, "/failures/2/random",
       "/failures/2/random: expected one of \"workers\", \"servers\", got string \"scheduler\""},
      {"random without mtbf", [](json& d) { d["failures"][2].erase("mtbf"); }, "/failures/2/mtbf",
       "/failures/2/mtbf: missing required key \"mtbf\""},
      {"zero mtbf", [](json& d) { d["failures"][2]["mtbf"] = "0s"; }, "/failures/2/mtbf",
       "/failures/2/mtbf: expected a value > 0, got string \"0s\""},
      {"zero repair", [](json& d) { d["failures"][2]["repair"] = "0ms"; }, "/failures/2/repair",
       "/failures/2/repair: expected a value > 0, got string \"0ms\""},
      {"random node out of range", [](json& d) { d["failures"][5]["nodes"] = {0, 3}; }, "/failures/5/nodes/1",
       "/failures/5/nodes/1: server:3 does not exist: the cluster has 3 servers"},
      {"random node twice", [](json& d) { d["failures"][2]["nodes"] = {2, 2}; }, "/failures/2/nodes/1",
       "/failures/2/nodes/1: worker:2 is listed twice"},
      {"random nodes empty", [](json& d) { d["failures"][2]["nodes"] = json::array(); }, "/failures/2/nodes",
       "/failures/2/nodes: expected a non-empty array, got an empty array"},
      {"overlapping failures of one node",
       [](json& d) { d["failures"].push_back({{"node", "server:1"}, {"at", "4s"}}); }, "/failures/6",
       "/failures/6: server:1 is already down then (entry 0): the failures of one node must not overlap"},
      {"unknown failure key", [](json& d) { d["failures"][0]["type"] = "crash"; }, "/failures/0/type",
       "/failures/0/type: unknown key \"type\"; allowed keys: node, link, random, join, at, recover_at, mtbf, repair, nodes"},
  };
  for (const BadCase& c : cases) {
    json d = faulty_scenario();
    c.mutate(d);
    EXPECT_EQ(error_pointer(d), c.pointer) << c.what << ": " << error_message(d);
    if (c.message) {
      EXPECT_EQ(error_message(d), c.message) << c.what;
    }
  }
}

/// The cluster of `doc` as parsed.
ClusterSection cluster_of(json doc) {
  doc.erase("fault_tolerance");
  doc.erase("failures");
  return parse_scenario(doc).cluster;
}

TEST(ScenarioFaults, HeartbeatDeliveryIsTheFarthestNodesSimulatedTransfer) {
  // LV08: 13.01 x (node latency + scheduler latency) + 128 bytes / (0.97 x the slower bandwidth).
  json d = faulty_scenario();
  EXPECT_NEAR(heartbeat_delivery_s(cluster_of(d)), 13.01 * 20e-6 + 128 / (0.97 * 1.25e9), 1e-15);
  d["cluster"]["worker"]["link"] = {{"bandwidth", "1Mbps"}, {"latency", "1ms"}};
  EXPECT_NEAR(heartbeat_delivery_s(cluster_of(d)), 13.01 * 1.01e-3 + 128 / (0.97 * 1.25e5), 1e-15);
  EXPECT_NEAR(min_heartbeat_timeout_s(0.2, cluster_of(d)), 0.4 + 13.01 * 1.01e-3 + 128 / (0.97 * 1.25e5), 1e-15);
}

TEST(ScenarioFaults, HeartbeatBytesBoundAnEncodedHeartbeat) {
  Message beat;
  beat.header.type = MsgType::kHeartbeat;
  beat.header.sender = 0xffffffffu;
  EXPECT_LE(static_cast<double>(encoded_size(beat)), kHeartbeatBytes);
}

TEST(ScenarioFaults, HeartbeatTimeoutMustExceedTwoIntervalsPlusDelivery) {
  // The reproducer of healthy nodes declared dead: 200ms heartbeats, a 300ms timeout, 50us links.
  try {
    load_scenario(PSTWIN_SOURCE_DIR "/tests/inputs/heartbeat-false-death.json");
    FAIL() << "expected ScenarioError";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.pointer(), "/fault_tolerance/heartbeat_timeout");
    EXPECT_NE(std::string(e.what()).find("heartbeat_timeout (300ms) must be more than 2 x heartbeat_interval (200ms) "
                                         "+ 1.302ms for a heartbeat to reach the scheduler over the cluster's links "
                                         "= 401.3ms"),
              std::string::npos)
        << e.what();
  }
  const std::string just_above = "/fault_tolerance/heartbeat_timeout=402ms";
  EXPECT_DOUBLE_EQ(load_scenario(PSTWIN_SOURCE_DIR "/tests/inputs/heartbeat-false-death.json", {just_above})
                       .fault_tolerance.heartbeat_timeout_s,
                   0.402);
  json d = faulty_scenario();
  d["fault_tolerance"]["heartbeat_timeout"] = "201ms";  // 2 x 100ms + 0.26ms is 200.26ms
  EXPECT_EQ(error_pointer(d), "<valid>");
}

TEST(ScenarioFaults, DefaultHeartbeatsOfFailuresWithoutTheSectionMustSuitTheLinks) {
  json d = faulty_scenario();
  d.erase("fault_tolerance");
  d["failures"] = json::parse(R"([{"node": "worker:1", "at": "2s"}])");
  EXPECT_EQ(error_pointer(d), "<valid>");  // 200ms and 1s over 10us links
  d["cluster"]["worker"]["link"]["latency"] = "50ms";  // 13.01 x 50.01ms = 651ms: 2 x 200ms + that > 1s
  EXPECT_EQ(error_pointer(d), "/fault_tolerance") << error_message(d);
}

TEST(FailureSchedule, ExplicitEventsComeInTimeOrder) {
  json d = faulty_scenario();
  d["failures"] = json::parse(R"([{"node": "server:1", "at": "2s", "recover_at": "5s"},
                                  {"link": "worker:3", "at": "1s", "recover_at": "1.5s"},
                                  {"node": "scheduler", "at": "100s"},
                                  {"node": "worker:0", "at": "2s"}])");
  const Scenario s = parse_scenario(d);
  const std::vector<FailureEvent> events = failure_schedule(s, 50.0);
  const std::vector<FailureEvent> expected = {
      {Kind::kLink, {Role::kWorker, 3}, 1.0, 1.5},
      {Kind::kNode, {Role::kServer, 1}, 2.0, 5.0},
      {Kind::kNode, {Role::kWorker, 0}, 2.0, std::nullopt},  // a tie keeps the scenario's order
  };
  EXPECT_EQ(events, expected);  // the scheduler's failure at 100s is past the horizon
  EXPECT_EQ(failure_schedule(s, 1000.0).back().target, NodeRef{});
}

TEST(FailureSchedule, RandomFailuresAreDeterministicAndSeeded) {
  const Scenario s = parse_scenario(faulty_scenario());
  const std::vector<FailureEvent> a = failure_schedule(s, 10000.0);
  EXPECT_EQ(a, failure_schedule(s, 10000.0));
  EXPECT_GT(a.size(), 10u);
  for (std::size_t i = 1; i < a.size(); ++i) EXPECT_LE(a[i - 1].at_s, a[i].at_s);
  for (const FailureEvent& e : a) {
    EXPECT_LE(e.at_s, 10000.0);
    if (e.target.role == Role::kWorker && e.kind == Kind::kNode && e.recover_at_s) {
      EXPECT_TRUE(e.target.index == 0 || e.target.index == 2) << e.target.text();  // only the listed ones
    }
  }
  json d = faulty_scenario();
  d["seed"] = 8;
  EXPECT_NE(a, failure_schedule(parse_scenario(d), 10000.0));
}

TEST(FailureSchedule, UpTimesAreExponentialWithMeanMtbf) {
  json d = faulty_scenario();
  d["failures"] = json::parse(R"([{"random": "workers", "mtbf": "10s", "repair": "1ms"}])");
  const Scenario s = parse_scenario(d);
  const double horizon = 5000.0;  // about 500 failures per worker, 2000 in all
  const std::vector<FailureEvent> events = failure_schedule(s, horizon);
  std::map<std::uint32_t, double> back_up;  // per worker: when it last came back
  double up_sum = 0.0;
  std::size_t n = 0;
  for (const FailureEvent& e : events) {
    ASSERT_EQ(e.kind, Kind::kNode);
    ASSERT_EQ(e.target.role, Role::kWorker);
    ASSERT_LE(e.at_s, horizon);
    ASSERT_TRUE(e.recover_at_s.has_value());
    EXPECT_NEAR(*e.recover_at_s - e.at_s, 0.001, 1e-9);
    const double since = back_up.count(e.target.index) ? back_up[e.target.index] : 0.0;
    ASSERT_GE(e.at_s, since) << "a node failed while down";
    up_sum += e.at_s - since;
    ++n;
    back_up[e.target.index] = *e.recover_at_s;
  }
  EXPECT_EQ(back_up.size(), 4u);
  EXPECT_GT(n, 1800u);
  EXPECT_NEAR(up_sum / static_cast<double>(n), 10.0, 0.5);
}

TEST(FailureSchedule, WithoutRepairEachNodeFailsOnce) {
  json d = faulty_scenario();
  d["failures"] = json::parse(R"([{"random": "servers", "mtbf": "1s"},
                                  {"random": "workers", "mtbf": "1s", "nodes": [1, 3]}])");
  const std::vector<FailureEvent> events = failure_schedule(parse_scenario(d), 1e6);
  std::map<std::string, int> count;
  for (const FailureEvent& e : events) {
    EXPECT_FALSE(e.recover_at_s.has_value());
    ++count[e.target.text()];
  }
  const std::map<std::string, int> expected = {
      {"server:0", 1}, {"server:1", 1}, {"server:2", 1}, {"worker:1", 1}, {"worker:3", 1}};
  EXPECT_EQ(count, expected);
}

}  // namespace
}  // namespace pstwin
