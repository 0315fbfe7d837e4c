// "cluster": {"include": FILE}: cluster keys from a file of their own, under the scenario's keys.
#include <gtest/gtest.h>

#include <filesystem>

#include "runtime/errors.h"
#include "runtime/scenario/scenario.h"
#include "tests/scenario_test_support.h"
#include "tests/scratch_dir.h"

namespace pstwin {
namespace {

using testing_support::load_error;
using testing_support::ScratchDir;

// What `pstwin calibrate` writes, less the keys of another part of the model (messaging, cpu).
constexpr const char* kIncluded = R"({
  "calibrated": {"machine": "box", "date": "2026-12-01T04:00:00Z", "pstwin_version": "0.1.0",
                 "transport": "zmq-curve", "device": "cpu", "cores": 2,
                 "memcpy_bandwidth": "3.1GBps", "quick": true},
  "worker": {"device": {"flops": "20Gflops", "bandwidth": "6GBps", "overhead": "5us"},
             "link": {"bandwidth": "0.5GBps", "latency": "20us"}},
  "server": {"device": {"flops": "20Gflops", "bandwidth": "6GBps", "overhead": "5us"},
             "link": {"bandwidth": "0.5GBps", "latency": "20us"}}
})";

/// A synthetic scenario whose cluster is `cluster`.
nlohmann::json scenario_with(const nlohmann::json& cluster) {
  nlohmann::json s = nlohmann::json::parse(R"({
    "name": "inc", "seed": 1,
    "model": {"type": "synthetic", "parameters": 1000, "flops_per_iteration": 1e6},
    "training": {"iterations": 5}, "consistency": [{"mode": "bsp"}]})");
  s["cluster"] = cluster;
  return s;
}

TEST(ClusterInclude, TakesTheFilesKeysRelativeToTheScenarioAndTheScenarioWins) {
  ScratchDir dir("include");
  std::filesystem::create_directories(dir.path() / "hw");
  dir.write("hw/calibrated.json", kIncluded);
  nlohmann::json cluster = {{"include", "hw/calibrated.json"}, {"workers", 8}, {"servers", 2},
                            {"server", {{"link", {{"bandwidth", "1GBps"}, {"latency", "20us"}}}}}};
  const std::string path = dir.write("s.json", scenario_with(cluster).dump());
  const Scenario s = load_scenario(path);
  EXPECT_EQ(s.cluster.workers, 8u);
  EXPECT_DOUBLE_EQ(s.cluster.worker.device.peak_flops, 20e9);
  EXPECT_DOUBLE_EQ(s.cluster.worker.device.mem_bandwidth_Bps, 6e9);
  EXPECT_DOUBLE_EQ(s.cluster.worker.device.overhead_s, 5e-6);
  EXPECT_DOUBLE_EQ(s.cluster.worker.link.bandwidth_Bps, 0.5e9);
  EXPECT_DOUBLE_EQ(s.cluster.worker.link.latency_s, 20e-6);
  // The scenario's server link replaces the file's; the file's server device stays (merge-patch).
  EXPECT_DOUBLE_EQ(s.cluster.server.link.bandwidth_Bps, 1e9);
  EXPECT_DOUBLE_EQ(s.cluster.server.device.peak_flops, 20e9);
  // A run records the figures it ran with, not the file name.
  EXPECT_FALSE(s.variant_scenarios.at(0).source["cluster"].contains("include"));
  EXPECT_EQ(s.variant_scenarios.at(0).source["cluster"]["worker"]["link"]["bandwidth"], "0.5GBps");
}

TEST(ClusterInclude, SetAndVariantsMayChooseTheFile) {
  ScratchDir dir("include");
  dir.write("a.json", kIncluded);
  nlohmann::json faster = nlohmann::json::parse(kIncluded);
  faster["worker"]["link"]["bandwidth"] = "2GBps";
  dir.write("b.json", faster.dump());
  nlohmann::json s = scenario_with({{"include", "a.json"}, {"workers", 2}, {"servers", 1}});
  s.erase("consistency");
  s["variants"] = {{{"name", "a"}}, {{"name", "b"}, {"set", {{"/cluster/include", "b.json"}}}}};
  const std::string path = dir.write("s.json", s.dump());
  const Scenario both = load_scenario(path);
  ASSERT_EQ(both.variant_scenarios.size(), 2u);
  EXPECT_DOUBLE_EQ(both.variant_scenarios[0].cluster.worker.link.bandwidth_Bps, 0.5e9);
  EXPECT_DOUBLE_EQ(both.variant_scenarios[1].cluster.worker.link.bandwidth_Bps, 2e9);

  // Each run records the figures it ran with, not the file's name: a variant's own include
  // (b.json) and the base's (a.json) alike, so that what decides a sweep's reuse, a summary's
  // config and a job's fingerprint change when the file does (a trial's sweep reused runs of
  // an edited file).
  for (std::size_t i = 0; i < 2; ++i) {
    const nlohmann::json& cluster = both.variant_scenarios[i].source["cluster"];
    EXPECT_FALSE(cluster.contains("include")) << i << " " << cluster;
    EXPECT_EQ(cluster["worker"]["link"]["bandwidth"], i == 0 ? "0.5GBps" : "2GBps") << cluster;
  }

  // --set: a relative path is the working directory's, not the scenario's folder.
  const std::string plain = dir.write("plain.json", scenario_with({{"include", "a.json"}, {"workers", 2}, {"servers", 1}}).dump());
  const auto here = std::filesystem::current_path();
  std::filesystem::current_path(dir.path().parent_path());
  const std::string from_cwd = (dir.path().filename() / "b.json").string();
  const Scenario set = load_scenario(plain, {"/cluster/include=" + from_cwd});
  std::filesystem::current_path(here);
  EXPECT_DOUBLE_EQ(set.cluster.worker.link.bandwidth_Bps, 2e9);
}

TEST(ClusterInclude, AMissingFileIsAnErrorAtTheInclude) {
  ScratchDir dir("include");
  const std::string path =
      dir.write("s.json", scenario_with({{"include", "nowhere.json"}, {"workers", 2}, {"servers", 1}}).dump());
  const std::string e = load_error(path);
  EXPECT_NE(e.find("/cluster/include: cannot read the included file \"nowhere.json\""), std::string::npos) << e;
  EXPECT_NE(e.find("No such file"), std::string::npos) << e;
}

// A trial included /dev/zero (and ran validate on it): 6 GB of memory in 10 s, then killed. A
// device, a FIFO or a folder is refused before reading, as a scenario file or an include.
TEST(ClusterInclude, AFolderOrADeviceIsRefusedBeforeReading) {
  ScratchDir dir("include");
  const std::string zero =
      dir.write("z.json", scenario_with({{"include", "/dev/zero"}, {"workers", 2}, {"servers", 1}}).dump());
  std::string e = load_error(zero);
  EXPECT_NE(e.find("/cluster/include: the included file \"/dev/zero\" (/dev/zero) is not a regular file"),
            std::string::npos) << e;
  const std::string folder =
      dir.write("f.json", scenario_with({{"include", "/tmp"}, {"workers", 2}, {"servers", 1}}).dump());
  e = load_error(folder);
  EXPECT_NE(e.find("is a folder, not a JSON file"), std::string::npos) << e;
  EXPECT_THROW(load_scenario("/dev/zero", {}), ScenarioError);
}

TEST(ClusterInclude, ErrorsInsideTheFileNameTheFileAndThePointerInIt) {
  ScratchDir dir("include");
  nlohmann::json bad = nlohmann::json::parse(kIncluded);
  bad["worker"]["device"]["flopz"] = "1Gflops";
  dir.write("bad.json", bad.dump());
  const std::string path =
      dir.write("s.json", scenario_with({{"include", "bad.json"}, {"workers", 2}, {"servers", 1}}).dump());
  const std::string e = load_error(path);
  EXPECT_NE(e.find("/cluster/worker/device/flopz: in the included file \"bad.json\" at /worker/device/flopz: "),
            std::string::npos) << e;
  EXPECT_NE(e.find("unknown key"), std::string::npos) << e;

  // A required key the file's group lacks is the file's to add.
  nlohmann::json partial = nlohmann::json::parse(kIncluded);
  partial["worker"].erase("link");
  dir.write("partial.json", partial.dump());
  const std::string e2 = load_error(path, {"/cluster/include=" + dir.file("partial.json")});
  EXPECT_NE(e2.find("in the included file"), std::string::npos) << e2;
  EXPECT_NE(e2.find("at /worker/link"), std::string::npos) << e2;

  // Not JSON, a key twice, not an object, a nested include.
  dir.write("syntax.json", "{\"worker\": ");
  EXPECT_NE(load_error(path, {"/cluster/include=" + dir.file("syntax.json")}).find("is not JSON"), std::string::npos);
  dir.write("twice.json", R"({"workers": 2, "workers": 3})");
  const std::string e3 = load_error(path, {"/cluster/include=" + dir.file("twice.json")});
  EXPECT_NE(e3.find("at /workers: "), std::string::npos) << e3;
  dir.write("list.json", "[1]");
  EXPECT_NE(load_error(path, {"/cluster/include=" + dir.file("list.json")}).find("one JSON object"), std::string::npos);
  dir.write("nested.json", R"({"include": "a.json"})");
  EXPECT_NE(load_error(path, {"/cluster/include=" + dir.file("nested.json")}).find("cannot include another"),
            std::string::npos);
}

TEST(ClusterInclude, AnErrorInTheScenariosOwnKeysIsTheScenarios) {
  ScratchDir dir("include");
  dir.write("a.json", kIncluded);
  const std::string path = dir.write(
      "s.json", scenario_with({{"include", "a.json"}, {"workers", 0}, {"servers", 1}}).dump());
  const std::string e = load_error(path);
  EXPECT_EQ(e.find("included file"), std::string::npos) << e;
  EXPECT_NE(e.find("/cluster/workers"), std::string::npos) << e;
  EXPECT_NE(load_error(path, {"/cluster/include=7"}).find("expected the name of a JSON file"), std::string::npos);
}

// A trial's --set into a key only the included file has was told "the parent does not exist".
TEST(ClusterInclude, SettingAKeyOnlyTheFileGivesSaysSoAndHow) {
  ScratchDir dir("include");
  dir.write("a.json", kIncluded);
  const std::string path =
      dir.write("s.json", scenario_with({{"include", "a.json"}, {"workers", 2}, {"servers", 1}}).dump());
  std::string e = load_error(path, {"/cluster/worker/device/flops=1Gflops"});
  EXPECT_NE(e.find("/cluster/worker/device/flops: cannot set: /cluster/worker comes from the included file "
                   "\"a.json\", not from the scenario; set /cluster/worker as an object, which is merged over "
                   "the file's key by key: --set '/cluster/worker={\"device\":{\"flops\":\"1Gflops\"}}'"),
            std::string::npos) << e;
  // The advice works: only flops changes.
  const Scenario s = load_scenario(path, {R"(/cluster/worker={"device":{"flops":"1Gflops"}})"});
  EXPECT_DOUBLE_EQ(s.cluster.worker.device.peak_flops, 1e9);
  EXPECT_DOUBLE_EQ(s.cluster.worker.device.mem_bandwidth_Bps, 6e9);
  // A removal cannot be made from the scenario; a key neither has is a plain missing parent.
  e = load_error(path, {"/cluster/worker/device/overhead=null"});
  EXPECT_NE(e.find("cannot remove (set to null): /cluster/worker/device/overhead comes from the included file "
                   "\"a.json\""), std::string::npos) << e;
  e = load_error(path, {"/cluster/wroker/device/flops=1Gflops"});
  EXPECT_NE(e.find("cannot set: the parent /cluster/wroker/device does not exist"), std::string::npos) << e;

  // A variant's "set" is told in its own form.
  nlohmann::json v = scenario_with({{"include", "a.json"}, {"workers", 2}, {"servers", 1}});
  v.erase("consistency");
  v["variants"] = {{{"name", "slow"}, {"set", {{"/cluster/server/link/bandwidth", "1Gbps"}}}}};
  const std::string variants = dir.write("v.json", v.dump());
  e = load_error(variants);
  EXPECT_NE(e.find("/variants/0/set/~1cluster~1server~1link~1bandwidth: cannot set: /cluster/server comes from "
                   "the included file \"a.json\", not from the scenario; set /cluster/server as an object, which "
                   "is merged over the file's key by key: \"/cluster/server\": {\"link\":{\"bandwidth\":\"1Gbps\"}}"),
            std::string::npos) << e;
}

// A trial's scenario kept its own worker device (a preset) beside an include whose device has
// flops: the clash was blamed on the file's flops. The scenario's keys are at fault with it.
TEST(ClusterInclude, AClashOfTheScenariosKeysWithTheFilesNamesBoth) {
  ScratchDir dir("include");
  dir.write("a.json", kIncluded);
  nlohmann::json cluster = {{"include", "a.json"}, {"workers", 2}, {"servers", 1},
                            {"worker", {{"device", {{"preset", "v100"}}}}}};
  const std::string path = dir.write("s.json", scenario_with(cluster).dump());
  const std::string e = load_error(path);
  EXPECT_NE(e.find("/cluster/worker/device: the scenario's keys here (\"preset\") and those of the included file "
                   "\"a.json\" at /worker/device are merged key by key, and together they are invalid at "
                   "/cluster/worker/device/flops (from the file): give either a preset or flops and bandwidth"),
            std::string::npos) << e;
  // An error of the file's own, beside the same scenario keys, stays the file's.
  nlohmann::json bad = nlohmann::json::parse(kIncluded);
  bad["worker"]["device"]["flopz"] = "1Gflops";
  dir.write("bad.json", bad.dump());
  const std::string e2 = load_error(path, {"/cluster/include=" + dir.file("bad.json")});
  EXPECT_NE(e2.find("/cluster/worker/device/flopz: in the included file"), std::string::npos) << e2;
}

TEST(ClusterInclude, TheCalibrationRecordIsChecked) {
  ScratchDir dir("include");
  nlohmann::json bad = nlohmann::json::parse(kIncluded);
  bad["calibrated"]["cores"] = 0;
  dir.write("a.json", bad.dump());
  const std::string path =
      dir.write("s.json", scenario_with({{"include", "a.json"}, {"workers", 2}, {"servers", 1}}).dump());
  const std::string e = load_error(path);
  EXPECT_NE(e.find("/cluster/calibrated/cores: in the included file \"a.json\" at /calibrated/cores"),
            std::string::npos) << e;
}

}  // namespace
}  // namespace pstwin
