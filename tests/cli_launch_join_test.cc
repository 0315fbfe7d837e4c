// A server joining a running real job over ZeroMQ: `pstwin launch` starts the joining server's
// process at its "at", the scheduler rebuilds the consistent-hash ring and hands the new server
// its blocks, and BSP ends with the parameters of the run without the join. A server the
// scenario does not declare joining is turned away.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <string>
#include <thread>

#include "runtime/hash_ring.h"

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using json = nlohmann::json;
using namespace testing_support;

/// The toy logistic job, BSP on 3 servers, one key per block of a 20-virtual-node ring, with
/// heartbeats (a join needs them); 1,000 clocks last over a second over ZeroMQ here, so a server
/// joining at 0.3 s lands mid-run.
json ring_bsp(const std::string& dir) {
  json s = toy_scenario(dir);
  s["consistency"] = json::array({{{"mode", "bsp"}}});
  s.erase("stragglers");
  s["training"]["iterations"] = 1000;
  s["training"]["eval_every"] = 500;
  s["cluster"]["servers"] = 3;
  s["partition"] = {{"scheme", "consistent_hash"}, {"virtual_nodes", 20}, {"block_keys", 1}};
  return with_fault_tolerance(std::move(s), 1, scaled_duration(0.05), scaled_duration(1.0));
}

/// Waits up to `seconds` for `path` to exist.
bool appears(const std::string& path, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!std::filesystem::exists(path)) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

TEST(LaunchJoin, AFourthServerJoiningOverZeroMqTakesOnlyItsBlocksAndBspParametersStayTheSame) {
  const std::string dir = fresh_dir();
  const json fixed = ring_bsp(dir);
  const std::string clean = simulate(dir, fixed);

  json joining = fixed;
  joining["cluster"]["servers"] = 4;
  joining["failures"] = json::array({{{"join", "server"}, {"at", scaled_duration(0.3)}}});
  write_json(dir + "/join.json", joining);
  auto launched = std::async(std::launch::async, [&] {
    return run_pstwin("launch " + dir + "/join.json --out " + dir + "/join");
  });

  // While the job runs, a server started by hand with --join but an index the scenario does not
  // declare joining (server:1 is there from the start) is turned away, saying which ones join.
  const std::string out = dir + "/join/bsp";
  ASSERT_TRUE(appears(out + "/address_book.json", 30 * time_scale()));
  std::string endpoint = read_file(out + "/scheduler.endpoint");
  endpoint.erase(endpoint.find_last_not_of("\n") + 1);
  const auto refused = run_pstwin("node " + dir + "/join.json --role server --index 1 --join --quiet --scheduler " +
                                  endpoint + " --key-file " + out + "/job.key");
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("server:1 cannot join: it is not a joining server of this job (the "
                                "scenario's joining servers are server:3)"),
            std::string::npos)
      << refused.output;

  const auto r = launched.get();
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json summary = read_json(out + "/summary.json");
  EXPECT_EQ(summary["params_sha256"], sha_of(clean, "bsp"));
  EXPECT_EQ(summary["updates"], 4000);  // 4 workers x 1,000 clocks, each applied once
  // The same join simulated ends the same way.
  ASSERT_EQ(run_pstwin("simulate " + dir + "/join.json --quiet --out " + dir + "/simulated").exit_code, 0);
  EXPECT_EQ(sha_of(dir + "/simulated", "bsp"), sha_of(clean, "bsp"));

  const auto started = events_of(out, "node_started");
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0]["node"], "server:3");
  const auto join = events_of(out, "server_joined");
  ASSERT_EQ(join.size(), 1u);
  EXPECT_EQ(join[0]["node"], "server:3");
  EXPECT_LT(join[0]["time_s"].get<double>(), summary["sim_time_s"].get<double>());  // mid-run (the job's clock)
  // Exactly the blocks the ring with server 3 gives it (21 keys, one per block); no other moves.
  const HashRing three({0, 1, 2}, 20), four({0, 1, 2, 3}, 20);
  std::uint64_t own = 0;
  for (std::uint64_t b = 0; b < 21; ++b) {
    if (four.owner(b) == 3) ++own;
    else EXPECT_EQ(four.owner(b), three.owner(b));
  }
  ASSERT_GT(own, 0u);
  EXPECT_EQ(join[0]["keys_moving"], own);
  const auto moved = events_of(out, "range_moved");
  EXPECT_EQ(moved.size(), own);
  for (const auto& m : moved) {
    EXPECT_EQ(m["server"], "server:3");
    EXPECT_EQ(four.owner(m["range"].get<std::uint64_t>()), 3u) << m.dump();
  }
  EXPECT_GT(summary["server_load"]["per_server"][3]["requests"].get<double>(), 0);
  EXPECT_TRUE(events_of(out, "node_dead").empty());
}

TEST(LaunchJoin, AServerDeclaredJoiningCannotRegisterBeforeTheJobRuns) {
  // The launcher starts it at its "at"; started by hand into the rendezvous, it is told why.
  const std::string dir = fresh_dir();
  json s = ring_bsp(dir);
  s["cluster"]["servers"] = 4;
  s["failures"] = json::array({{{"join", "server"}, {"at", "1s"}}});
  write_json(dir + "/s.json", s);
  auto scheduler = std::async(std::launch::async, [&] {
    return run_pstwin("node " + dir + "/s.json --role scheduler --insecure --quiet --scheduler tcp://127.0.0.1:*"
                      " --connect-timeout " + std::to_string(2 * time_scale()) + " --endpoint-file " + dir + "/endpoint --out " + dir + "/out");
  });
  ASSERT_TRUE(appears(dir + "/endpoint", 30 * time_scale()));
  std::string endpoint = read_file(dir + "/endpoint");
  endpoint.erase(endpoint.find_last_not_of("\n") + 1);
  const auto r = run_pstwin("node " + dir + "/s.json --role server --index 3 --insecure --quiet --scheduler " + endpoint);
  scheduler.get();  // gives up after its connect timeout: nobody else came
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("server:3 joins the running job"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace pstwin
