// Every command refuses, before anything starts, a scenario whose largest message would exceed
// the wire's 1 GiB limit (runtime/wire_limit_check.h), naming the pointer, the size, the limit
// and the fix. Nothing is allocated at that size: the check reads the scenario only.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

// scale-synthetic.json with 280M float32 parameters on one server: one key range's push is
// 1120000124 bytes. Two workers, and short timeouts below, so that a command that failed to
// refuse it ends soon (its messages dropped) rather than hold the test for minutes.
const std::string kTooLarge = PSTWIN_SOURCE_DIR "/scenarios/scale-synthetic.json --set /model/parameters=280000000 "
                                                "--set /cluster/servers=1 --set /cluster/workers=2";
const std::string kSaid =
    "/cluster/servers: a push or pull reply of one key range (280000000 keys x 1 float32) would be 1120000124 "
    "bytes, over the wire's limit of 1073741824 bytes per message; use at least 2 servers";

TEST(CliWireLimit, ValidateSimulateLaunchAndNodeRefuseAKeyRangeTooLargeForOneMessage) {
  const std::string dir = fresh_dir();
  for (const std::string& command :
       {std::string("validate"), "simulate --quiet --out " + dir + "/sim",
        "launch --insecure --connect-timeout 5 --stall-timeout 5 --out " + dir + "/zmq",
        "launch --transport inproc --stall-timeout 5 --out " + dir + "/inproc",
        std::string("node --role server --insecure --scheduler tcp://127.0.0.1:9 --connect-timeout 5")}) {
    const auto r = run_pstwin(command + " " + kTooLarge);
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.output;
    EXPECT_NE(r.output.find(kSaid), std::string::npos) << command << "\n" << r.output;
  }
  for (const char* out : {"/sim", "/zmq", "/inproc"}) EXPECT_FALSE(std::filesystem::exists(dir + out)) << out;
}

TEST(CliWireLimit, TheServersItNamesAreEnough) {
  const auto r = run_pstwin("validate " + kTooLarge + " --set /cluster/servers=2");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// A sweep checks every grid point before any runs, naming the point; not one child per point.
TEST(CliWireLimit, SweepRefusesAGridPointTooLargeBeforeAnythingRuns) {
  const std::string dir = fresh_dir();
  const auto r = run_pstwin("sweep " PSTWIN_SOURCE_DIR "/scenarios/scale-synthetic.json --grid "
                            "/model/parameters=1000,300000000 --set /cluster/servers=1 --set /cluster/workers=2 "
                            "--out " + dir + "/sweep");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("at model.parameters=300000000_seed=1: /cluster/servers"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("/cluster/servers: a push or pull reply"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("running"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/sweep")) << r.output;
}

// A variant whose own "set" makes the message too large is blamed there, not on the base.
TEST(CliWireLimit, AVariantTooLargeIsBlamedOnItsOwnSetting) {
  const std::string dir = fresh_dir();
  auto s = read_json(PSTWIN_SOURCE_DIR "/scenarios/scale-synthetic.json");
  s["model"]["parameters"] = 300000000;
  s["cluster"]["servers"] = 2;
  s["cluster"]["workers"] = 2;
  s.erase("consistency");
  s["variants"] = nlohmann::json::array({{{"name", "a"}}, {{"name", "b"}, {"set", {{"/cluster/servers", 1}}}}});
  write_json(dir + "/v.json", s);
  const auto r = run_pstwin("validate " + dir + "/v.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("/variants/1/set/~1cluster~1servers: a push or pull reply"), std::string::npos)
      << r.output;
}

// A real model's size follows from its data: a LIBSVM feature index of 280000000 makes a
// logistic model of 280000001 keys, one key range on one server. Writes train.svm (`head` first,
// then the wide row) and test.svm into `dir` and a scenario of them; returns its path.
std::string wide_libsvm_scenario(const std::string& dir, const std::string& head = "") {
  auto s = toy_scenario(dir);
  std::ofstream(dir + "/train.svm") << head << "+1 1:1\n-1 280000000:1\n";
  std::ofstream(dir + "/test.svm") << "+1 1:1\n";
  s["cluster"]["servers"] = 1;
  s["cluster"]["workers"] = 2;
  s["training"]["batch_size"] = 1;
  s["training"]["iterations"] = 2;
  write_json(dir + "/wide.json", s);
  return dir + "/wide.json";
}

/// 160000 rows "+1 1:1", 1.1 MB: past the 1 MiB that check_data_cheaply reads of a file.
std::string rows_past_the_cheap_look() {
  std::string head;
  for (int i = 0; i < 160000; ++i) head += "+1 1:1\n";
  return head;
}

const std::string kSaidReal =
    "/cluster/servers: a push or pull reply of one key range (280000001 keys x 1 float32) would be 1120000128 "
    "bytes, over the wire's limit of 1073741824 bytes per message; use at least 2 servers";

// Every command refuses it with the line a synthetic model gets, before anything starts: a
// trial's `launch` over ZeroMQ started the servers and workers, and its scheduler refused it then.
TEST(CliWireLimit, ARealModelTooLargeIsRefusedBeforeAnyNodeStarts) {
  const std::string dir = fresh_dir();
  const std::string scenario = wide_libsvm_scenario(dir);
  const std::string line = "invalid scenario " + scenario + ": " + kSaidReal;
  for (const std::string& command :
       {std::string("validate"), "simulate --quiet --out " + dir + "/sim",
        "launch --insecure --connect-timeout 5 --stall-timeout 5 --out " + dir + "/zmq",
        "launch --transport inproc --stall-timeout 5 --out " + dir + "/inproc"}) {
    const auto r = run_pstwin(command + " " + scenario);
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.output;
    EXPECT_NE(r.output.find("pstwin " + command.substr(0, command.find(' ')) + ": " + line), std::string::npos)
        << command << "\n" << r.output;
    EXPECT_EQ(r.output.find("launch: bsp"), std::string::npos) << command << "\n" << r.output;  // no node started
  }
  for (const char* out : {"/sim", "/zmq", "/inproc"}) EXPECT_FALSE(std::filesystem::exists(dir + out)) << out;
}

// Over 1 MiB, the largest index may lie anywhere: every command reads the file whole for the
// model's size before anything starts. A trial's sweep of a9a with a wide MLP started every run,
// each failing, and validate passed a9a with 200 servers that simulate refused.
TEST(CliWireLimit, ARealModelWhoseSizeNeedsTheWholeFileIsRefusedByEveryCommandBeforeAnythingRuns) {
  const std::string dir = fresh_dir();
  const std::string scenario = wide_libsvm_scenario(dir, rows_past_the_cheap_look());
  for (const std::string& command :
       {std::string("validate"), "launch --insecure --connect-timeout 5 --stall-timeout 5 --out " + dir + "/zmq",
        "simulate --quiet --out " + dir + "/sim", "sweep --grid /cluster/workers=2,3 --out " + dir + "/sweep"}) {
    const auto r = run_pstwin(command + " " + scenario);
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.output;
    EXPECT_NE(r.output.find(kSaidReal), std::string::npos) << command << "\n" << r.output;
    EXPECT_EQ(r.output.find("running"), std::string::npos) << command << "\n" << r.output;  // no sweep run
  }
  for (const char* out : {"/zmq", "/sim", "/sweep"}) EXPECT_FALSE(std::filesystem::exists(dir + out)) << out;
}

// What validate read whole it says it checked, and no longer that the model's size was not.
TEST(CliWireLimit, ValidateSaysItReadTheWholeFileForTheModelsSize) {
  const std::string dir = fresh_dir();
  auto s = toy_scenario(dir);
  std::ofstream(dir + "/train.svm") << rows_past_the_cheap_look() << "-1 7:1\n";
  std::ofstream(dir + "/test.svm") << "+1 1:1\n";
  s["cluster"]["servers"] = 1;
  write_json(dir + "/s.json", s);
  const auto v = run_pstwin("validate " + dir + "/s.json");
  EXPECT_EQ(v.exit_code, 0) << v.output;
  // Features 1..7 and labels -1, +1: 7 features, 2 classes, counted by hand from the file.
  EXPECT_NE(v.output.find("checked: " + dir + "/train.svm and " + dir + "/test.svm: read whole for the model's "
                          "size: 7 features, 2 classes\n"),
            std::string::npos)
      << v.output;
  EXPECT_EQ(v.output.find("not checked: the model's size"), std::string::npos) << v.output;
  EXPECT_EQ(v.output.find("parsed when the job starts"), std::string::npos) << v.output;
  // One server of 8 keys (7 weights and a bias): "the 1 server", not "each of 1 servers".
  EXPECT_NE(v.output.find("checked: model logistic of 8 keys x 1 float32: the 1 server gets keys"), std::string::npos)
      << v.output;
}

// A trial's MLP too large to build was said to have "1099644796930.000000 parameters".
TEST(CliWireLimit, AnMlpTooLargeToBuildCountsItsParametersAsAWholeNumber) {
  const std::string dir = fresh_dir();
  auto s = toy_scenario(dir);
  std::ofstream(dir + "/train.svm") << "+1 1:1\n-1 7:1\n";
  std::ofstream(dir + "/test.svm") << "+1 1:1\n";
  s["model"] = {{"type", "mlp"}, {"hidden", {1048576, 1048576}}};
  s["training"]["batch_size"] = 1;
  s["cluster"]["workers"] = 2;
  write_json(dir + "/s.json", s);
  // 7 features and 2 classes: (7 + 1) x 2^20 + (2^20 + 1) x 2^20 + (2^20 + 1) x 2 weights and biases.
  const std::uint64_t h = 1048576, parameters = (7 + 1) * h + (h + 1) * h + (h + 1) * 2;
  const auto r = run_pstwin("validate " + dir + "/s.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("/model/type: an mlp model of " + std::to_string(parameters) + " parameters is too large"),
            std::string::npos)
      << r.output;
}

// A sweep sizes a real model at every grid point before any runs, as for a synthetic one.
TEST(CliWireLimit, SweepRefusesAGridPointWhereARealModelIsTooLarge) {
  const std::string dir = fresh_dir();
  const auto r = run_pstwin("sweep " + wide_libsvm_scenario(dir) + " --grid /cluster/servers=2,1 --out " + dir + "/sweep");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("at cluster.servers=1_seed=3: " + kSaidReal), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("running"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/sweep")) << r.output;
}

// A variant's own servers: blamed there by every command, as for a synthetic model.
TEST(CliWireLimit, ARealModelTooLargeInOneVariantIsBlamedOnItsOwnSetting) {
  const std::string dir = fresh_dir();
  auto s = read_json(wide_libsvm_scenario(dir));
  s["cluster"]["servers"] = 2;
  s.erase("consistency");
  s["variants"] = nlohmann::json::array({{{"name", "a"}}, {{"name", "b"}, {"set", {{"/cluster/servers", 1}}}}});
  write_json(dir + "/v.json", s);
  const std::string line = "invalid scenario " + dir + "/v.json: /variants/1/set/~1cluster~1servers: " +
                           kSaidReal.substr(std::string("/cluster/servers: ").size());
  for (const std::string& command : {std::string("validate"), "simulate --quiet --out " + dir + "/sim",
                                     "launch --insecure --connect-timeout 5 --stall-timeout 5 --out " + dir + "/zmq"}) {
    const auto r = run_pstwin(command + " " + dir + "/v.json");
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.output;
    EXPECT_NE(r.output.find("pstwin " + command.substr(0, command.find(' ')) + ": " + line), std::string::npos)
        << command << "\n" << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/zmq"));
}

// An IDX pair's headers and labels give an mlp's size, without its images: 784 pixels and labels
// 0 and 9 (10 classes) under a hidden layer of 400000 make 318000010 keys. The images file here
// is its header alone, so nothing but the header can have been read.
TEST(CliWireLimit, ValidateSizesAnIdxModelFromItsHeaders) {
  const std::string dir = fresh_dir();
  const auto be32 = [](std::uint32_t v) {
    return std::string{static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                       static_cast<char>(v)};
  };
  std::ofstream(dir + "/img", std::ios::binary) << be32(0x803) + be32(2) + be32(28) + be32(28);
  std::ofstream(dir + "/lbl", std::ios::binary) << be32(0x801) + be32(2) + std::string{0, 9};
  auto s = toy_scenario(dir);
  s["data"] = {{"format", "idx"}, {"train", dir + "/img"}, {"train_labels", dir + "/lbl"},
               {"test", dir + "/img"}, {"test_labels", dir + "/lbl"}};
  s["model"] = {{"type", "mlp"}, {"hidden", {400000}}};
  s["cluster"]["servers"] = 1;
  s["cluster"]["workers"] = 2;
  s["training"]["batch_size"] = 1;
  write_json(dir + "/mlp.json", s);
  const auto r = run_pstwin("validate " + dir + "/mlp.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("pstwin validate: invalid scenario " + dir + "/mlp.json: /cluster/servers: a push or pull reply "
                          "of one key range (318000010 keys x 1 float32) would be 1272000164 bytes, over the wire's "
                          "limit of 1073741824 bytes per message; use at least 2 servers"),
            std::string::npos)
      << r.output;
  // With the servers it names, the size is said as checked.
  const auto fits = run_pstwin("validate " + dir + "/mlp.json --set /cluster/servers=2");
  EXPECT_EQ(fits.exit_code, 0) << fits.output;
  EXPECT_NE(fits.output.find("checked: model mlp of 318000010 keys x 1 float32: each of 2 servers gets keys"),
            std::string::npos)
      << fits.output;
}

}  // namespace
}  // namespace pstwin
