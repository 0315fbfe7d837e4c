// The job fingerprint nodes register with: what may differ between nodes, what may not, and how a
// difference is named.
#include "net/job_fingerprint.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "runtime/errors.h"

namespace pstwin::net {
namespace {

std::string fresh_dir() {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("pstwin-fingerprint-" + std::to_string(std::random_device{}()));
  std::filesystem::create_directories(dir);
  return dir.string();
}

void write_rows(const std::string& path, int rows) {
  std::ofstream out(path);
  for (int i = 0; i < rows; ++i) out << (i % 2 ? "+1" : "-1") << " 1:0.5 3:" << i % 7 << "\n";
}

nlohmann::json toy_scenario(const std::string& dir) {
  write_rows(dir + "/train.svm", 20);
  write_rows(dir + "/test.svm", 5);
  return nlohmann::json::parse(R"({
    "name": "toy", "seed": 3,
    "data": {"format": "libsvm", "train": "train.svm", "test": "test.svm"},
    "model": {"type": "logistic"},
    "training": {"iterations": 10, "batch_size": 32, "learning_rate": 0.5},
    "consistency": [{"mode": "bsp"}],
    "cluster": {"workers": 2, "servers": 1,
                "worker": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}},
                "server": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}}}
  })");
}

nlohmann::json fingerprint_of(const nlohmann::json& scenario, const std::string& dir,
                              const std::string& variant = "bsp") {
  return job_fingerprint(job_description(parse_scenario(scenario, dir), variant));
}

TEST(JobFingerprint, OutputDeviceAndDataPathsMayDifferButNotTheTraining) {
  const std::string dir = fresh_dir();
  const auto base = toy_scenario(dir);
  const auto ours = fingerprint_of(base, dir);
  EXPECT_EQ(ours["sha256"].get<std::string>().size(), 64u);
  auto elsewhere = base;
  elsewhere["output"] = {{"dir", "/tmp/elsewhere"}};
  elsewhere["training"]["device"] = "auto";
  elsewhere["data"]["train"] = dir + "/train.svm";  // the same file by another path
  EXPECT_EQ(fingerprint_of(elsewhere, dir)["sha256"], ours["sha256"]);
  EXPECT_EQ(fingerprint_mismatch(ours, fingerprint_of(elsewhere, dir)), "");

  auto batch = base;
  batch["training"]["batch_size"] = 16;
  EXPECT_EQ(fingerprint_mismatch(ours, fingerprint_of(batch, dir)),
            "its scenario differs at /training/batch_size (the scheduler's: 32, this node's: 16)");
  auto rate = base;
  rate["training"]["learning_rate"] = 0.25;
  EXPECT_NE(fingerprint_mismatch(ours, fingerprint_of(rate, dir)).find("/training/learning_rate"),
            std::string::npos);
  EXPECT_NE(fingerprint_mismatch(ours, fingerprint_of(base, dir, "asp")).find("runs variant \"asp\""),
            std::string::npos);
  // Another file at the same path, of another size.
  write_rows(dir + "/train.svm", 19);
  EXPECT_NE(fingerprint_mismatch(ours, fingerprint_of(base, dir)).find("differs at /data/train"),
            std::string::npos);
}

TEST(JobFingerprint, FirstDifferenceWalksKeysInOrderAndArraysByIndex) {
  const auto a = nlohmann::json::parse(R"({"a": 1, "b": {"c": [1, 2, 3], "d/e": 1}})");
  EXPECT_EQ(first_difference(a, a), "");
  auto b = a;
  b["b"]["c"][2] = 4;
  b["b"]["d/e"] = 2;
  EXPECT_EQ(first_difference(a, b), "/b/c/2");
  b = a;
  b["b"]["c"].push_back(4);
  EXPECT_EQ(first_difference(a, b), "/b/c/3");
  b = a;
  b["b"].erase("d/e");
  EXPECT_EQ(first_difference(a, b), "/b/d~1e");
}

TEST(JobFingerprint, AMalformedFingerprintIsAProtocolErrorSayingWhat) {
  const auto ours = job_fingerprint({{"scenario", {{"name", "x"}}}, {"variant", "bsp"}});
  auto expect_malformed = [&](const nlohmann::json& theirs, const std::string& what) {
    try {
      fingerprint_mismatch(ours, theirs);
      ADD_FAILURE() << "accepted " << theirs.dump();
    } catch (const ProtocolError& e) {
      EXPECT_NE(std::string(e.what()).find("kRegister: malformed fingerprint: " + what), std::string::npos)
          << e.what();
    }
  };
  expect_malformed("abc", "not an object");
  expect_malformed({{"sha256", "12"}, {"job", ours["job"]}}, "\"sha256\"");
  expect_malformed({{"sha256", ours["sha256"]}, {"job", 3}}, "\"job\"");
  auto forged = ours;
  forged["sha256"] = std::string(64, '0');
  expect_malformed(forged, "\"sha256\" does not match");
}

}  // namespace
}  // namespace pstwin::net
