// A what-if on the number of servers changes the time a job takes, never its mathematics: every
// random stream of a node follows its role and index, not its node id, which shifts with the
// number of servers (runtime/job_layout.h, role_stream_seed).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "runtime/job_layout.h"
#include "runtime/rng.h"
#include "runtime/scenario/failure_schedule.h"
#include "runtime/scenario/scenario.h"
#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using json = nlohmann::json;
using namespace testing_support;

/// The toy logistic job under BSP with 2 workers and mini-batches of one example, where each
/// worker's shuffle decides every step: the case where 1, 2 and 3 servers gave three losses.
json two_workers_batch_one(const std::string& dir) {
  json s = toy_scenario(dir);
  s["consistency"] = json::array({{{"mode", "bsp"}}});
  s["cluster"]["workers"] = 2;
  s["training"]["batch_size"] = 1;
  return s;
}

TEST(ServersWhatIf, BspEndsWithTheSameParametersWithOneTwoOrFourServers) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", two_workers_batch_one(dir));
  std::set<std::string> hashes;
  for (const int servers : {1, 2, 4}) {
    const std::string out = dir + "/sim-" + std::to_string(servers);
    const auto r = run_pstwin("simulate " + dir + "/s.json --quiet --out " + out +
                              " --set /cluster/servers=" + std::to_string(servers));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    hashes.insert(sha_of(out, "bsp"));
    const std::string threads = dir + "/inproc-" + std::to_string(servers);
    const auto t = run_pstwin("launch " + dir + "/s.json --transport inproc --out " + threads +
                              " --set /cluster/servers=" + std::to_string(servers));
    ASSERT_EQ(t.exit_code, 0) << t.output;
    hashes.insert(sha_of(threads, "bsp"));
  }
  EXPECT_EQ(hashes.size(), 1u) << "the server count changed the parameters";
  EXPECT_EQ(hashes.begin()->size(), 64u);
}

TEST(ServersWhatIf, ANodesRoleStreamFollowsItsRoleAndIndex) {
  // Worker 0 is node 2 with 1 server and node 5 with 4: one seed for both.
  const JobLayout one{1, 2}, four{4, 2};
  EXPECT_EQ(role_stream_seed(9, one, one.worker(0)), role_stream_seed(9, four, four.worker(0)));
  EXPECT_EQ(role_stream_seed(9, one, one.worker(0)), role_stream_seed(9, NodeRole::kWorker, 0));
  // Distinct nodes, distinct streams; another seed, another stream.
  EXPECT_NE(role_stream_seed(9, NodeRole::kWorker, 0), role_stream_seed(9, NodeRole::kWorker, 1));
  EXPECT_NE(role_stream_seed(9, NodeRole::kWorker, 0), role_stream_seed(9, NodeRole::kServer, 0));
  EXPECT_NE(role_stream_seed(9, NodeRole::kWorker, 0), role_stream_seed(10, NodeRole::kWorker, 0));
  EXPECT_EQ(role_stream_seed(9, NodeRole::kWorker, 0),
            Rng::derive_seed(9, std::uint64_t{2} << 32, 0));
}

TEST(ServersWhatIf, RandomWorkerFailuresDoNotMoveWithTheServerCount) {
  const std::string dir = fresh_dir();
  json d = two_workers_batch_one(dir);
  d["fault_tolerance"] = {{"replication", 1}};
  d["failures"] = json::parse(R"([{"random": "workers", "mtbf": "10s", "repair": "1s"}])");
  d["cluster"]["servers"] = 1;
  const auto with_one = failure_schedule(parse_scenario(d), 100.0);
  d["cluster"]["servers"] = 4;
  const auto with_four = failure_schedule(parse_scenario(d), 100.0);
  ASSERT_GT(with_one.size(), 2u);
  EXPECT_EQ(with_one, with_four);
}

}  // namespace
}  // namespace pstwin
