// Strict scenario validation (runtime/scenario/scenario.h): values, error pointers, overrides,
// and the scenario files shipped in scenarios/.
#include "runtime/scenario/scenario.h"

#include <gtest/gtest.h>

#include "tests/scenario_test_support.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "runtime/errors.h"

namespace pstwin {
namespace {

using testing_support::error_message;
using testing_support::error_pointer;

using nlohmann::json;
namespace fs = std::filesystem;

/// A scenario using every section. Data paths are absolute so that no resolution happens.
json full_scenario() {
  return json::parse(R"({
    "name": "full-1",
    "seed": 42,
    "data": {"format": "idx", "train": "/d/train-images", "train_labels": "/d/train-labels",
             "test": "/d/test-images", "test_labels": "/d/test-labels", "partition": "shuffled",
             "train_eval_rows": 500},
    "model": {"type": "softmax", "l2": 1e-4},
    "training": {"iterations": 300, "batch_size": 64, "learning_rate": 0.5, "optimizer": "momentum",
                 "momentum": 0.8, "eval_every": 10, "target_metric": 0.8},
    "consistency": [{"mode": "bsp"}, {"mode": "asp"}, {"mode": "ssp", "staleness": 3},
                    {"mode": "bsp", "backup_workers": 2}, {"mode": "ssp", "staleness": 0, "name": "ssp-zero"}],
    "cluster": {"workers": 8, "servers": 2,
                "worker": {"device": "v100", "link": {"bandwidth": "10Gbps", "latency": "50us"}},
                "server": {"device": {"flops": "15TFlops", "bandwidth": "900GBps"},
                           "link": {"bandwidth": "1GBps", "latency": "1ms"}}},
    "stragglers": [{"type": "slow", "workers": [3, 5], "factor": 1.5, "start": "10s", "end": "20s"},
                   {"type": "transient", "probability": 0.05, "factor": 4, "iterations": 2},
                   {"type": "lognormal", "mu": 0.1, "sigma": 0.2, "workers": [0]}],
    "failures": [],
    "output": {"dir": "/tmp/out"}
  })");
}



TEST(Scenario, FullScenarioParsesToTheRightValues) {
  const Scenario s = parse_scenario(full_scenario());
  EXPECT_EQ(s.name, "full-1");
  EXPECT_EQ(s.seed, 42u);
  ASSERT_TRUE(s.data.has_value());
  EXPECT_EQ(s.data->format, "idx");
  EXPECT_EQ(s.data->train, "/d/train-images");
  EXPECT_EQ(s.data->train_labels, "/d/train-labels");
  EXPECT_EQ(s.data->test, "/d/test-images");
  EXPECT_EQ(s.data->test_labels, "/d/test-labels");
  EXPECT_EQ(s.data->partition, "shuffled");
  EXPECT_EQ(s.data->train_eval_rows, 500u);

  EXPECT_EQ(s.model.type, "softmax");
  EXPECT_DOUBLE_EQ(s.model.l2, 1e-4);

  EXPECT_EQ(s.training.iterations, 300u);
  EXPECT_EQ(s.training.batch_size, 64u);
  EXPECT_DOUBLE_EQ(s.training.learning_rate, 0.5);
  EXPECT_EQ(s.training.optimizer, "momentum");
  EXPECT_DOUBLE_EQ(s.training.momentum, 0.8);
  EXPECT_EQ(s.training.eval_every, 10u);
  ASSERT_TRUE(s.training.target_metric.has_value());
  EXPECT_DOUBLE_EQ(*s.training.target_metric, 0.8);

  ASSERT_EQ(s.consistency.size(), 5u);
  EXPECT_EQ(s.consistency[0].name, "bsp");
  EXPECT_EQ(s.consistency[0].config.mode, ConsistencyMode::kBsp);
  EXPECT_EQ(s.consistency[1].name, "asp");
  EXPECT_EQ(s.consistency[1].config.mode, ConsistencyMode::kAsp);
  EXPECT_EQ(s.consistency[2].name, "ssp3");
  EXPECT_EQ(s.consistency[2].config.mode, ConsistencyMode::kSsp);
  EXPECT_EQ(s.consistency[2].config.staleness, 3);
  EXPECT_EQ(s.consistency[3].name, "bsp-b2");
  EXPECT_EQ(s.consistency[3].config.backup_workers, 2);
  EXPECT_EQ(s.consistency[4].name, "ssp-zero");
  EXPECT_EQ(s.consistency[4].config.staleness, 0);

  EXPECT_EQ(s.cluster.workers, 8u);
  EXPECT_EQ(s.cluster.servers, 2u);
  EXPECT_EQ(s.cluster.worker.device.name, "v100");
  EXPECT_DOUBLE_EQ(s.cluster.worker.device.peak_flops, device_preset("v100")->peak_flops);
  EXPECT_DOUBLE_EQ(s.cluster.worker.link.bandwidth_Bps, 1.25e9);
  EXPECT_DOUBLE_EQ(s.cluster.worker.link.latency_s, 5e-5);
  EXPECT_EQ(s.cluster.server.device.name, "custom");
  EXPECT_DOUBLE_EQ(s.cluster.server.device.peak_flops, 1.5e13);
  EXPECT_DOUBLE_EQ(s.cluster.server.device.mem_bandwidth_Bps, 9e11);
  EXPECT_DOUBLE_EQ(s.cluster.server.link.bandwidth_Bps, 1e9);
  EXPECT_DOUBLE_EQ(s.cluster.server.link.latency_s, 1e-3);

  ASSERT_EQ(s.stragglers.size(), 3u);
  EXPECT_EQ(s.stragglers[0].kind, StragglerSpec::Kind::kSlowWorkers);
  EXPECT_EQ(s.stragglers[0].workers, (std::vector<std::uint32_t>{3, 5}));
  EXPECT_DOUBLE_EQ(s.stragglers[0].factor, 1.5);
  EXPECT_DOUBLE_EQ(s.stragglers[0].start_s, 10.0);
  EXPECT_DOUBLE_EQ(s.stragglers[0].end_s, 20.0);
  EXPECT_EQ(s.stragglers[1].kind, StragglerSpec::Kind::kTransient);
  EXPECT_DOUBLE_EQ(s.stragglers[1].probability, 0.05);
  EXPECT_DOUBLE_EQ(s.stragglers[1].factor, 4.0);
  EXPECT_EQ(s.stragglers[1].iterations, 2u);
  EXPECT_TRUE(s.stragglers[1].workers.empty());
  EXPECT_EQ(s.stragglers[2].kind, StragglerSpec::Kind::kLognormal);
  EXPECT_DOUBLE_EQ(s.stragglers[2].mu, 0.1);
  EXPECT_DOUBLE_EQ(s.stragglers[2].sigma, 0.2);
  EXPECT_EQ(s.stragglers[2].workers, (std::vector<std::uint32_t>{0}));

  EXPECT_EQ(s.output.dir, "/tmp/out");
  EXPECT_EQ(s.source, full_scenario());
}

TEST(Scenario, DefaultsWhenOptionalKeysAreAbsent) {
  json d = full_scenario();
  d["data"].erase("partition");
  d["data"].erase("train_eval_rows");
  d["model"].erase("l2");
  for (const char* k : {"optimizer", "momentum", "eval_every", "target_metric"}) d["training"].erase(k);
  d["stragglers"] = json::array({{{"type", "slow"}, {"workers", {1}}, {"factor", 2}},
                                 {{"type", "transient"}, {"probability", 0.1}, {"factor", 2}}});
  d.erase("failures");
  d.erase("output");
  const Scenario s = parse_scenario(d);
  EXPECT_EQ(s.data->partition, "contiguous");
  EXPECT_EQ(s.data->train_eval_rows, 10000u);
  EXPECT_EQ(s.model.l2, 0.0);
  EXPECT_EQ(s.training.optimizer, "sgd");
  EXPECT_EQ(s.training.eval_every, 10u);
  EXPECT_FALSE(s.training.target_metric.has_value());
  EXPECT_EQ(s.stragglers[0].start_s, 0.0);
  EXPECT_TRUE(std::isinf(s.stragglers[0].end_s));
  EXPECT_EQ(s.stragglers[1].iterations, 1u);
  EXPECT_EQ(s.output.dir, "runs/full-1");
}

TEST(Scenario, SyntheticModelNeedsNoDataBatchOrLearningRate) {
  json d = full_scenario();
  d.erase("data");
  d["model"] = {{"type", "synthetic"}, {"parameters", 1e7}, {"flops_per_iteration", 1e10},
                {"bytes_per_iteration", 4e7}};
  d["training"] = {{"iterations", 20}, {"eval_every", 5}};
  const Scenario s = parse_scenario(d);
  EXPECT_FALSE(s.data.has_value());
  EXPECT_EQ(s.model.parameters, 10000000u);
  EXPECT_DOUBLE_EQ(s.model.flops_per_iteration, 1e10);
  EXPECT_DOUBLE_EQ(s.model.bytes_per_iteration, 4e7);
}

/// One invalid input: what to break, and where the error must point.
struct BadCase {
  const char* what;
  std::function<void(json&)> mutate;
  const char* pointer;
};

TEST(Scenario, InvalidInputsNameTheExactPointer) {
  const std::vector<BadCase> cases = {
      {"document not an object", [](json& d) { d = json::array(); }, ""},
      {"unknown top-level key", [](json& d) { d["nmae"] = "x"; }, "/nmae"},
      {"unknown key in cluster", [](json& d) { d["cluster"]["wrokers"] = 8; }, "/cluster/wrokers"},
      {"unknown key deep", [](json& d) { d["cluster"]["worker"]["link"]["jitter"] = "1us"; },
       "/cluster/worker/link/jitter"},
      {"key needing escapes", [](json& d) { d["model"]["a/b~c"] = 1; }, "/model/a~1b~0c"},
      {"missing name", [](json& d) { d.erase("name"); }, "/name"},
      {"bad name chars", [](json& d) { d["name"] = "my run"; }, "/name"},
      {"name only dots", [](json& d) { d["name"] = ".."; }, "/name"},
      {"seed negative", [](json& d) { d["seed"] = -1; }, "/seed"},
      {"iterations past 2^63", [](json& d) { d["training"]["iterations"] = 9223372036854775808ULL; },
       "/training/iterations"},
      {"iterations over a billion", [](json& d) { d["training"]["iterations"] = 2000000000; },
       "/training/iterations"},
      {"two million workers", [](json& d) { d["cluster"]["workers"] = 2000000; }, "/cluster/workers"},
      {"variant named like an output file",
       [](json& d) { d["consistency"][0]["name"] = "comparison.csv"; }, "/consistency/0/name"},
      {"seed float", [](json& d) { d["seed"] = 1.5; }, "/seed"},
      {"workers as string", [](json& d) { d["cluster"]["workers"] = "8"; }, "/cluster/workers"},
      {"zero workers", [](json& d) { d["cluster"]["workers"] = 0; }, "/cluster/workers"},
      {"zero servers", [](json& d) { d["cluster"]["servers"] = 0; }, "/cluster/servers"},
      {"missing server group", [](json& d) { d["cluster"].erase("server"); }, "/cluster/server"},
      {"missing data", [](json& d) { d.erase("data"); }, "/data"},
      {"bad data format", [](json& d) { d["data"]["format"] = "csv"; }, "/data/format"},
      {"idx without labels", [](json& d) { d["data"].erase("train_labels"); }, "/data/train_labels"},
      {"labels with libsvm", [](json& d) { d["data"]["format"] = "libsvm"; }, "/data/train_labels"},
      {"bad partition", [](json& d) { d["data"]["partition"] = "random"; }, "/data/partition"},
      {"zero train_eval_rows", [](json& d) { d["data"]["train_eval_rows"] = 0; }, "/data/train_eval_rows"},
      {"unknown model", [](json& d) { d["model"]["type"] = "cnn"; }, "/model/type"},
      {"negative l2", [](json& d) { d["model"]["l2"] = -0.1; }, "/model/l2"},
      {"parameters on softmax", [](json& d) { d["model"]["parameters"] = 10; }, "/model/parameters"},
      {"synthetic without parameters",
       [](json& d) { d["model"] = {{"type", "synthetic"}}; }, "/model/parameters"},
      {"zero iterations", [](json& d) { d["training"]["iterations"] = 0; }, "/training/iterations"},
      {"missing batch_size", [](json& d) { d["training"].erase("batch_size"); }, "/training/batch_size"},
      {"zero learning_rate", [](json& d) { d["training"]["learning_rate"] = 0; }, "/training/learning_rate"},
      {"bad optimizer", [](json& d) { d["training"]["optimizer"] = "rmsprop"; }, "/training/optimizer"},
      {"momentum 1", [](json& d) { d["training"]["momentum"] = 1.0; }, "/training/momentum"},
      {"momentum with sgd", [](json& d) { d["training"]["optimizer"] = "sgd"; }, "/training/momentum"},
      {"target not a number", [](json& d) { d["training"]["target_metric"] = "80%"; }, "/training/target_metric"},
      {"consistency empty", [](json& d) { d["consistency"] = json::array(); }, "/consistency"},
      {"consistency not array", [](json& d) { d["consistency"] = "bsp"; }, "/consistency"},
      {"unknown mode", [](json& d) { d["consistency"][1]["mode"] = "async"; }, "/consistency/1/mode"},
      {"negative staleness", [](json& d) { d["consistency"][2]["staleness"] = -1; }, "/consistency/2/staleness"},
      {"ssp without staleness", [](json& d) { d["consistency"][2].erase("staleness"); },
       "/consistency/2/staleness"},
      {"staleness on bsp", [](json& d) { d["consistency"][0]["staleness"] = 2; }, "/consistency/0/staleness"},
      {"staleness on asp", [](json& d) { d["consistency"][1]["staleness"] = 0; }, "/consistency/1/staleness"},
      {"backup_workers on asp", [](json& d) { d["consistency"][1]["backup_workers"] = 1; },
       "/consistency/1/backup_workers"},
      {"backup_workers == workers", [](json& d) { d["consistency"][3]["backup_workers"] = 8; },
       "/consistency/3/backup_workers"},
      {"duplicate default name", [](json& d) { d["consistency"].push_back({{"mode", "asp"}}); }, "/consistency/5"},
      {"duplicate explicit name", [](json& d) { d["consistency"][4]["name"] = "bsp"; }, "/consistency/4/name"},
      {"unknown variant key", [](json& d) { d["consistency"][0]["lag"] = 1; }, "/consistency/0/lag"},
      {"bad bandwidth unit", [](json& d) { d["cluster"]["worker"]["link"]["bandwidth"] = "10Gbs"; },
       "/cluster/worker/link/bandwidth"},
      {"bandwidth as number", [](json& d) { d["cluster"]["worker"]["link"]["bandwidth"] = 1e9; },
       "/cluster/worker/link/bandwidth"},
      {"zero bandwidth", [](json& d) { d["cluster"]["worker"]["link"]["bandwidth"] = "0Gbps"; },
       "/cluster/worker/link/bandwidth"},
      {"bad latency unit", [](json& d) { d["cluster"]["server"]["link"]["latency"] = "5 parsecs"; },
       "/cluster/server/link/latency"},
      {"bad flops", [](json& d) { d["cluster"]["server"]["device"]["flops"] = "15TB"; },
       "/cluster/server/device/flops"},
      {"unknown preset", [](json& d) { d["cluster"]["worker"]["device"] = "tpu9"; }, "/cluster/worker/device"},
      {"device wrong type", [](json& d) { d["cluster"]["worker"]["device"] = 5; }, "/cluster/worker/device"},
      {"straggler index out of range", [](json& d) { d["stragglers"][0]["workers"][1] = 8; },
       "/stragglers/0/workers/1"},
      {"straggler index repeated", [](json& d) { d["stragglers"][0]["workers"][1] = 3; },
       "/stragglers/0/workers/1"},
      {"slow without workers", [](json& d) { d["stragglers"][0].erase("workers"); }, "/stragglers/0/workers"},
      {"slow empty workers", [](json& d) { d["stragglers"][0]["workers"] = json::array(); },
       "/stragglers/0/workers"},
      {"factor below 1", [](json& d) { d["stragglers"][0]["factor"] = 0.5; }, "/stragglers/0/factor"},
      {"end before start", [](json& d) { d["stragglers"][0]["end"] = "5s"; }, "/stragglers/0/end"},
      {"bad start unit", [](json& d) { d["stragglers"][0]["start"] = "10"; }, "/stragglers/0/start"},
      {"probability 1.5", [](json& d) { d["stragglers"][1]["probability"] = 1.5; }, "/stragglers/1/probability"},
      {"zero transient iterations", [](json& d) { d["stragglers"][1]["iterations"] = 0; },
       "/stragglers/1/iterations"},
      {"key of another straggler type", [](json& d) { d["stragglers"][1]["mu"] = 0; }, "/stragglers/1/mu"},
      {"negative sigma", [](json& d) { d["stragglers"][2]["sigma"] = -1; }, "/stragglers/2/sigma"},
      {"lognormal index out of range", [](json& d) { d["stragglers"][2]["workers"] = {9}; },
       "/stragglers/2/workers/0"},
      {"unknown straggler type", [](json& d) { d["stragglers"][2]["type"] = "spiky"; }, "/stragglers/2/type"},
      {"straggler without type", [](json& d) { d["stragglers"][2].erase("type"); }, "/stragglers/2/type"},
      {"stragglers not array", [](json& d) { d["stragglers"] = json::object(); }, "/stragglers"},
      {"failure with an unknown key", [](json& d) { d["failures"] = json::array({{{"type", "server"}}}); },
       "/failures/0/type"},
      {"empty output dir", [](json& d) { d["output"]["dir"] = ""; }, "/output/dir"},
      {"unknown output key", [](json& d) { d["output"]["format"] = "csv"; }, "/output/format"},
  };
  for (const BadCase& c : cases) {
    json d = full_scenario();
    c.mutate(d);
    EXPECT_EQ(error_pointer(d), c.pointer) << c.what << ": " << error_message(d);
  }
}

TEST(Scenario, MessagesSayWhatWasExpectedAndGot) {
  json d = full_scenario();
  d["cluster"]["workers"] = "8";
  EXPECT_EQ(error_message(d), "/cluster/workers: expected a positive integer, got string \"8\"");

  d = full_scenario();
  d["cluster"]["wrokers"] = 8;
  EXPECT_EQ(error_message(d),
            "/cluster/wrokers: unknown key \"wrokers\" (did you mean \"workers\"?); allowed keys: workers, servers, "
            "worker, server, "
            "workers_per_host, intra_host, topology, server_placement, overrides, cpu, include, calibrated");

  d = full_scenario();
  d["consistency"][2]["staleness"] = -1;
  EXPECT_EQ(error_message(d), "/consistency/2/staleness: expected a non-negative integer, got -1");

  d = full_scenario();
  d["stragglers"][1]["probability"] = 1.5;
  EXPECT_EQ(error_message(d), "/stragglers/1/probability: expected a number in [0, 1], got 1.5");

  d = full_scenario();
  d["cluster"]["worker"]["link"]["bandwidth"] = "10Gbs";
  EXPECT_NE(error_message(d).find("unknown unit \"Gbs\""), std::string::npos) << error_message(d);

  d = full_scenario();
  d["cluster"]["worker"]["device"] = "tpu9";
  EXPECT_NE(error_message(d).find("v100"), std::string::npos) << error_message(d);

  d = full_scenario();
  d["failures"] = json::array({json::object()});
  EXPECT_EQ(error_message(d), "/failures/0: expected exactly one of the keys \"node\", \"link\", \"random\" or \"join\", got none");
}

TEST(Scenario, IntegralFloatsAreAcceptedAsIntegers) {
  json d = full_scenario();
  d["cluster"]["workers"] = 8.0;
  EXPECT_EQ(parse_scenario(d).cluster.workers, 8u);
}

/// A scratch folder removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() /
            ("pstwin-scenario-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }
  /// Writes `text` to `name` inside the folder and returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    const fs::path p = path_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }

 private:
  fs::path path_;
};

TEST(Scenario, RelativeDataPathsResolveAgainstTheScenarioFolder) {
  TempDir dir;
  dir.write("data/train.svm", "1 1:1\n");
  json d = full_scenario();
  d["data"] = {{"format", "libsvm"}, {"train", "../data/train.svm"}, {"test", "../data/missing.svm"}};
  const std::string file = dir.write("scenarios/s.json", d.dump());
  const Scenario s = load_scenario(file);
  // Found under the scenario's folder: rewritten. Found nowhere: kept as written.
  EXPECT_EQ(fs::path(s.data->train), (dir.path() / "data/train.svm").lexically_normal());
  EXPECT_EQ(s.data->test, "../data/missing.svm");
}

TEST(Scenario, OverridesSetNumbersStringsAndNestedValues) {
  TempDir dir;
  const std::string file = dir.write("s.json", full_scenario().dump(2));
  const Scenario s = load_scenario(file, {"/cluster/workers=6", "/name=other", "/seed=7",
                                          "/cluster/worker/link/bandwidth=1Gbps", "/consistency/1/mode=ssp",
                                          "/consistency/1/staleness=1", "/consistency/-={\"mode\":\"asp\"}",
                                          "/training/target_metric=0.9", "/data/partition=\"contiguous\"",
                                          "/output/dir=runs/o"});
  EXPECT_EQ(s.cluster.workers, 6u);
  EXPECT_EQ(s.name, "other");
  EXPECT_EQ(s.seed, 7u);
  EXPECT_DOUBLE_EQ(s.cluster.worker.link.bandwidth_Bps, 1.25e8);
  ASSERT_EQ(s.consistency.size(), 6u);
  EXPECT_EQ(s.consistency[1].name, "ssp1");
  EXPECT_EQ(s.consistency[5].name, "asp");
  EXPECT_DOUBLE_EQ(*s.training.target_metric, 0.9);
  EXPECT_EQ(s.data->partition, "contiguous");
  EXPECT_EQ(s.source["cluster"]["workers"], 6);  // source keeps the overridden document
  EXPECT_EQ(s.output.dir, "runs/o");  // not JSON, so taken as a string
}

/// The pointer of the ScenarioError that load_scenario throws with `overrides`, or "<valid>".
std::string override_error(const std::string& file, const std::vector<std::string>& overrides) {
  try {
    load_scenario(file, overrides);
  } catch (const ScenarioError& e) {
    return e.pointer();
  }
  return "<valid>";
}

TEST(Scenario, BadOverridesNameThePointer) {
  TempDir dir;
  const std::string file = dir.write("s.json", full_scenario().dump());
  EXPECT_EQ(override_error(file, {"/cluster/workers"}), "/cluster/workers");     // no "="
  EXPECT_EQ(override_error(file, {"cluster/workers=3"}), "cluster/workers");     // no leading "/"
  EXPECT_EQ(override_error(file, {"/nope/x=1"}), "/nope/x");                     // missing parent
  EXPECT_EQ(override_error(file, {"/consistency/9/mode=asp"}), "/consistency/9/mode");
  EXPECT_EQ(override_error(file, {"/consistency/9=1"}), "/consistency/9");       // index past the end
  EXPECT_EQ(override_error(file, {"/name/x=1"}), "/name/x");                     // parent is a string
  EXPECT_EQ(override_error(file, {"/a~2=1"}), "/a~2");                           // bad escape
  // A well-formed override that makes the scenario invalid is reported by validation.
  EXPECT_EQ(override_error(file, {"/cluster/wrokers=3"}), "/cluster/wrokers");
  EXPECT_EQ(override_error(file, {"/cluster/workers=abc"}), "/cluster/workers");
  // A value that is not JSON is taken as a string, which JSON requires to be UTF-8 (aborted).
  EXPECT_EQ(override_error(file, {"/name=\xff"}), "/name");
  EXPECT_EQ(override_error(file, {"/data/train=\xffx"}), "/data/train");
}

TEST(Scenario, UnreadableFileAndSyntaxErrorsPointAtTheDocument) {
  TempDir dir;
  try {
    load_scenario((dir.path() / "absent.json").string());
    FAIL() << "expected ScenarioError";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.pointer(), "");
    EXPECT_NE(std::string(e.what()).find("absent.json"), std::string::npos) << e.what();
  }
  const std::string file = dir.write("bad.json", "{\n  \"name\": \"x\",\n  oops\n}\n");
  try {
    load_scenario(file);
    FAIL() << "expected ScenarioError";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.pointer(), "");
    EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("line 3"), std::string::npos) << e.what();
  }
}

TEST(Scenario, NumbersBeyondADoubleNameTheirPointerInFilesAndOverrides) {
  // The reproducers: each aborted every command with an uncaught nlohmann exception.
  EXPECT_EQ(override_error(PSTWIN_SOURCE_DIR "/tests/inputs/number-out-of-range.json", {}), "/training/learning_rate");
  EXPECT_EQ(override_error(PSTWIN_SOURCE_DIR "/tests/inputs/seed-out-of-range.json", {}), "/seed");
  TempDir dir;
  const std::string file = dir.write("s.json", full_scenario().dump());
  try {
    load_scenario(file, {"/training/learning_rate=1e400"});
    FAIL() << "expected ScenarioError";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()), "/training/learning_rate: number 1e400 is outside the range of a double "
                                     "(magnitude at most 1.7976931348623157e308)");
  }
  EXPECT_EQ(override_error(file, {"/cluster/worker/link={\"bandwidth\": \"1Gbps\", \"latency\": -1e999}"}),
            "/cluster/worker/link/latency");
}

TEST(Scenario, DuplicateKeysAreRefusedInFilesAndOverrides) {
  // The reproducer: "workers": 2, "workers": 8 ran with 8 workers.
  EXPECT_EQ(override_error(PSTWIN_SOURCE_DIR "/tests/inputs/duplicate-key.json", {}), "/cluster/workers");
  TempDir dir;
  const std::string file = dir.write("s.json", full_scenario().dump());
  EXPECT_EQ(override_error(file, {"/cluster/worker/link={\"bandwidth\": \"1Gbps\", \"bandwidth\": \"2Gbps\"}"}),
            "/cluster/worker/link/bandwidth");
}

TEST(Scenario, NumbersUsedAsFloat32MustKeepTheirMeaningAsFloat32) {
  struct Case {
    std::function<void(json&)> mutate;
    const char* message;
  };
  const std::vector<Case> cases = {
      {[](json& d) { d["training"]["learning_rate"] = 1e39; },
       "/training/learning_rate: 1e+39 is infinite as a float32, the type it is used in; expected a number > 0 that "
       "a float32 holds"},
      {[](json& d) { d["training"]["learning_rate"] = 1e-50; },
       "/training/learning_rate: 1e-50 becomes 0 as a float32, the type it is used in; expected a number > 0 that a "
       "float32 holds"},
      {[](json& d) { d["training"]["momentum"] = 0.99999999999; },
       "/training/momentum: 0.99999999999 becomes 1 as a float32, the type it is used in; expected a number in [0, "
       "1) that a float32 holds"},
      {[](json& d) {
         d["training"] = {{"iterations", 1}, {"batch_size", 1}, {"learning_rate", 0.1}, {"optimizer", "adam"},
                          {"beta2", 0.9999999999}};
       },
       "/training/beta2: 0.9999999999 becomes 1 as a float32, the type it is used in; expected a number in [0, 1) "
       "that a float32 holds"},
      {[](json& d) {
         d["training"] = {{"iterations", 1}, {"batch_size", 1}, {"learning_rate", 0.1}, {"optimizer", "adagrad"},
                          {"epsilon", 1e-46}};
       },
       "/training/epsilon: 1e-46 becomes 0 as a float32, the type it is used in; expected a number > 0 that a "
       "float32 holds"},
      {[](json& d) { d["model"]["l2"] = 1e-40; },
       "/model/l2: 1e-40 becomes the subnormal 1e-40 as a float32, the type it is used in; expected a number >= 0 "
       "that a float32 holds"},
  };
  for (const Case& c : cases) {
    json d = full_scenario();
    c.mutate(d);
    EXPECT_EQ(error_message(d), c.message);
  }
  json d = full_scenario();
  d["training"]["momentum"] = 0.9999999;  // 0.99999988 as a float32: still below 1
  d["model"]["l2"] = 0;                   // zero stays zero
  EXPECT_EQ(error_message(d), "<valid>");
}

TEST(Scenario, MfInitScaleKeepsTheLargestDrawFiniteAsFloat32) {
  json d = full_scenario();
  d["data"] = {{"format", "ratings"}, {"file", "/d/ratings.csv"}};
  d["model"] = {{"type", "mf"}, {"rank", 4}, {"init_scale", 3.9e37}};
  EXPECT_EQ(error_pointer(d), "<valid>") << error_message(d);
  d["model"]["init_scale"] = 4e37;  // x 8.5717 (Rng::kNormalMax) passes 3.4e38
  EXPECT_EQ(error_pointer(d), "/model/init_scale");
}

TEST(Scenario, IntegersWrittenAsFloatsBeyond2To53AreRefused) {
  json d = full_scenario();
  d["seed"] = 9007199254740992.0;  // 2^53: every integer up to here is exact
  EXPECT_EQ(parse_scenario(d).seed, 9007199254740992u);
  d["seed"] = 1e17;
  EXPECT_EQ(error_message(d), "/seed: expected a non-negative integer written without a fraction or exponent: "
                              "1e+17 is beyond 2^53, where a floating-point number no longer holds every integer");
  d["seed"] = 18446744073709551615ULL;  // as an integer it is exact
  EXPECT_EQ(parse_scenario(d).seed, 18446744073709551615ULL);
}

// Stragglers together may slow a worker by at most 1e9: beyond, the simulated clock loses the
// microseconds messages take, and "factor": 1e308 overflowed it (the run then failed with a
// misleading "nothing received" after an hour).
TEST(Scenario, StragglerSlowdownsStayWithinABillionTogether) {
  json d = full_scenario();
  d["stragglers"] = json::parse(R"([{"type": "lognormal", "mu": 0, "sigma": 2.4}])");
  EXPECT_EQ(error_pointer(d), "<valid>") << error_message(d);  // 8.5717 x 2.4 = 20.57 < ln 1e9 = 20.72
  d["stragglers"][0]["sigma"] = 2.5;                              // 21.43: the spread is to blame
  EXPECT_EQ(error_pointer(d), "/stragglers/0/sigma");
  d["stragglers"][0] = json::parse(R"({"type": "lognormal", "mu": 20, "sigma": 0.1})");  // 20.86
  EXPECT_EQ(error_pointer(d), "/stragglers/0/mu");
  d["stragglers"] = json::parse(R"([{"type": "slow", "workers": [0], "factor": 1e9}])");
  EXPECT_EQ(error_pointer(d), "<valid>") << error_message(d);
  d["stragglers"][0]["factor"] = 1e308;
  EXPECT_EQ(error_pointer(d), "/stragglers/0/factor");
  EXPECT_NE(error_message(d).find("above the largest a simulated clock keeps exact, 1e9"), std::string::npos)
      << error_message(d);
  d["stragglers"] = json::parse(R"([{"type": "transient", "probability": 1, "factor": 1e5},
                                    {"type": "slow", "workers": [0], "factor": 1e5}])");
  EXPECT_EQ(error_pointer(d), "/stragglers/1/factor") << error_message(d);
  EXPECT_NE(error_message(d).find("together with the stragglers before it"), std::string::npos)
      << error_message(d);
}

TEST(Scenario, TextInMemoryReadsAsTheFileWithOverridesAndSyntaxErrorsNamingTheSource) {
  const std::string text = full_scenario().dump();
  const Scenario s = parse_scenario_text(text, "mem.json", {"/cluster/workers=6"});
  EXPECT_EQ(s.cluster.workers, 6u);
  EXPECT_EQ(s.name, parse_scenario(full_scenario()).name);
  try {
    parse_scenario_text("{\n  oops\n}", "mem.json");
    FAIL() << "expected ScenarioError";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.pointer(), "");
    EXPECT_NE(std::string(e.what()).find("mem.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
}

TEST(Scenario, EveryShippedScenarioValidates) {
  const fs::path dir = fs::path(PSTWIN_SOURCE_DIR) / "scenarios";
  int count = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    ++count;
    SCOPED_TRACE(entry.path().string());
    try {
      const Scenario s = load_scenario(entry.path().string());
      // The name becomes the default output folder; keeping it equal to the file's avoids surprises.
      EXPECT_EQ(s.name, entry.path().stem().string());
    } catch (const ScenarioError& e) {
      ADD_FAILURE() << e.what();
    }
  }
  EXPECT_GE(count, 3);
}

}  // namespace
}  // namespace pstwin
