// pstwin launch and pstwin node when a job cannot start or a node does not belong: the summary
// of a job that never started, and a node with another scenario turned away by name.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <future>
#include <regex>
#include <thread>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

nlohmann::json small_bsp(const std::string& dir) {
  auto s = toy_scenario(dir);
  s["consistency"] = nlohmann::json::parse(R"([{"mode": "bsp"}])");
  return s;
}

/// The toy scenario with 1 server and 1 worker, written to DIR/s.json; returns that path.
std::string one_server_one_worker(const std::string& dir) {
  auto scenario = small_bsp(dir);
  scenario["cluster"]["servers"] = 1;
  scenario["cluster"]["workers"] = 1;
  write_json(dir + "/s.json", scenario);
  return dir + "/s.json";
}

std::string seconds(double s) { return std::to_string(s * time_scale()); }

/// Waits (boundedly) for the endpoint a scheduler writes with --endpoint-file.
std::string endpoint_in(const std::string& path) {
  std::string endpoint;
  for (int i = 0; i < 3000 && endpoint.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::ifstream(path) >> endpoint;
  }
  return endpoint;
}

TEST(LaunchNodes, AJobThatCannotStartStillWritesItsSummary) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", small_bsp(dir));
  // The "ssh" command fails at once: no server or worker ever starts, deterministically, and the
  // launcher stops the scheduler at once rather than letting it wait out its connect timeout.
  std::ofstream(dir + "/hosts") << "nodeA slots=6\n";
  const auto r = run_pstwin("launch " + dir + "/s.json --hostfile " + dir +
                            "/hosts --ssh-command false --scheduler-host 127.0.0.1 --connect-timeout " +
                            seconds(1) + " --out " + dir + "/out");
  ASSERT_NE(r.exit_code, 0) << r.output;
  ASSERT_TRUE(std::filesystem::exists(dir + "/out/bsp/summary.json")) << r.output;
  const auto summary = read_json(dir + "/out/bsp/summary.json");
  EXPECT_FALSE(summary["completed"].get<bool>());
  EXPECT_EQ(summary["variant"], "bsp");
  EXPECT_EQ(summary["environment"], "zmq");
  const std::string reason = summary["reason"].get<std::string>();
  // Every node's "ssh" fails at once: whichever the launcher reaps first is named.
  EXPECT_TRUE(std::regex_search(reason, std::regex("^(server|worker):[0-9]+ exited with status 1 before the job started")))
      << reason;
  EXPECT_NE(reason.find("the scheduler was stopped by SIGTERM before the job started"), std::string::npos) << reason;
  // No clock ran, so no figure is written (a trial's table showed 0 updates and 0 s beside the
  // other variants' "-"); what it does say is named as a simulated run's summary names it.
  for (const char* figure : {"updates", "final_clock", "wall_time_s", "staleness_mean", "final_test_metric", "progress"})
    EXPECT_FALSE(summary.contains(figure)) << figure << " in " << summary.dump(2);
  write_json(dir + "/diverging.json", [&] {
    auto s = small_bsp(dir);
    s["training"]["learning_rate"] = 1e38;
    return s;
  }());
  ASSERT_EQ(run_pstwin("simulate " + dir + "/diverging.json --quiet --out " + dir + "/sim").exit_code, 0);
  const auto simulated = read_json(dir + "/sim/bsp/summary.json");
  for (const char* key : {"scenario", "variant", "mode", "workers", "servers", "metric", "target_metric", "completed", "reason"}) {
    EXPECT_TRUE(summary.contains(key)) << key << " in " << summary.dump(2);
    EXPECT_TRUE(simulated.contains(key)) << key;
  }
  EXPECT_EQ(summary["scenario"], simulated["scenario"]);
  EXPECT_EQ(summary["metric"], simulated["metric"]);
}

TEST(LaunchNodes, ANodeWithAnotherBatchSizeIsTurnedAwayAndTheJobRunsWithARightOne) {
  const std::string dir = fresh_dir();
  const std::string s = one_server_one_worker(dir);
  ASSERT_EQ(run_pstwin("simulate " + s + " --quiet --out " + dir + "/sim").exit_code, 0);
  const std::string common = " --insecure --connect-timeout " + seconds(60) + " --stall-timeout " +
                             seconds(60) + " ";
  auto scheduler = std::async(std::launch::async, [&] {
    return run_pstwin("node --role scheduler --scheduler tcp://127.0.0.1:* --endpoint-file " + dir +
                      "/ep --out " + dir + "/real" + common + s);
  });
  const std::string endpoint = endpoint_in(dir + "/ep");
  ASSERT_FALSE(endpoint.empty()) << scheduler.get().output;
  auto server = std::async(std::launch::async, [&] {
    return run_pstwin("node --role server --scheduler " + endpoint + common + s);
  });
  // Another batch size, and another data folder (which may differ): turned away by name, at once.
  const auto wrong = run_pstwin("node --role worker --scheduler " + endpoint + common +
                                "--set /training/batch_size=16 --set '/output={\"dir\": \"" + dir + "/elsewhere\"}' " + s);
  EXPECT_EQ(wrong.exit_code, 2) << wrong.output;
  EXPECT_NE(wrong.output.find("turned this node away"), std::string::npos) << wrong.output;
  EXPECT_NE(wrong.output.find("/training/batch_size (the scheduler's: 32, this node's: 16)"),
            std::string::npos)
      << wrong.output;
  // The scheduler kept the slot for a right one.
  const auto right = run_pstwin("node --role worker --scheduler " + endpoint + common + s);
  EXPECT_EQ(right.exit_code, 0) << right.output;
  EXPECT_NE(right.output.find("pstwin node worker: read 2000 training rows"), std::string::npos)
      << right.output;
  const auto srv = server.get();
  EXPECT_EQ(srv.exit_code, 0) << srv.output;
  // A server reads no data at all: its model's shape comes with the address book.
  EXPECT_NE(srv.output.find("pstwin node server: reads no data"), std::string::npos) << srv.output;
  EXPECT_EQ(srv.output.find("rows in"), std::string::npos) << srv.output;
  const auto sched = scheduler.get();
  ASSERT_EQ(sched.exit_code, 0) << sched.output;
  EXPECT_NE(sched.output.find("refused worker at"), std::string::npos) << sched.output;
  EXPECT_NE(sched.output.find("/training/batch_size"), std::string::npos) << sched.output;
  // The scheduler ends with the comparison table of its variant.
  EXPECT_NE(sched.output.find("final test accuracy"), std::string::npos) << sched.output;
  EXPECT_TRUE(read_json(dir + "/real/summary.json")["completed"].get<bool>());
  EXPECT_EQ(read_json(dir + "/real/summary.json")["params_sha256"], sha_of(dir + "/sim", "bsp"));
}

TEST(LaunchNodes, ANodeWithADataFileOfAnotherSizeIsTurnedAway) {
  const std::string dir = fresh_dir();
  one_server_one_worker(dir);
  // The same file name in another folder, one line shorter.
  std::filesystem::create_directories(dir + "/other");
  {
    std::ifstream in(dir + "/train.svm");
    std::ofstream out(dir + "/other/train.svm");
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) out << line << "\n";
  }
  const std::string common = " --insecure --connect-timeout " + seconds(30) + " ";
  auto scheduler = std::async(std::launch::async, [&] {
    return run_pstwin("node --role scheduler --scheduler tcp://127.0.0.1:* --endpoint-file " + dir +
                      "/ep --out " + dir + "/real --connect-timeout " + seconds(5) + " --insecure " + dir +
                      "/s.json");
  });
  const std::string endpoint = endpoint_in(dir + "/ep");
  ASSERT_FALSE(endpoint.empty()) << scheduler.get().output;
  const auto wrong = run_pstwin("node --role worker --scheduler " + endpoint + common +
                                "--set /data/train=" + dir + "/other/train.svm " + dir + "/s.json");
  EXPECT_EQ(wrong.exit_code, 2) << wrong.output;
  EXPECT_NE(wrong.output.find("differs at /data/train"), std::string::npos) << wrong.output;
  // No right node comes: the scheduler gives up, naming who is missing.
  const auto sched = scheduler.get();
  EXPECT_EQ(sched.exit_code, 1) << sched.output;
  EXPECT_NE(sched.output.find("missing: server:0, worker:0"), std::string::npos) << sched.output;
  EXPECT_FALSE(read_json(dir + "/real/summary.json")["completed"].get<bool>());
}

TEST(LaunchNodes, AWorkerThatCannotReadItsDataEndsTheJobAtOnceSayingWhy) {
  const std::string dir = fresh_dir();
  const std::string s = one_server_one_worker(dir);
  // The same size as the scheduler's training file (so the fingerprint agrees), a bad label.
  std::string bytes = read_file(dir + "/train.svm");
  bytes[0] = 'x';
  std::ofstream(dir + "/bad.svm") << bytes;
  const std::string common = " --insecure --connect-timeout " + seconds(60) + " --stall-timeout " +
                             seconds(120) + " ";
  auto scheduler = std::async(std::launch::async, [&] {
    return run_pstwin("node --role scheduler --scheduler tcp://127.0.0.1:* --endpoint-file " + dir +
                      "/ep --out " + dir + "/real" + common + s);
  });
  const std::string endpoint = endpoint_in(dir + "/ep");
  ASSERT_FALSE(endpoint.empty()) << scheduler.get().output;
  // No server is started: the worker's failure alone must end the wait.
  const auto worker = run_pstwin("node --role worker --scheduler " + endpoint + common +
                                 "--set /data/train=" + dir + "/bad.svm " + s);
  EXPECT_EQ(worker.exit_code, 2) << worker.output;
  EXPECT_NE(worker.output.find("bad data"), std::string::npos) << worker.output;
  // The scheduler hears why instead of waiting out its timeouts (which would say "only 0 of 1
  // servers ...").
  const auto sched = scheduler.get();
  EXPECT_EQ(sched.exit_code, 2) << sched.output;  // bad input, though not its own
  EXPECT_NE(sched.output.find("worker:0 could not read its data"), std::string::npos) << sched.output;
  const auto summary = read_json(dir + "/real/summary.json");
  EXPECT_FALSE(summary["completed"].get<bool>());
  EXPECT_NE(summary["reason"].get<std::string>().find("worker:0 could not read its data"), std::string::npos);
}

}  // namespace
}  // namespace pstwin
