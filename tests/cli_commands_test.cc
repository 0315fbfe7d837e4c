// The pstwin command line as a user meets it: exit codes and messages for good and bad input.
#include <gtest/gtest.h>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

TEST(Cli, ValidatesEveryShippedScenario) {
  for (const auto& entry : std::filesystem::directory_iterator(PSTWIN_SOURCE_DIR "/scenarios")) {
    if (entry.path().extension() != ".json") continue;
    const auto r = run_pstwin("validate " + entry.path().string());
    EXPECT_EQ(r.exit_code, 0) << entry.path() << "\n" << r.output;
    EXPECT_NE(r.output.find("is valid"), std::string::npos) << r.output;
  }
}

TEST(Cli, InvalidScenarioExitsWithStatus2AndNamesThePointer) {
  const std::string dir = fresh_dir();
  auto s = toy_scenario(dir);
  s["cluster"]["wrokers"] = 3;
  write_json(dir + "/bad.json", s);
  for (const std::string& command : {std::string("validate"), "simulate --out " + dir + "/out"}) {
    const auto r = run_pstwin(command + " " + dir + "/bad.json");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("/cluster/wrokers"), std::string::npos) << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
}

TEST(Cli, KeygenIntoAMissingFolderIsBadInputWithTheReason) {
  const std::string dir = fresh_dir();
  const auto r = run_pstwin("keygen " + dir + "/no-such-folder/job.key");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("cannot write key file " + dir + "/no-such-folder/job.key: No such file or directory"),
            std::string::npos) << r.output;
}

TEST(Cli, SetOverrideIsValidatedToo) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));
  const auto r = run_pstwin("validate " + dir + "/toy.json --set /cluster/workers=0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("/cluster/workers"), std::string::npos) << r.output;
}

TEST(Cli, MalformedDataFileExitsWithStatus2NamingFileAndLine) {
  const std::string dir = fresh_dir();
  auto s = toy_scenario(dir);
  {
    std::ofstream bad(dir + "/train.svm", std::ios::app);
    bad << "+1 3:1 oops\n";
  }
  write_json(dir + "/toy.json", s);
  const auto r = run_pstwin("simulate " + dir + "/toy.json --quiet --out " + dir + "/out");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("train.svm:2001"), std::string::npos) << r.output;
}

TEST(Cli, MoreServersThanKeysIsRejectedBeforeRunning) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));  // 20 features + bias = 21 keys
  const auto r = run_pstwin("simulate " + dir + "/toy.json --set /cluster/servers=22 --out " + dir + "/out");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("/cluster/servers: 22 servers for a model of 21 keys"), std::string::npos)
      << r.output;
  EXPECT_EQ(run_pstwin("simulate " + dir + "/toy.json --quiet --set /cluster/servers=21 --out " + dir +
                       "/ok").exit_code,
            0);
}

TEST(Cli, AccuracyTargetOutsideZeroToOneIsRejected) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));
  for (const char* target : {"1.5", "-1", "0"}) {
    const auto r = run_pstwin("simulate " + dir + "/toy.json --set /training/target_metric=" + target);
    EXPECT_EQ(r.exit_code, 2) << target << "\n" << r.output;
    EXPECT_NE(r.output.find("/training/target_metric"), std::string::npos) << r.output;
  }
}

TEST(Cli, UnknownCommandAndFlagExitWithStatus2) {
  EXPECT_EQ(run_pstwin("frobnicate").exit_code, 2);
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));
  const auto r = run_pstwin("simulate " + dir + "/toy.json --no-such-flag");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("no-such-flag"), std::string::npos) << r.output;
  EXPECT_EQ(run_pstwin("simulate " + dir + "/toy.json --jobs 0").exit_code, 2);
  EXPECT_EQ(run_pstwin("simulate " + dir + "/toy.json --jobs -1").exit_code, 2);
}

TEST(Cli, SimulatePrintsTheComparisonAndWritesEveryOutput) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));
  const auto r = run_pstwin("simulate " + dir + "/toy.json --out " + dir + "/out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* v : {"bsp", "asp", "ssp2"}) {
    EXPECT_NE(r.output.find(std::string("\n") + v + " "), std::string::npos) << r.output;
    for (const char* f : {"metrics.csv", "summary.json", "events.jsonl"})
      EXPECT_TRUE(std::filesystem::exists(dir + "/out/" + v + "/" + f)) << v << "/" << f;
    const auto summary = read_json(dir + "/out/" + v + "/summary.json");
    for (const char* key : {"variant", "mode", "final_test_metric", "time_to_target_s",
                            "sim_time_s", "wall_time_s", "failures", "time_lost_s", "updates",
                            "bytes_sent", "params_sha256"})
      EXPECT_TRUE(summary.contains(key)) << key;
    EXPECT_EQ(summary["params_sha256"].get<std::string>().size(), 64u);
  }
  const std::string csv = read_file(dir + "/out/comparison.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "variant,mode,time_to_target_s,last_test_metric,last_test_loss,updates,"
            "staleness_mean,staleness_max,sim_time_s,wall_time_s,time_lost_s,bytes_sent,bytes_to_servers,"
            "params_sha256,"
            "stop_reason,status");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4);
  EXPECT_NE(r.output.find("progress:"), std::string::npos) << "no progress line on stderr";
}

TEST(Cli, ScenarioReproducersExitWithStatus2NamingThePointer) {
  // Each aborted (exit 134) or was accepted before.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"number-out-of-range.json", "/training/learning_rate: number 1e400 is outside the range of a double"},
      {"seed-out-of-range.json", "/seed: number 1e400"},
      {"duplicate-key.json", "/cluster/workers: key \"workers\" is given twice in /cluster"},
      {"heartbeat-false-death.json", "/fault_tolerance/heartbeat_timeout: heartbeat_timeout (300ms) must be more"},
  };
  for (const auto& [file, message] : cases) {
    for (const char* command : {"validate", "simulate --quiet"}) {
      const auto r = run_pstwin(std::string(command) + " " + PSTWIN_SOURCE_DIR "/tests/inputs/" + file);
      EXPECT_EQ(r.exit_code, 2) << command << " " << file << "\n" << r.output;
      EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
    }
  }
}

TEST(Cli, ValidateChecksTheDataAndSaysWhatItDidNot) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));
  const auto ok = run_pstwin("validate " + dir + "/toy.json");
  ASSERT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("checked: " + dir + "/train.svm: all of it parses; labels -1, 1 fit model type "
                           "\"logistic\"; 2000 rows for 4 workers"),
            std::string::npos)
      << ok.output;
  // Both files read whole give the model's size: 20 features and a bias, over 2 servers.
  EXPECT_NE(ok.output.find("checked: model logistic of 21 keys x 1 float32: each of 2 servers gets keys, and its "
                           "largest message, a push or pull reply of one key range (11 keys x 1 float32), is 168 "
                           "bytes, within the wire's limit of 1073741824"),
            std::string::npos)
      << ok.output;
  EXPECT_EQ(ok.output.find("not checked: the model's size"), std::string::npos) << ok.output;
  // Each validated before, then simulate exited 2.
  std::ofstream(dir + "/labels24.svm") << "2 1:1\n# a comment\n4 2:1\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--set /data/train=missing.svm", "bad data at /data/train: missing.svm: cannot open: No such file or directory"},
      {"--set /data/test=missing.svm", "bad data at /data/test: missing.svm: cannot open"},
      {"--set /data/train=" + dir + "/labels24.svm",
       "bad data at /data/train: " + dir + "/labels24.svm:1: label 2 does not fit model type \"logistic\""},
      {"--set /cluster/workers=2001", "/cluster/workers: 2001 workers but only 2000 training rows in"},
  };
  for (const auto& [set, message] : cases) {
    const auto r = run_pstwin("validate " + dir + "/toy.json " + set);
    EXPECT_EQ(r.exit_code, 2) << set << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
  }
}

TEST(Cli, SvmlightQidFileTrainsLikeTheFileWithout) {
  // The reproducer: "qid:7" was "expected index:value with an integer index".
  const std::string dir = fresh_dir();
  nlohmann::json s = toy_scenario(dir);
  s["data"]["train"] = PSTWIN_SOURCE_DIR "/tests/inputs/qid.libsvm";
  s["data"]["test"] = PSTWIN_SOURCE_DIR "/tests/inputs/qid-ref.libsvm";
  s["training"] = {{"iterations", 5}, {"batch_size", 1}, {"learning_rate", 0.5}, {"eval_every", 1}};
  s["consistency"] = nlohmann::json::array({{{"mode", "bsp"}}});
  s["cluster"]["workers"] = 2;
  s["cluster"]["servers"] = 1;
  s.erase("stragglers");
  std::filesystem::create_directories(dir + "/qid");
  const std::string with_qid = simulate(dir + "/qid", s);
  s["data"]["train"] = PSTWIN_SOURCE_DIR "/tests/inputs/qid-ref.libsvm";
  std::filesystem::create_directories(dir + "/ref");
  const std::string without = simulate(dir + "/ref", s);
  EXPECT_EQ(read_json(with_qid + "/bsp/summary.json")["updates"], 10);
  EXPECT_EQ(sha_of(with_qid, "bsp"), sha_of(without, "bsp"));
}

TEST(Cli, KeygenWritesAPrivateKeyFileAndNeverOverwrites) {
  const std::string dir = fresh_dir();
  const auto r = run_pstwin("keygen " + dir + "/job.key");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string text = read_file(dir + "/job.key");
  EXPECT_NE(text.find("\npublic "), std::string::npos) << text;
  EXPECT_NE(text.find("\nsecret "), std::string::npos) << text;
  const auto perms = std::filesystem::status(dir + "/job.key").permissions();
  EXPECT_EQ(perms & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  const auto again = run_pstwin("keygen " + dir + "/job.key");
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_EQ(read_file(dir + "/job.key"), text);
}

/// Runs `pstwin ARGS` with stderr discarded: its exit status and what it wrote on stdout alone.
CommandResult run_pstwin_stdout(const std::string& args) {
  return run_pstwin(args + " 2>/dev/null; exit $?");
}

TEST(Cli, VersionSaysPstwinCommitAndLibraries) {
  const auto r = run_pstwin_stdout("--version");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.rfind("pstwin 0.1.0 (commit ", 0), 0u) << r.output;
  for (const char* line : {"\nSimGrid 3.", "\nZeroMQ 4.", "\nCUDA "})
    EXPECT_NE(r.output.find(line), std::string::npos) << line << " in\n" << r.output;
}

// nan and inf were taken as timeouts ("within nan s"), and a bad flag was named only as "timeouts".
TEST(Cli, TimeoutFlagsMustBeFiniteAndAreNamedWhenNot) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));
  const std::pair<std::string, std::string> cases[] = {
      {"launch " + dir + "/toy.json --stall-timeout nan", "pstwin launch: --stall-timeout must be a positive, finite number of seconds"},
      {"launch " + dir + "/toy.json --connect-timeout inf", "pstwin launch: --connect-timeout must be"},
      {"launch " + dir + "/toy.json --connect-timeout 0", "--connect-timeout must be"},
      {"launch " + dir + "/toy.json --port 70000", "pstwin launch: --port is too large: 70000 (it takes 0 to 65535)"},
      {"node --role worker --scheduler tcp://127.0.0.1:1 --insecure --variant bsp " + dir + "/toy.json --connect-timeout -1",
       "pstwin node: --connect-timeout must be"},
  };
  for (const auto& [args, message] : cases) {
    const auto r = run_pstwin(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
  }
}

TEST(Cli, EveryCommandsHelpGoesToStdoutWithStatus0) {
  for (const char* command : {"simulate", "launch", "node", "keygen", "validate"}) {
    const auto r = run_pstwin_stdout(std::string(command) + " --help");
    EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.output;
    EXPECT_NE(r.output.find(std::string("usage: pstwin ") + command), std::string::npos)
        << command << ": no usage on stdout:\n" << r.output;
  }
  const auto r = run_pstwin_stdout("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("--version"), std::string::npos) << r.output;
}

TEST(Cli, ValidatePrintsEachSetPointerWithItsValue) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));
  const auto r = run_pstwin_stdout("validate " + dir + "/toy.json --set /cluster/workers=8 "
                                   "--set /training/learning_rate=0.25 --set /stragglers/0/factor=3 "
                                   "--set '/stragglers/-={\"type\": \"slow\", \"workers\": [1], \"factor\": 2}'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* line : {"set: /cluster/workers = 8\n", "set: /training/learning_rate = 0.25\n",
                           "set: /stragglers/0/factor = 3\n",
                           "set: /stragglers/1 = {\"factor\":2,\"type\":\"slow\",\"workers\":[1]}\n"})
    EXPECT_NE(r.output.find(line), std::string::npos) << line << " in\n" << r.output;
}

TEST(Cli, VariantsRunWithTheirOwnOverrides) {
  const std::string dir = fresh_dir();
  auto s = toy_scenario(dir);
  s.erase("consistency");
  s["variants"] = nlohmann::json::parse(R"([
    {"name": "bsp"},
    {"name": "asp-slow", "consistency": {"mode": "asp"}, "set": {"/training/learning_rate": 0.05}}])");
  write_json(dir + "/v.json", s);
  const auto r = run_pstwin("simulate " + dir + "/v.json --quiet --out " + dir + "/out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto asp = read_json(dir + "/out/asp-slow/summary.json");
  EXPECT_EQ(asp["mode"], "asp");
  EXPECT_DOUBLE_EQ(asp["config"]["training"]["learning_rate"].get<double>(), 0.05);
  EXPECT_DOUBLE_EQ(read_json(dir + "/out/bsp/summary.json")["config"]["training"]["learning_rate"].get<double>(), 0.5);
  // A bad override is bad input naming the pointer inside the variant.
  s["variants"][1]["set"]["/training/learnin_rate"] = 0.1;
  write_json(dir + "/bad.json", s);
  const auto bad = run_pstwin("validate " + dir + "/bad.json");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("/variants/1/set/~1training~1learnin_rate: unknown key"), std::string::npos) << bad.output;
}

}  // namespace
}  // namespace pstwin
