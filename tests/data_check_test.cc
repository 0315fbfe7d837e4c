// The cheap data checks of `pstwin validate` (runtime/data_check.h): what they refuse, with
// prepare_training's messages, and what they say they did not check.
#include "runtime/data_check.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/errors.h"
#include "tests/scratch_dir.h"

namespace pstwin {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class DataCheckTest : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& content) { return scratch_.write(name, content); }

  /// A logistic scenario on train.svm and test.svm (written by the caller) with `workers`.
  json libsvm_scenario(int workers = 2) {
    json s = json::parse(R"({
      "name": "check", "seed": 1,
      "model": {"type": "logistic"},
      "training": {"iterations": 5, "batch_size": 1, "learning_rate": 0.5},
      "consistency": [{"mode": "bsp"}],
      "cluster": {"workers": 2, "servers": 1,
                  "worker": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}},
                  "server": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}}}
    })");
    s["data"] = {{"format", "libsvm"}, {"train", (dir_ / "train.svm").string()}, {"test", (dir_ / "test.svm").string()}};
    s["cluster"]["workers"] = workers;
    return s;
  }

  testing_support::ScratchDir scratch_{"pstwin_data_check"};
  const fs::path& dir_ = scratch_.path();
};

/// what() of the error check_data_cheaply throws, or "<passes>".
template <typename Error>
std::string error_of(const json& scenario) {
  try {
    check_data_cheaply(parse_scenario(scenario));
  } catch (const Error& e) {
    return e.what();
  }
  return "<passes>";
}

TEST_F(DataCheckTest, SmallFilesAreCheckedWhole) {
  write("train.svm", "1 1:1\n-1 2:1\n1 1:0.5\n");
  write("test.svm", "-1 1:1\n");
  const DataCheck c = check_data_cheaply(parse_scenario(libsvm_scenario(3)));
  ASSERT_EQ(c.checked.size(), 2u);
  EXPECT_EQ(c.checked[0], (dir_ / "train.svm").string() +
                              ": all of it parses; labels -1, 1 fit model type \"logistic\"; 3 rows for 3 workers");
  // Read whole, the files give the model's shape: features 2 (the largest index), classes 2.
  EXPECT_TRUE(c.not_checked.empty());
  ASSERT_TRUE(c.shape.has_value());
  EXPECT_EQ(c.shape->features, 2u);
  EXPECT_EQ(c.shape->classes, 2u);
  // The test set's larger index counts too (the model is as wide as either file).
  write("test.svm", "-1 7:1\n");
  EXPECT_EQ(check_data_cheaply(parse_scenario(libsvm_scenario(3))).shape->features, 7u);
}

TEST_F(DataCheckTest, MissingTrainingFileIsNamed) {
  write("test.svm", "-1 1:1\n");
  EXPECT_EQ(error_of<DataError>(libsvm_scenario()),
            (dir_ / "train.svm").string() + ": cannot open: No such file or directory");
}

TEST_F(DataCheckTest, LabelsTheModelCannotLearnAreNamedWithTheirLine) {
  write("train.svm", "2 1:1\n4 2:1\n");
  write("test.svm", "-1 1:1\n");
  const std::string e = error_of<DataError>(libsvm_scenario());
  EXPECT_EQ(e.substr(0, e.find(" does")), (dir_ / "train.svm").string() + ":1: label 2") << e;
  EXPECT_NE(e.find("are 2 (first on line 1) and 4 (first on line 2)"), std::string::npos) << e;
}

TEST_F(DataCheckTest, MoreWorkersThanRowsIsRefused) {
  write("train.svm", "1 1:1\n-1 2:1\n");
  write("test.svm", "-1 1:1\n");
  EXPECT_EQ(error_of<ScenarioError>(libsvm_scenario(3)),
            "/cluster/workers: 3 workers but only 2 training rows in " + (dir_ / "train.svm").string());
}

TEST_F(DataCheckTest, LargeFilesAreParsedInTheirHeadAndCountedBeyond) {
  // 200,000 rows of 7 bytes: 1.4 MB, of which the first MiB (149,796 rows) is parsed.
  std::string rows;
  for (int i = 0; i < 200000; ++i) rows += i % 2 ? "-1 1:1\n" : "+1 2:1\n";
  write("train.svm", rows + "+1 oops\n");  // past the head: found when the job starts
  write("test.svm", "-1 1:1\n");
  const DataCheck c = check_data_cheaply(parse_scenario(libsvm_scenario(180000)));
  EXPECT_NE(c.checked[0].find("its first 1048572 bytes (149796 lines) parses"), std::string::npos) << c.checked[0];
  EXPECT_NE(c.checked[0].find("at least 180000 rows for 180000 workers"), std::string::npos) << c.checked[0];
  ASSERT_EQ(c.not_checked.size(), 2u);
  EXPECT_EQ(c.not_checked[0].substr(0, c.not_checked[0].find(':')), (dir_ / "train.svm").string() + " after its first 1048576 bytes");
  // Its largest index may lie past the head: the model's size is not known, and said so.
  EXPECT_FALSE(c.shape.has_value());
  EXPECT_EQ(c.not_checked[1].substr(0, c.not_checked[1].find(':')),
            "the model's size (its features, the largest index of either file, and classes, known once every line "
            "is read), and so whether every server gets a key and whether a key range fits in one message (at most "
            "1 GiB)");
  EXPECT_EQ(error_of<ScenarioError>(libsvm_scenario(200002)),
            "/cluster/workers: 200002 workers but only 200001 training rows in " + (dir_ / "train.svm").string());
  write("train.svm", "+1 oops\n" + rows);
  EXPECT_EQ(error_of<DataError>(libsvm_scenario()).substr(0, (dir_ / "train.svm").string().size() + 3),
            (dir_ / "train.svm").string() + ":1:");
}

TEST_F(DataCheckTest, IdxLabelsAreCheckedByRecord) {
  const auto be32 = [](std::uint32_t v) {
    return std::string{static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                       static_cast<char>(v)};
  };
  const std::string images = write("img", be32(0x803) + be32(3) + be32(1) + be32(1));  // header only
  const std::string labels = write("lbl", be32(0x801) + be32(3) + std::string{0, 1, 2});
  json s = libsvm_scenario();
  s["data"] = {{"format", "idx"}, {"train", images}, {"train_labels", labels}, {"test", images}, {"test_labels", labels}};
  const std::string e = error_of<DataError>(s);
  EXPECT_EQ(e.substr(0, e.find(" does")), labels + ": record 3: label 2") << e;
  s["model"]["type"] = "softmax";
  EXPECT_EQ(error_of<DataError>(s), "<passes>");
  // The headers and labels give the model's shape, the images unread: 1 pixel, 3 classes.
  const auto shape = check_data_cheaply(parse_scenario(s)).shape;
  ASSERT_TRUE(shape.has_value());
  EXPECT_EQ(shape->features, 1u);
  EXPECT_EQ(shape->classes, 3u);
  s["cluster"]["workers"] = 4;
  EXPECT_EQ(error_of<ScenarioError>(s), "/cluster/workers: 4 workers but only 3 training rows in " + images + " + " + labels);
}

TEST_F(DataCheckTest, RatingsTrainingSplitNeedsARowPerWorker) {
  std::string csv = "userId,movieId,rating\n";
  for (int i = 0; i < 10; ++i) csv += std::to_string(i) + "," + std::to_string(i % 3) + ",4.5\n";
  json s = libsvm_scenario(5);
  s["data"] = {{"format", "ratings"}, {"file", write("r.csv", csv)}, {"test_fraction", 0.5}};
  s["model"] = {{"type", "mf"}, {"rank", 2}};
  EXPECT_EQ(error_of<ScenarioError>(s), "<passes>");  // 10 ratings, 5 for training
  const auto shape = check_data_cheaply(parse_scenario(s)).shape;  // the whole file: 10 users, 3 items
  ASSERT_TRUE(shape.has_value());
  EXPECT_EQ(shape->users, 10u);
  EXPECT_EQ(shape->items, 3u);
  s["cluster"]["workers"] = 6;
  EXPECT_EQ(error_of<ScenarioError>(s), "/cluster/workers: 6 workers but only 5 training rows in " + (dir_ / "r.csv").string());
  // A file read whole whose test split would be empty: round(0.1 x 3) = 0 ratings.
  s["cluster"]["workers"] = 1;
  s["data"]["test_fraction"] = 0.1;
  write("r3.csv", "userId,movieId,rating\n1,1,4\n2,1,3\n3,2,5\n");
  s["data"]["file"] = (dir_ / "r3.csv").string();
  EXPECT_EQ(error_of<DataError>(s),
            (dir_ / "r3.csv").string() + ": 3 ratings cannot be split with test_fraction 0.100000: a split would be empty");
  s["data"]["file"] = (dir_ / "r.csv").string();
  s["data"]["test_fraction"] = 0.5;
  s["cluster"]["workers"] = 6;
  write("r.csv", csv + "1,x,3\n");
  EXPECT_EQ(error_of<DataError>(s).substr(0, (dir_ / "r.csv").string().size() + 4), (dir_ / "r.csv").string() + ":12:");
}

TEST_F(DataCheckTest, SyntheticModelNeedsAKeyPerServer) {
  json s = libsvm_scenario();
  s.erase("data");
  s["model"] = {{"type", "synthetic"}, {"parameters", 3}};
  s["cluster"]["servers"] = 4;
  EXPECT_EQ(error_of<ScenarioError>(s), "/cluster/servers: 4 servers for a model of 3 keys; every server needs at least one");
}

}  // namespace
}  // namespace pstwin
