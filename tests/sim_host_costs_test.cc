// The host costs of the cost model ("messaging", "cpu", and the scheduler's evaluation under
// "cpu"), each checked against the time a BSP iteration must take by hand, on a star of
// fixed links under CM02 (no latency or bandwidth factors: a lone message of B bytes takes its
// two NICs' latencies plus B over the slower NIC). Server work is priced on a device of 1e23
// flop/s and B/s, so it costs under 1e-19 s: nothing at this precision.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;
using nlohmann::json;

// Worker NICs 8 Gbit/s (1e9 B/s) and 10 us: a message between a worker and the server takes
// 20 us + B / 1e9 (the server's NIC is at least as fast, and carries each worker's flow at its
// worker's rate).
constexpr double kLatency = 20e-6;
constexpr double kWorkerBw = 1e9;
// A push of the synthetic model's 1000 values and its reply: each kMinMessageBytes (108) + a key
// range (8) + 1000 floats (4000) = 4116 bytes (codec_encode.cc, encoded_size). Checked below against
// the bytes the run reports.
constexpr double kPushBytes = 4116, kReplyBytes = 4116;
// The worker's gradient: 1e10 flops on 10 Tflop/s.
constexpr double kCompute = 1e-3;

json synthetic(int workers, const std::string& server_bandwidth) {
  json s = json::parse(R"({
    "name": "hostcosts", "seed": 1,
    "model": {"type": "synthetic", "parameters": 1000, "flops_per_iteration": 1e10},
    "training": {"iterations": 10, "eval_every": 1000},
    "consistency": [{"mode": "bsp"}],
    "simulation": {"cfg": ["network/model:CM02"]},
    "cluster": {"servers": 1,
                "worker": {"device": {"flops": "10Tf", "bandwidth": "1TBps"},
                           "link": {"bandwidth": "8Gbps", "latency": "10us"}},
                "server": {"device": {"flops": "1e8Pf", "bandwidth": "1e11TBps"},
                           "link": {"latency": "10us"}}}
  })");
  s["cluster"]["workers"] = workers;
  s["cluster"]["server"]["link"]["bandwidth"] = server_bandwidth;
  return s;
}

struct Run {
  double time_s = 0;
  double bytes = 0;
};

Run run(const json& s, const std::string& tag) {
  const std::string out = simulate(fresh_dir(tag), s);
  const json summary = read_json(out + "/bsp/summary.json");
  return {summary["sim_time_s"].get<double>(), summary["bytes_sent"].get<double>()};
}

// Seconds per BSP iteration: `more` iterations less `fewer`, over the difference. What every run
// does once (start-up, the end's reports) cancels out, as long as those messages have the same
// sizes in both runs: the end's reports carry figures as JSON text, whose length varies with
// the run's length, so the counts are chosen per cluster where they agree, which the bytes
// check confirms (exactly one push and one reply per worker per iteration in between).
double per_iteration(json s, const std::string& tag, int fewer = 10, int more = 20) {
  const int workers = s["cluster"]["workers"].get<int>();
  s["training"]["iterations"] = fewer;
  const Run a = run(s, tag + "-a");
  s["training"]["iterations"] = more;
  const Run b = run(s, tag + "-b");
  EXPECT_EQ(b.bytes - a.bytes, (more - fewer) * workers * (kPushBytes + kReplyBytes)) << tag;
  return (b.time_s - a.time_s) / (more - fewer);
}

void expect_relative(double actual, double expected) { EXPECT_NEAR(actual / expected, 1.0, 1e-9) << actual; }

// Without host costs: compute, then the push and the reply, each latency + bytes / bandwidth.
double network_and_compute(double compute) {
  return compute + 2 * kLatency + (kPushBytes + kReplyBytes) / kWorkerBw;
}

TEST(HostCosts, WithoutThemAnIterationIsComputeAndTwoMessages) {
  expect_relative(per_iteration(synthetic(1, "8Gbps"), "plain"), network_and_compute(kCompute));
}

TEST(HostCosts, MessagingCostsBothEndsOfEveryMessage) {
  // Worker and server with different figures: each message costs its sender's send and its
  // receiver's receive, per message plus per encoded byte.
  json s = synthetic(1, "8Gbps");
  s["cluster"]["worker"]["messaging"] = {{"send_per_message", "25us"},
                                         {"send_per_byte", "0.4ns"},
                                         {"receive_per_message", "20us"},
                                         {"receive_per_byte", "0.2ns"}};
  s["cluster"]["server"]["messaging"] = {{"send_per_message", "10us"},
                                         {"send_per_byte", "1ns"},
                                         {"receive_per_message", "5us"},
                                         {"receive_per_byte", "0.5ns"}};
  const double push = 25e-6 + kPushBytes * 0.4e-9 + 5e-6 + kPushBytes * 0.5e-9;     // worker sends, server receives
  const double reply = 10e-6 + kReplyBytes * 1e-9 + 20e-6 + kReplyBytes * 0.2e-9;  // server sends, worker receives
  expect_relative(per_iteration(s, "messaging"), network_and_compute(kCompute) + push + reply);
}

TEST(HostCosts, AServerReceivingFromFourWorkersIsBusyForEachMessage) {
  // The 4 pushes arrive together (the server's 32 Gbit/s NIC carries all four at the workers'
  // rate); the server decodes them one after the other, 50 us each, then replies.
  json s = synthetic(4, "32Gbps");
  s["cluster"]["server"]["messaging"] = {{"receive_per_message", "50us"}};
  expect_relative(per_iteration(s, "incast"), network_and_compute(kCompute) + 4 * 50e-6);
}

TEST(HostCosts, AnIoThreadDecodesBesideTheServerAndCompetesForItsCores) {
  // The incast above, half of each 50 us receive on the server's I/O thread (io_share 0.5). On a
  // machine of two cores the I/O thread decodes push i+1 while the role does its half of push i:
  // the I/O thread ends the fourth at 4 x 25 us, the role 25 us later, 125 us in all.
  json s = synthetic(4, "32Gbps");
  s["cluster"]["server"]["messaging"] = {{"receive_per_message", "50us"}, {"io_share", 0.5}};
  s["cluster"]["cpu"] = {{"cores", 2}, {"machines", "per_host"}};
  expect_relative(per_iteration(s, "io-two-cores"), network_and_compute(kCompute) + 125e-6);
  // On one core the two threads share it and its 200 us of work: nothing is gained.
  s["cluster"]["cpu"] = {{"cores", 1}, {"machines", "per_host"}};
  expect_relative(per_iteration(s, "io-one-core"), network_and_compute(kCompute) + 200e-6);
}

TEST(HostCosts, AnIoThreadSendsTheRepliesBehindTheRole) {
  // The barrier's four replies, 50 us each to send: the role does its 25 us of reply i, then the
  // I/O thread its 25 us while the role goes on to reply i+1. The last reply leaves at 125 us,
  // not 200, and it is the last worker's that sets the next barrier.
  json s = synthetic(4, "32Gbps");
  s["cluster"]["server"]["messaging"] = {{"send_per_message", "50us"}, {"io_share", 0.5}};
  s["cluster"]["cpu"] = {{"cores", 2}, {"machines", "per_host"}};
  expect_relative(per_iteration(s, "io-replies"), network_and_compute(kCompute) + 125e-6);
}

TEST(HostCosts, TwoWorkersAndTheServerOnOneCoreComputeInTurn) {
  // Both workers' gradients share the one core, so each takes twice its time (SimGrid shares a
  // host's cores fairly); the server's NIC of 16 Gbit/s carries both pushes at the workers' rate.
  json s = synthetic(2, "16Gbps");
  s["cluster"]["cpu"] = {{"cores", 1}, {"machines", "one"}};
  expect_relative(per_iteration(s, "one-core", 20, 30), network_and_compute(2 * kCompute));
  // Two cores, or a core per machine: each worker computes alone, as without "cpu".
  s["cluster"]["cpu"] = {{"cores", 2}, {"machines", "one"}};
  expect_relative(per_iteration(s, "two-cores", 20, 30), network_and_compute(kCompute));
  s["cluster"]["cpu"] = {{"cores", 1}, {"machines", "per_host"}};
  expect_relative(per_iteration(s, "per-host", 20, 30), network_and_compute(kCompute));
}

TEST(HostCosts, AGpuComputesBesideTheCores) {
  // A GPU's kernels do not take the host's core: the two workers compute at once again.
  json s = synthetic(2, "16Gbps");
  s["cluster"]["cpu"] = {{"cores", 1}, {"machines", "one"}};
  s["cluster"]["worker"]["device"]["kind"] = "gpu";
  expect_relative(per_iteration(s, "gpu", 20, 30), network_and_compute(kCompute));
}

// Logistic regression on toy data, 1 worker and 1 server, evaluated at every clock. The worker
// computes 10 ms per iteration (its device's overhead; the kernels' own time is under 1e-19 s),
// the scheduler 1 ms per evaluation (the server group's overhead, which the scheduler is
// equipped with; server 0 itself is overridden to no overhead). The scheduler's NIC is slow, so
// each snapshot reaches it after the worker has its reply and is computing.
json evaluated(const std::string& dir) {
  write_toy_libsvm(dir + "/train.svm", 400, 7);
  write_toy_libsvm(dir + "/test.svm", 100, 99);
  return json::parse(R"({
    "name": "evaluated", "seed": 3,
    "data": {"format": "libsvm", "train": "train.svm", "test": "test.svm"},
    "model": {"type": "logistic"},
    "training": {"iterations": 10, "batch_size": 32, "learning_rate": 0.5, "eval_every": 1},
    "consistency": [{"mode": "bsp"}],
    "simulation": {"cfg": ["network/model:CM02"]},
    "cluster": {"workers": 1, "servers": 1,
                "worker": {"device": {"flops": "1e8Pf", "bandwidth": "1e11TBps", "overhead": "10ms"},
                           "link": {"bandwidth": "8Gbps", "latency": "10us"}},
                "server": {"device": {"flops": "1e8Pf", "bandwidth": "1e11TBps", "overhead": "1ms"},
                           "link": {"bandwidth": "1Gbps", "latency": "10us"}},
                "overrides": {"server:0": {"device": {"flops": "1e8Pf", "bandwidth": "1e11TBps"},
                                           "link": {"bandwidth": "16Gbps", "latency": "10us"}}}}
  })");
}

// Seconds per iteration from the evaluations' stamps (metrics.csv: time_s, clock, ...): clock 10
// less clock 2, over 8. The stamps are the servers' times, so the end of the run does not count.
double stamped_per_iteration(const std::string& csv_path) {
  std::istringstream csv(read_file(csv_path));
  std::string line;
  std::getline(csv, line);  // header
  std::map<long, double> time_of_clock;
  while (std::getline(csv, line)) {
    std::istringstream row(line);
    std::string time, clock;
    std::getline(row, time, ',');
    std::getline(row, clock, ',');
    time_of_clock[std::stol(clock)] = std::stod(time);
  }
  EXPECT_EQ(time_of_clock.size(), 11u);  // clocks 0..10
  return (time_of_clock.at(10) - time_of_clock.at(2)) / 8;
}

TEST(HostCosts, EvaluationTakesTheCoreItSharesWithTheRoles) {
  const std::string dir = fresh_dir();
  const json s = evaluated(dir);
  const auto per_iteration_of = [&](const json& scenario, const std::string& tag) {
    write_json(dir + "/" + tag + ".json", scenario);
    const auto r = run_pstwin("simulate " + dir + "/" + tag + ".json --quiet --out " + dir + "/" + tag);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return stamped_per_iteration(dir + "/" + tag + "/bsp/metrics.csv");
  };
  const double free = per_iteration_of(s, "free");
  // Each evaluation's 1 ms of work shares the core with the worker's 10 ms gradient, which
  // therefore ends 1 ms later (the core does 11 ms of work in between).
  json one = s;
  one["cluster"]["cpu"] = {{"cores", 1}, {"machines", "one"}};
  expect_relative(per_iteration_of(one, "one") - free, 1e-3);
  // On a machine of its own, the scheduler takes nothing from the roles.
  json per_host = s;
  per_host["cluster"]["cpu"] = {{"cores", 1}, {"machines", "per_host"}};
  EXPECT_NEAR(per_iteration_of(per_host, "per-host"), free, 1e-9 * free);
}

TEST(HostCosts, EnoughCoresChangeNothingOnFabricsThatRouteByNetpointIds) {
  // With "cpu" the topology sits under a root zone beside the cores' zone: every route must stay
  // what it was (torus and dragonfly route by netpoint ids). 4 workers, a server and the
  // scheduler on 8 cores each compute as alone.
  json s = synthetic(4, "32Gbps");
  s["model"]["parameters"] = 100000;
  s.erase("simulation");  // LV08, as shipped scenarios
  const json fabric_link = {{"bandwidth", "8Gbps"}, {"latency", "2us"}};
  // The star, racks and fat tree route by names and zones alone (the other tests cover the star).
  for (const json& topology :
       {json({{"type", "dragonfly"}, {"groups", {2, 1}}, {"chassis", {1, 1}}, {"routers", {2, 1}}, {"nodes", 2},
              {"link", fabric_link}}),
        json({{"type", "torus"}, {"dimensions", {3, 2}}, {"link", fabric_link}})}) {
    s["cluster"]["topology"] = topology;
    s["cluster"].erase("cpu");
    const std::string tag = topology["type"].get<std::string>();
    const double without = run(s, tag).time_s;
    s["cluster"]["cpu"] = {{"cores", 8}, {"machines", "one"}};
    EXPECT_NEAR(run(s, tag + "-cpu").time_s / without, 1.0, 1e-12) << tag;
  }
}

// The worker's "node_cpu" event of a run of `iterations` clocks (events.jsonl).
json worker_cpu(json s, int iterations, const std::string& tag) {
  s["training"]["iterations"] = iterations;
  const std::string out = simulate(fresh_dir(tag), s);
  for (const auto& e : events_of(out + "/bsp", "node_cpu"))
    if (e["node"] == "worker:0") return e;
  ADD_FAILURE() << tag << ": no node_cpu event for worker:0";
  return json::object();
}

TEST(HostCosts, ANodeReportsTheHostWorkItWasCharged) {
  // As a real node reports the CPU it measured, the simulation reports the host work priced
  // for each node: per iteration the worker's gradient, the push's send and the reply's receive.
  json s = synthetic(1, "8Gbps");
  s["cluster"]["worker"]["messaging"] = {{"send_per_message", "25us"},
                                         {"send_per_byte", "0.4ns"},
                                         {"receive_per_message", "20us"},
                                         {"receive_per_byte", "0.2ns"}};
  s["cluster"]["cpu"] = {{"cores", 1}, {"machines", "per_host"}};
  const json a = worker_cpu(s, 10, "cpu-10"), b = worker_cpu(s, 20, "cpu-20");
  const double per_clock = kCompute + 25e-6 + kPushBytes * 0.4e-9 + 20e-6 + kReplyBytes * 0.2e-9;
  expect_relative((b["role_thread_s"].get<double>() - a["role_thread_s"].get<double>()) / 10, per_clock);
  EXPECT_EQ(b["process_s"], b["role_thread_s"]);
  // The run's simulated length: at least the worker's charged work, on its own core.
  EXPECT_GE(b["wall_s"].get<double>(), b["role_thread_s"].get<double>());
  // Without cores there is no CPU to speak of, and no event.
  s["cluster"].erase("cpu");
  EXPECT_TRUE(events_of(simulate(fresh_dir("no-cpu"), s) + "/bsp", "node_cpu").empty());
}

TEST(HostCosts, ValidatePrintsThemAndRefusesABadOneAtItsPointer) {
  const std::string dir = fresh_dir();
  json s = synthetic(2, "16Gbps");
  s["cluster"]["server"]["messaging"] = {{"receive_per_message", "50us"}};
  s["cluster"]["cpu"] = {{"cores", 2}, {"machines", "one"}};
  write_json(dir + "/s.json", s);
  const auto ok = run_pstwin("validate " + dir + "/s.json");
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("messaging: servers: send 0 s + 0 s/byte, receive 5e-05 s + 0 s/byte\n"), std::string::npos)
      << ok.output;
  EXPECT_NE(ok.output.find("cpu: 2 cores on one machine, shared by every node's host work\n"), std::string::npos)
      << ok.output;
  const auto bad = run_pstwin("validate " + dir + "/s.json --set '/cluster/cpu/machines=\"all\"'");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("/cluster/cpu/machines"), std::string::npos) << bad.output;
}

}  // namespace
}  // namespace pstwin
