// Compressed BSP on real data reaches the uncompressed accuracy: a9a (logistic regression) and
// Fashion-MNIST (softmax regression), int8 and topk 1% with error feedback within 0.01 of plain
// BSP. topk 1% without error feedback may fall short: the test records its gap (the property
// "topk_no_ef_gap" in the test's XML output, and a line on stdout) without asserting on it.
// Small configurations: 4 workers, a few hundred clocks.
#include <gtest/gtest.h>

#include <iostream>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

/// The four runs of `s`: plain, int8, topk 1% with and without error feedback.
nlohmann::json with_compression_variants(nlohmann::json s) {
  s.erase("consistency");
  s["variants"] = nlohmann::json::parse(R"([
    {"name": "none", "consistency": {"mode": "bsp"}},
    {"name": "int8", "consistency": {"mode": "bsp"}, "set": {"/compression": {"push": {"format": "int8"}}}},
    {"name": "topk-ef", "consistency": {"mode": "bsp"},
     "set": {"/compression": {"push": {"format": "topk", "ratio": 0.01}}}},
    {"name": "topk", "consistency": {"mode": "bsp"},
     "set": {"/compression": {"push": {"format": "topk", "ratio": 0.01, "error_feedback": false}}}}])");
  return s;
}

void expect_within_001(const std::string& out) {
  const auto metric = [&](const char* v) { return read_json(out + "/" + v + "/summary.json")["final_test_metric"].get<double>(); };
  const double plain = metric("none");
  EXPECT_GE(metric("int8"), plain - 0.01) << "plain " << plain;
  EXPECT_GE(metric("topk-ef"), plain - 0.01) << "plain " << plain;
  const double gap = plain - metric("topk");
  ::testing::Test::RecordProperty("topk_no_ef_gap", std::to_string(gap));
  std::cout << "plain " << plain << ", int8 " << metric("int8") << ", topk 1% + error feedback "
            << metric("topk-ef") << ", topk 1% alone " << metric("topk") << " (gap " << gap
            << (gap > 0.01 ? ", more than 0.01)" : ", within 0.01)") << "\n";
}

TEST(CompressionAccuracy, A9aInt8AndTopKWithErrorFeedbackMatchPlainBsp) {
  if (!std::filesystem::exists(PSTWIN_SOURCE_DIR "/../shared/data/a9a/a9a"))
    GTEST_SKIP() << "a9a not found beside the checkout (../shared/data/a9a)";
  const std::string dir = fresh_dir();
  auto s = nlohmann::json::parse(R"({
    "name": "a9a-compression", "seed": 1,
    "data": {"format": "libsvm", "train": "", "test": ""},
    "model": {"type": "logistic", "l2": 1e-5},
    "training": {"iterations": 300, "batch_size": 128, "learning_rate": 0.5, "eval_every": 100},
    "cluster": {"workers": 4, "servers": 2,
                "worker": {"device": "cpu", "link": {"bandwidth": "1Gbps", "latency": "50us"}},
                "server": {"device": "cpu", "link": {"bandwidth": "1Gbps", "latency": "50us"}}}
  })");
  s["data"]["train"] = PSTWIN_SOURCE_DIR "/../shared/data/a9a/a9a";
  s["data"]["test"] = PSTWIN_SOURCE_DIR "/../shared/data/a9a/a9a.t";
  expect_within_001(simulate(dir, with_compression_variants(s)));
}

TEST(CompressionAccuracy, FashionMnistInt8AndTopKWithErrorFeedbackMatchPlainBsp) {
  if (!std::filesystem::exists("/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz"))
    GTEST_SKIP() << "Fashion-MNIST not found in /usr/share/datasets/fashion-mnist "
                    "(Debian package dataset-fashion-mnist)";
  const std::string dir = fresh_dir();
  const auto s = nlohmann::json::parse(R"({
    "name": "fmnist-compression", "seed": 1,
    "data": {"format": "idx",
             "train": "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz",
             "train_labels": "/usr/share/datasets/fashion-mnist/train-labels-idx1-ubyte.gz",
             "test": "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz",
             "test_labels": "/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz",
             "train_eval_rows": 1000},
    "model": {"type": "softmax", "l2": 1e-4},
    "training": {"iterations": 300, "batch_size": 64, "learning_rate": 0.1, "eval_every": 100},
    "cluster": {"workers": 4, "servers": 2,
                "worker": {"device": "v100", "link": {"bandwidth": "1Gbps", "latency": "50us"}},
                "server": {"device": "cpu", "link": {"bandwidth": "1Gbps", "latency": "50us"}}}
  })");
  expect_within_001(simulate(dir, with_compression_variants(s)));
}

}  // namespace
}  // namespace pstwin
