// Scenario keys of matrix factorisation (model "mf": rank, l2, init_scale) and of ratings data
// (format "ratings": file, test_fraction): values, defaults, strict errors with their JSON
// pointers, and prepare_training on a small ratings file (split, model, partition, metric).
#include <gtest/gtest.h>

#include "tests/scenario_test_support.h"
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "runtime/data/ratings.h"
#include "runtime/errors.h"
#include "runtime/job_setup.h"
#include "runtime/scenario/scenario.h"

namespace pstwin {
namespace {

using testing_support::error_message;
using testing_support::error_pointer;

using nlohmann::json;

json mf_scenario() {
  return json::parse(R"({
    "name": "mf", "seed": 4,
    "data": {"format": "ratings", "file": "/d/ratings.csv", "test_fraction": 0.2,
             "partition": "shuffled"},
    "model": {"type": "mf", "rank": 8, "l2": 0.05, "init_scale": 0.2},
    "training": {"iterations": 10, "batch_size": 4, "learning_rate": 1.0, "target_metric": 0.9},
    "consistency": [{"mode": "bsp"}],
    "cluster": {"workers": 2, "servers": 2,
                "worker": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}},
                "server": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}}}
  })");
}


TEST(ScenarioMf, ReadsRankL2InitScaleFileAndTestFraction) {
  const Scenario s = parse_scenario(mf_scenario());
  EXPECT_EQ(s.model.type, "mf");
  EXPECT_EQ(s.model.rank, 8u);
  EXPECT_DOUBLE_EQ(s.model.l2, 0.05);
  EXPECT_DOUBLE_EQ(s.model.init_scale, 0.2);
  EXPECT_EQ(s.data->format, "ratings");
  EXPECT_EQ(s.data->file, "/d/ratings.csv");
  EXPECT_DOUBLE_EQ(s.data->test_fraction, 0.2);

  json d = mf_scenario();
  d["data"].erase("test_fraction");
  d["model"].erase("init_scale");
  const Scenario defaults = parse_scenario(d);
  EXPECT_DOUBLE_EQ(defaults.data->test_fraction, 0.1);
  EXPECT_DOUBLE_EQ(defaults.model.init_scale, 0.1);
}

TEST(ScenarioMf, EveryMistakeNamesItsPointer) {
  auto with = [](const std::function<void(json&)>& edit) {
    json d = mf_scenario();
    edit(d);
    return error_pointer(d);
  };
  EXPECT_EQ(with([](json& d) { d["model"].erase("rank"); }), "/model/rank");
  EXPECT_EQ(with([](json& d) { d["model"]["rank"] = 0; }), "/model/rank");
  EXPECT_EQ(with([](json& d) { d["model"]["rank"] = "8"; }), "/model/rank");
  EXPECT_EQ(with([](json& d) { d["model"]["init_scale"] = -1; }), "/model/init_scale");
  EXPECT_EQ(with([](json& d) { d["model"]["l2"] = -0.1; }), "/model/l2");
  EXPECT_EQ(with([](json& d) { d["model"]["hidden"] = json::array({4}); }), "/model/hidden");
  EXPECT_EQ(with([](json& d) { d["data"].erase("file"); }), "/data/file");
  EXPECT_EQ(with([](json& d) { d["data"]["test_fraction"] = 0; }), "/data/test_fraction");
  EXPECT_EQ(with([](json& d) { d["data"]["test_fraction"] = 1; }), "/data/test_fraction");
  EXPECT_EQ(with([](json& d) { d["data"]["train"] = "x"; }), "/data/train");
  EXPECT_EQ(with([](json& d) { d["data"]["test_labels"] = "x"; }), "/data/test_labels");
  // Ratings feed exactly the mf model, and mf reads only ratings.
  EXPECT_EQ(with([](json& d) { d["model"] = {{"type", "logistic"}}; }), "/model/type");
  EXPECT_EQ(with([](json& d) {
              d["data"] = {{"format", "libsvm"}, {"train", "a"}, {"test", "b"}};
            }),
            "/data/format");
  // The mf keys belong to mf only, and the ratings keys to ratings only.
  EXPECT_EQ(with([](json& d) {
              d["model"] = {{"type", "logistic"}, {"rank", 3}};
              d["data"] = {{"format", "libsvm"}, {"train", "a"}, {"test", "b"}};
            }),
            "/model/rank");
  EXPECT_EQ(with([](json& d) {
              d["model"] = {{"type", "logistic"}};
              d["data"] = {{"format", "libsvm"}, {"train", "a"}, {"test", "b"}, {"file", "c"}};
            }),
            "/data/file");
}

TEST(ScenarioMf, PrepareTrainingSplitsTheFileAndBuildsASparseModel) {
  const auto dir = std::filesystem::path(::testing::TempDir()) /
                   ("pstwin_scenario_mf_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string text = "movieId,userId,rating\n";
  for (int j = 0; j < 50; ++j)
    text += std::to_string(100 + j % 9) + "," + std::to_string(j % 6) + "," + std::to_string(1 + j % 5) + "\n";
  std::ofstream(dir / "r.csv") << text;
  json doc = mf_scenario();
  doc["data"]["file"] = (dir / "r.csv").string();
  const Scenario s = parse_scenario(doc);
  const PreparedTraining p = prepare_training(s);
  std::filesystem::remove_all(dir);

  ASSERT_TRUE(p.train && p.test && p.model);
  EXPECT_EQ(p.train->rows, 40u);
  EXPECT_EQ(p.test->rows, 10u);
  EXPECT_EQ(p.model->name(), "mf");
  EXPECT_TRUE(p.model->sparse());
  EXPECT_EQ(p.model->num_parameters(), (6u + 9u) * 9u);
  ASSERT_EQ(p.worker_rows.size(), 2u);
  EXPECT_EQ(p.worker_rows[0].size() + p.worker_rows[1].size(), 40u);
  const MetricGoal goal = metric_goal(p);
  EXPECT_EQ(goal.name, "rmse");
  EXPECT_FALSE(goal.higher_is_better);
  const JobSpec spec = make_job_spec(s, s.consistency[0], p);
  EXPECT_TRUE(spec.sparse());
  EXPECT_EQ(spec.values_per_key(), 9u);
  EXPECT_EQ(spec.num_keys(), 15u);
}

}  // namespace
}  // namespace pstwin
