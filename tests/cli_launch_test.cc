// pstwin launch and pstwin node: the same roles for real, with parity against the simulation.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <future>
#include <iterator>

#include <random>
#include <thread>

#include <zmq.hpp>

#include "net/curve_keys.h"
#include "runtime/codec.h"
#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

nlohmann::json toy_bsp(const std::string& dir, const std::string& model) {
  auto s = toy_scenario(dir);
  s["model"]["type"] = model;
  s["consistency"] = nlohmann::json::parse(R"([{"mode": "bsp"}])");
  return s;
}


TEST(Launch, BspParityLogistic) {
  const std::string dir = fresh_dir();
  expect_parity(dir, toy_bsp(dir, "logistic"));
}

TEST(Launch, BspParitySoftmax) {
  const std::string dir = fresh_dir();
  expect_parity(dir, toy_bsp(dir, "softmax"));
}

TEST(Launch, BspParityMlp) {
  const std::string dir = fresh_dir();
  auto scenario = toy_bsp(dir, "mlp");
  scenario["model"]["hidden"] = {8, 4};
  scenario["training"]["learning_rate"] = 0.1;
  expect_parity(dir, scenario);
}

TEST(Launch, BspParityOnA9a) {
  if (!std::filesystem::exists(PSTWIN_SOURCE_DIR "/../shared/data/a9a/a9a"))
    GTEST_SKIP() << "a9a not found beside the checkout (../shared/data/a9a)";
  const std::string dir = fresh_dir();
  auto scenario = read_json(PSTWIN_SOURCE_DIR "/scenarios/parity-bsp.json");
  // The copy lives elsewhere, so its data paths must not depend on the folder.
  scenario["data"]["train"] = PSTWIN_SOURCE_DIR "/../shared/data/a9a/a9a";
  scenario["data"]["test"] = PSTWIN_SOURCE_DIR "/../shared/data/a9a/a9a.t";
  expect_parity(dir, scenario);
  // The shipped parity scenario's data paths are relative to scenarios/; run it in place too.
  const auto r = run_pstwin("launch " PSTWIN_SOURCE_DIR "/scenarios/parity-bsp.json --out " + dir + "/shipped");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(sha_of(dir + "/shipped", "bsp"), sha_of(dir + "/sim", "bsp"));
}

TEST(Launch, AspAndSspOverZeroMqCompleteInTheSimulatedAccuracyBand) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", toy_scenario(dir));
  auto r = run_pstwin("launch " + dir + "/s.json --out " + dir + "/zmq");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_pstwin("simulate " + dir + "/s.json --quiet --out " + dir + "/sim");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* v : {"asp", "ssp2"}) {
    const auto real = read_json(dir + "/zmq/" + v + "/summary.json");
    const auto sim = read_json(dir + "/sim/" + v + "/summary.json");
    EXPECT_TRUE(real["completed"].get<bool>()) << v;
    EXPECT_EQ(real["updates"], 240) << v;
    EXPECT_NEAR(real["final_test_metric"].get<double>(), sim["final_test_metric"].get<double>(), 0.03) << v;
    EXPECT_LE(real["staleness_max"].get<int>(), std::string(v) == "ssp2" ? 2 : 1000) << v;
    // Every evaluation is kept (clocks 0, 10, ..., 60), however late the scheduler gets to it,
    // and time 0 is the start of training, not of the processes.
    const std::string csv = read_file(dir + "/zmq/" + v + "/metrics.csv");
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 7) << csv;
    const std::string first_row = csv.substr(csv.find('\n') + 1);
    EXPECT_LT(std::stod(first_row.substr(0, first_row.find(','))), 0.5) << csv;
  }
  EXPECT_TRUE(std::filesystem::exists(dir + "/zmq/comparison.csv"));
}

// Runs a longer BSP job over ZeroMQ while `attack(server_endpoints, stop)` runs beside it; the
// final parameters must equal those of an undisturbed run. Returns launch's output.
std::string run_under_attack(const std::string& dir, const std::string& launch_flags,
                             const std::function<void(const std::vector<std::string>&,
                                                      const std::atomic<bool>&)>& attack) {
  auto scenario = toy_bsp(dir, "logistic");
  scenario["training"]["iterations"] = 1500;
  write_json(dir + "/s.json", scenario);
  auto clean = run_pstwin("launch " + dir + "/s.json --transport inproc --out " + dir + "/clean");
  EXPECT_EQ(clean.exit_code, 0) << clean.output;
  auto job = std::async(std::launch::async, [&] {
    return run_pstwin("launch " + dir + "/s.json " + launch_flags + " --out " + dir + "/zmq");
  });
  std::atomic<bool> stop{false};
  std::thread attacker([&] {
    std::vector<std::string> book;
    for (int i = 0; i < 1000 && book.empty() && !stop; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      try {
        book = read_json(dir + "/zmq/bsp/address_book.json").get<std::vector<std::string>>();
      } catch (const std::exception&) {
      }
    }
    if (book.size() >= 3) attack({book[1], book[2]}, stop);
  });
  const auto result = job.get();
  stop = true;
  attacker.join();
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(sha_of(dir + "/zmq", "bsp"), sha_of(dir + "/clean", "bsp"));
  return result.output;
}

// A well-formed push from "worker 0" (node 3) that would wreck the model if it were applied.
std::vector<std::uint8_t> poisoned_push(std::int64_t clock) {
  Message m;
  m.header.type = MsgType::kPush;
  m.header.sender = 3;
  m.header.clock = clock;
  m.header.flags = msg_flags::kWholeRange;
  m.values.assign(11, 1e30f);
  return encode(m);
}

TEST(Launch, NodeWithTheWrongKeyCannotPush) {
  const std::string dir = fresh_dir();
  net::write_key_file(dir + "/job.key", net::make_job_keys());
  const auto job_keys = net::read_key_file(dir + "/job.key");
  const auto output = run_under_attack(
      dir, "--key-file " + dir + "/job.key",
      [&](const std::vector<std::string>& servers, const std::atomic<bool>& stop) {
        zmq::context_t ctx;
        const auto wrong = net::make_job_keys();
        std::vector<zmq::socket_t> sockets;
        for (const auto& ep : servers) {
          zmq::socket_t s(ctx, zmq::socket_type::dealer);
          s.set(zmq::sockopt::routing_id, "n3");
          s.set(zmq::sockopt::linger, 0);
          s.set(zmq::sockopt::curve_serverkey, job_keys.public_z85);
          s.set(zmq::sockopt::curve_publickey, wrong.public_z85);
          s.set(zmq::sockopt::curve_secretkey, wrong.secret_z85);
          s.connect(ep);
          sockets.push_back(std::move(s));
        }
        for (std::int64_t c = 0; !stop && c < 2000; ++c) {
          for (auto& s : sockets) s.send(zmq::buffer(poisoned_push(c)), zmq::send_flags::dontwait);
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
      });
  EXPECT_NE(output.find("refused a connection"), std::string::npos) << output;
}

TEST(Launch, GarbageSentToLiveServersDoesNotDisturbTraining) {
  const std::string dir = fresh_dir();
  const auto output = run_under_attack(
      dir, "--insecure", [](const std::vector<std::string>& servers, const std::atomic<bool>& stop) {
        zmq::context_t ctx;
        std::mt19937 rng(99);
        std::vector<zmq::socket_t> sockets;
        for (const auto& ep : servers)
          for (const char* id : {"n999", "stranger", "n"}) {
            zmq::socket_t s(ctx, zmq::socket_type::dealer);
            s.set(zmq::sockopt::routing_id, id);
            s.set(zmq::sockopt::linger, 0);
            s.connect(ep);
            sockets.push_back(std::move(s));
          }
        for (int i = 0; !stop && i < 5000; ++i) {
          std::vector<std::uint8_t> frame = poisoned_push(i);
          if (i % 2) {
            frame.resize(rng() % 200);
            for (auto& b : frame) b = static_cast<std::uint8_t>(rng());
          }
          sockets[rng() % sockets.size()].send(zmq::buffer(frame), zmq::send_flags::dontwait);
          if (i % 10 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
      });
  EXPECT_NE(output.find("dropped a message"), std::string::npos) << output.substr(0, 2000);
}

TEST(Launch, DivergenceAfterTheWorkersFinishedEndsPromptlyOverZeroMq) {
  // The workers finish, the servers are stopped, and only then does an evaluation show the
  // divergence: the scheduler must not try to stop nodes that are already gone.
  const std::string dir = fresh_dir();
  auto scenario = toy_bsp(dir, "logistic");
  scenario["training"]["iterations"] = 2;
  scenario["training"]["eval_every"] = 1;
  scenario["training"]["learning_rate"] = 1e38;
  write_json(dir + "/s.json", scenario);
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run_pstwin("launch " + dir + "/s.json --out " + dir + "/out");
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(read_json(dir + "/out/bsp/summary.json")["diverged"].get<bool>());
  EXPECT_LT(took, 20.0) << r.output;
}

TEST(Launch, NodeThatCannotReachTheSchedulerExitsWithinItsTimeout) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", toy_bsp(dir, "logistic"));
  const auto t0 = std::chrono::steady_clock::now();
  // Port 9 (discard) on loopback: nothing of ours listens there.
  const auto r = run_pstwin("node --role worker --scheduler tcp://127.0.0.1:9 --insecure "
                            "--connect-timeout 1 " + dir + "/s.json");
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("cannot reach the scheduler at tcp://127.0.0.1:9"), std::string::npos) << r.output;
  EXPECT_LT(took, 10.0);
}

TEST(Launch, AddressInUseIsAClearError) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", toy_bsp(dir, "logistic"));
  // A first scheduler holds the port while it waits for registrations.
  auto first = std::async(std::launch::async, [&] {
    return run_pstwin("node --role scheduler --scheduler tcp://127.0.0.1:* --insecure --connect-timeout 5 "
                      "--endpoint-file " + dir + "/ep --out " + dir + "/a " + dir + "/s.json");
  });
  std::string endpoint;
  for (int i = 0; i < 250 && endpoint.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::ifstream(dir + "/ep") >> endpoint;
  }
  ASSERT_FALSE(endpoint.empty());
  const auto r = run_pstwin("node --role scheduler --scheduler " + endpoint + " --insecure --out " +
                            dir + "/b " + dir + "/s.json");
  // Refused as it starts (tried before anything else), naming the flag, before its folder is taken.
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("pstwin node: --scheduler " + endpoint + " (the scheduler listens there; --bind chooses "
                          "another address): cannot listen at " + endpoint + ": address already in use"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/b"));
  const auto f = first.get();  // times out waiting for registrations
  EXPECT_NE(f.exit_code, 0);
  EXPECT_NE(f.output.find("registered within"), std::string::npos) << f.output;
}

TEST(Launch, NodesRunAJobOverIpv6LoopbackWithTheSimulatedParameters) {
  if (!has_ipv6_loopback()) GTEST_SKIP() << "no IPv6 loopback (::1) on this machine";
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", toy_bsp(dir, "logistic"));
  const std::string s = dir + "/s.json";
  ASSERT_EQ(run_pstwin("simulate " + s + " --quiet --out " + dir + "/sim").exit_code, 0);
  ASSERT_EQ(run_pstwin("keygen " + dir + "/job.key").exit_code, 0);
  const std::string common = " --key-file " + dir + "/job.key --connect-timeout 60 --stall-timeout 60 ";
  // Unbracketed, the address would be ambiguous: refused, saying how to write it.
  const auto bare = run_pstwin("node --role scheduler --scheduler tcp://::1:5570" + common + s);
  EXPECT_EQ(bare.exit_code, 2);
  EXPECT_NE(bare.output.find("put IPv6 literals in brackets, as in tcp://[::1]:5570"), std::string::npos)
      << bare.output;
  auto scheduler = std::async(std::launch::async, [&] {
    return run_pstwin("node --role scheduler --scheduler 'tcp://[::1]:*' --endpoint-file " + dir +
                      "/ep --out " + dir + "/v6" + common + s);
  });
  std::string endpoint;
  for (int i = 0; i < 1500 && endpoint.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::ifstream(dir + "/ep") >> endpoint;
  }
  ASSERT_EQ(endpoint.rfind("tcp://[::1]:", 0), 0u) << endpoint << scheduler.get().output;
  std::vector<std::future<CommandResult>> nodes;
  for (const std::string role : {"server", "server", "worker", "worker", "worker", "worker"})
    nodes.push_back(std::async(std::launch::async, [&, role] {
      return run_pstwin("node --role " + role + " --scheduler '" + endpoint + "'" + common + s);
    }));
  for (auto& n : nodes) {
    const auto r = n.get();
    EXPECT_EQ(r.exit_code, 0) << r.output;
  }
  const auto r = scheduler.get();
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Every node listened on IPv6 loopback (a node's default follows the scheduler's family).
  for (const auto& address : read_json(dir + "/v6/address_book.json"))
    EXPECT_EQ(address.get<std::string>().rfind("tcp://[::1]:", 0), 0u) << address;
  EXPECT_EQ(read_json(dir + "/v6/summary.json")["params_sha256"], sha_of(dir + "/sim", "bsp"));
}

TEST(Launch, NodeNeedsAKeyOrInsecure) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", toy_bsp(dir, "logistic"));
  const auto r = run_pstwin("node --role worker --scheduler tcp://127.0.0.1:9 " + dir + "/s.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--insecure"), std::string::npos) << r.output;
}

TEST(Launch, UcxWithoutInsecureIsRefusedNamingBothFlags) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", toy_bsp(dir, "logistic"));
  for (const std::string& command :
       {"launch " + dir + "/s.json --transport ucx --out " + dir + "/out",
        "node --role worker --scheduler tcp://127.0.0.1:9 --transport ucx --key-file " + dir + "/k " + dir + "/s.json"}) {
    const auto r = run_pstwin(command);
    EXPECT_EQ(r.exit_code, 2) << command;
    EXPECT_NE(r.output.find("--transport ucx needs --insecure: UCX has no authentication"), std::string::npos)
        << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
  // From the environment, the error names the variable the value came from.
  const auto env = run_pstwin_env("PSTWIN_TRANSPORT=ucx", "node --role worker --scheduler tcp://127.0.0.1:9 " +
                                                              dir + "/s.json");
  EXPECT_EQ(env.exit_code, 2) << env.output;
  EXPECT_NE(env.output.find("PSTWIN_TRANSPORT ucx needs --insecure"), std::string::npos) << env.output;
  // PSTWIN_INSECURE=false keeps authentication on (so UCX is still refused), and a value that is
  // neither yes nor no is refused by name rather than taken for a yes.
  const std::string worker = "node --role worker --scheduler tcp://127.0.0.1:9 " + dir + "/s.json";
  const auto no = run_pstwin_env("PSTWIN_TRANSPORT=ucx PSTWIN_INSECURE=false", worker);
  EXPECT_EQ(no.exit_code, 2) << no.output;
  EXPECT_NE(no.output.find("ucx needs --insecure"), std::string::npos) << no.output;
  const auto maybe = run_pstwin_env("PSTWIN_TRANSPORT=ucx PSTWIN_INSECURE=maybe", worker);
  EXPECT_EQ(maybe.exit_code, 2) << maybe.output;
  EXPECT_NE(maybe.output.find("PSTWIN_INSECURE must be 1, true or yes"), std::string::npos) << maybe.output;
}

TEST(Launch, NodesOfAnotherTransportAreTurnedAwaySayingSo) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", toy_bsp(dir, "logistic"));
  // A scheduler of a UCX job; a worker started without --transport ucx registers with it.
  auto scheduler = std::async(std::launch::async, [&] {
    return run_pstwin("node --role scheduler --scheduler tcp://127.0.0.1:* --endpoint-file " + dir +
                      "/ep --transport ucx --insecure --connect-timeout 3 --quiet --out " + dir + "/out " + dir + "/s.json");
  });
  std::string endpoint;
  for (int i = 0; i < 200 && endpoint.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::ifstream in(dir + "/ep");
    in >> endpoint;
  }
  ASSERT_FALSE(endpoint.empty());
  const auto worker = run_pstwin("node --role worker --scheduler " + endpoint + " --insecure --quiet " + dir + "/s.json");
  EXPECT_EQ(worker.exit_code, 2) << worker.output;
  EXPECT_NE(worker.output.find("it runs --transport \"zmq\", the scheduler \"ucx\""), std::string::npos)
      << worker.output;
  scheduler.get();
}

TEST(Launch, NodeSettingsComeFromTheEnvironment) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", toy_bsp(dir, "logistic"));
  const auto r = run_pstwin_env("PSTWIN_ROLE=worker PSTWIN_SCHEDULER=tcp://127.0.0.1:9 PSTWIN_INSECURE=1 "
                                "PSTWIN_CONNECT_TIMEOUT=0.5",
                                "node " + dir + "/s.json");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("cannot reach the scheduler at tcp://127.0.0.1:9 within 0.5"), std::string::npos)
      << r.output;
}

TEST(Launch, HostfileStartsEveryRoleThroughTheSshCommand) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", toy_bsp(dir, "logistic"));
  std::ofstream(dir + "/hosts") << "# two machines\nnodeA slots=4\nnodeB slots=2\n";
  const auto r = run_pstwin_env("FAKE_SSH_LOG=" + dir + "/ssh.log",
                                "launch " + dir + "/s.json --hostfile " + dir + "/hosts --ssh-command " +
                                    PSTWIN_SOURCE_DIR "/tests/fake_ssh.sh --scheduler-host 127.0.0.1 --out " +
                                    dir + "/out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // 2 servers + 4 workers: four on A, two on B (the children log in whatever order they start).
  std::string log = read_file(dir + "/ssh.log");
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 6) << log;
  std::size_t a = 0;
  for (std::size_t at = log.find("nodeA"); at != std::string::npos; at = log.find("nodeA", at + 1)) ++a;
  EXPECT_EQ(a, 4u) << log;
  EXPECT_EQ(sha_of(dir + "/out", "bsp").size(), 64u);
}

TEST(Launch, HostfileWithTooFewSlotsIsRefused) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", toy_bsp(dir, "logistic"));
  std::ofstream(dir + "/hosts") << "nodeA slots=2\nnodeB slots=3\n";
  const auto r = run_pstwin("launch " + dir + "/s.json --hostfile " + dir + "/hosts");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("5 slots for 6 servers and workers"), std::string::npos) << r.output;
}

TEST(Launch, StoppingTheLauncherStopsItsNodes) {
  const std::string dir = fresh_dir();
  auto scenario = toy_bsp(dir, "logistic");
  scenario["training"]["iterations"] = 1000000;  // far longer than the test waits
  write_json(dir + "/long.json", scenario);
  // Only the launcher gets the signal, as with `kill PID`, not the whole process group.
  const std::string script =
      std::string(PSTWIN_BINARY) + " launch " + dir + "/long.json --insecure --out " + dir +
      "/out >/dev/null 2>&1 & LP=$!; sleep 2; kill -TERM $LP; wait $LP; echo rc=$?; sleep 1; "
      "ps -eo args | grep -c '^[^ ]*pstwin node .*" + dir + "/long.json'";
  FILE* pipe = popen(script.c_str(), "r");  // popen runs it with sh
  ASSERT_TRUE(pipe);
  std::string out;
  char buf[256];
  while (std::size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  pclose(pipe);
  EXPECT_NE(out.find("rc=143"), std::string::npos) << out;
  EXPECT_EQ(out.substr(out.find('\n') + 1), "0\n") << "node processes left running:\n" << out;
}

TEST(Launch, BadHostfileIsAClearError) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", toy_bsp(dir, "logistic"));
  std::ofstream(dir + "/hosts") << "nodeA slots=two\n";
  const auto r = run_pstwin("launch " + dir + "/s.json --hostfile " + dir + "/hosts");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("hosts:1: slots must be a positive integer"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace pstwin
