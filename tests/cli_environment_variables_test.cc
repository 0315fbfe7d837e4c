// PSTWIN_ environment variables: one list of the known ones (README says the same), switches
// read from the environment taking only an unmistakable yes or no, errors about a file a
// variable named naming that variable, and a warning for a variable nothing reads.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "cli/environment_variables.h"
#include "tests/launch_script.h"
#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

std::set<std::string> known_names(cli::VariableReader only, bool all) {
  std::set<std::string> names;
  for (const auto& v : cli::environment_variables())
    if (all || v.reader == only) names.emplace(v.name);
  return names;
}

TEST(EnvironmentVariables, ReadmeListsExactlyTheKnownVariables) {
  // The README's section "Environment variables": one "- `PSTWIN_NAME`..." item per variable.
  std::ifstream in(std::string(PSTWIN_SOURCE_DIR) + "/README.md");
  std::set<std::string> listed;
  bool inside = false;
  const std::regex item("^- `(PSTWIN_[A-Z0-9_]+)`");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) inside = line == "## Environment variables";
    std::smatch m;
    if (inside && std::regex_search(line, m, item)) {
      EXPECT_TRUE(listed.insert(m[1]).second) << m[1] << " twice";
    }
  }
  EXPECT_EQ(listed, known_names(cli::VariableReader::kNode, true));
}

TEST(EnvironmentVariables, NodeVariablesAreNodesOptions) {
  // Read from `pstwin node --help`, an independent route to the options: every option but
  // --help has its variable in the list, and the list has no node variable without an option.
  const auto r = run_pstwin("node --help");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::set<std::string> from_help;
  const std::regex option("^  (?:-[a-z] \\[ )?--([a-z-]+)");
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, option) || m[1] == "help") continue;
    std::string name = "PSTWIN_" + m[1].str();
    for (char& c : name) c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    from_help.insert(name);
  }
  EXPECT_EQ(from_help, known_names(cli::VariableReader::kNode, false));
}

TEST(EnvironmentVariables, ClosestNameIsTheFewestEditsAway) {
  EXPECT_EQ(cli::closest_variable("PSTWIN_INSECUR"), "PSTWIN_INSECURE");          // 1 insertion
  EXPECT_EQ(cli::closest_variable("PSTWIN_STAL_TIMEOUT"), "PSTWIN_STALL_TIMEOUT");  // 1 insertion
  EXPECT_EQ(cli::closest_variable("PSTWIN_ROEL"), "PSTWIN_ROLE");                 // 1 swap
  EXPECT_EQ(cli::closest_variable("PSTWIN_KEYFILE"), "PSTWIN_KEY_FILE");
  EXPECT_EQ(cli::closest_variable("PSTWIN_SIMGRID_CONFIG"), "PSTWIN_SIMGRID_CFG");
}

// A trial's PSTWIN_insecure was offered PSTWIN_BIND (lower case letters all differed), and
// PSTWIN_JOBS was offered PSTWIN_JOIN: any name at all, however far.
TEST(EnvironmentVariables, ClosestNameIgnoresCaseAndIsOnlyATypoAway) {
  EXPECT_EQ(cli::closest_variable("PSTWIN_insecure"), "PSTWIN_INSECURE");
  EXPECT_EQ(cli::closest_variable("pstwin_Quiet"), "PSTWIN_QUIET");
  EXPECT_EQ(cli::closest_variable("PSTWIN_Insecur"), "PSTWIN_INSECURE");
  // "JOBS" is 2 edits from JOIN: half its letters, no typo. Nothing is offered.
  EXPECT_EQ(cli::closest_variable("PSTWIN_JOBS"), "");
  EXPECT_EQ(cli::closest_variable("PSTWIN_THREADS"), "");
  const auto lines = cli::unknown_variable_warnings({"PSTWIN_JOBS=4", "PSTWIN_insecure=1", "pstwin_quiet=1", "HOME=/"});
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "PSTWIN_JOBS is not a variable pstwin reads, so it is ignored");
  EXPECT_EQ(lines[1], "PSTWIN_insecure is not a variable pstwin reads, so it is ignored (did you mean PSTWIN_INSECURE?)");
  EXPECT_EQ(lines[2], "pstwin_quiet is not a variable pstwin reads, so it is ignored (did you mean PSTWIN_QUIET?)");
}

// Errors about what PSTWIN_SET and PSTWIN_OUT gave named --set and --out, flags never written.
TEST(EnvironmentVariables, SetAndOutErrorsNameTheirVariables) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  const std::string worker = "node --role worker --scheduler tcp://127.0.0.1:9 --insecure " + dir + "/s.json";
  auto r = run_pstwin_env("PSTWIN_SET=/cluster/workers=0", worker);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("(the value of PSTWIN_SET=/cluster/workers=0)"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("--set"), std::string::npos) << r.output;
  // The advice for a section the scenario lacks is given as the variable too.
  r = run_pstwin_env("PSTWIN_SET=/simulation/nic_send_window=1", worker);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("PSTWIN_SET='/simulation="), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("--set"), std::string::npos) << r.output;
  // An output folder over the scenario, from PSTWIN_OUT.
  r = run_pstwin_env("PSTWIN_OUT=" + dir + "/s.json",
                     "node --role scheduler --scheduler tcp://127.0.0.1:* --insecure --connect-timeout 1 " + dir +
                         "/s.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("pstwin node: PSTWIN_OUT " + dir + "/s.json: that is the scenario"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("give another PSTWIN_OUT"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("--out"), std::string::npos) << r.output;
}

TEST(EnvironmentVariables, AVariableNothingReadsIsWarnedAboutNamingTheClosest) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  const auto r = run_pstwin_env("PSTWIN_INSECUR=1 PSTWIN_QUIET=1", "validate " + dir + "/s.json");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("pstwin: warning: PSTWIN_INSECUR is not a variable pstwin reads, so it is ignored "
                          "(did you mean PSTWIN_INSECURE?)\n"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("PSTWIN_QUIET is not"), std::string::npos) << r.output;  // a known one
}

TEST(EnvironmentVariables, SwitchVariablesRefuseAnythingButYesOrNo) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  const std::string node = "node --role worker --scheduler tcp://127.0.0.1:9 --insecure " + dir + "/s.json";
  for (const std::string variable : {"PSTWIN_QUIET", "PSTWIN_REJOIN", "PSTWIN_JOIN", "PSTWIN_INSECURE"}) {
    const auto r = run_pstwin_env(variable + "=banana", node);
    EXPECT_EQ(r.exit_code, 2) << variable << ": " << r.output;
    EXPECT_NE(r.output.find(variable + " must be 1, true or yes (on) or 0, false, no or empty (off), not 'banana'"),
              std::string::npos)
        << r.output;
  }
}

TEST(EnvironmentVariables, SwitchVariablesAreReadAndNamedInTheirErrors) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  const std::string node = "node --role worker --scheduler tcp://127.0.0.1:9 --insecure " + dir + "/s.json";
  // On: read (the checks that follow from it apply), and named as the user gave it.
  auto r = run_pstwin_env("PSTWIN_REJOIN=yes", node);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("pstwin node: PSTWIN_REJOIN needs --index"), std::string::npos) << r.output;
  r = run_pstwin_env("PSTWIN_JOIN=TRUE", node + " --index 0");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("pstwin node: PSTWIN_JOIN needs --role server"), std::string::npos) << r.output;
  // Off: not read as on.
  r = run_pstwin_env("PSTWIN_REJOIN=0 PSTWIN_JOIN=no", node + " --connect-timeout 0.3");
  EXPECT_EQ(r.output.find("needs --index"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("cannot reach the scheduler at tcp://127.0.0.1:9"), std::string::npos) << r.output;
}

TEST(EnvironmentVariables, QuietFromTheEnvironmentSilencesTheNode) {
  // A scheduler whose nodes never come ends with its table and "outputs: ...", unless quiet.
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  const std::string node = "node --role scheduler --scheduler tcp://127.0.0.1:* --insecure --connect-timeout 0.3 " +
                           dir + "/s.json --out " + dir + "/";
  const auto loud = run_pstwin(node + "loud");
  const auto quiet = run_pstwin_env("PSTWIN_QUIET=1", node + "quiet");
  EXPECT_NE(loud.output.find("outputs: " + dir + "/loud"), std::string::npos) << loud.output;
  EXPECT_EQ(quiet.output.find("outputs: "), std::string::npos) << quiet.output;
  EXPECT_TRUE(std::filesystem::exists(dir + "/quiet/summary.json")) << quiet.output;
}

TEST(EnvironmentVariables, KeyFileErrorsNameTheVariable) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  ASSERT_EQ(run_pstwin("keygen " + dir + "/a.key").exit_code, 0);
  ASSERT_EQ(run_pstwin("keygen " + dir + "/b.key").exit_code, 0);
  // A pair made of a's public line and b's secret line.
  std::string a_public, b_secret;
  for (std::istringstream a(read_file(dir + "/a.key")); std::getline(a, a_public) && a_public.rfind("public", 0);) {}
  for (std::istringstream b(read_file(dir + "/b.key")); std::getline(b, b_secret) && b_secret.rfind("secret", 0);) {}
  std::ofstream(dir + "/mixed.key") << a_public << "\n" << b_secret << "\n";
  std::ofstream(dir + "/short.key") << "public abc\n";
  std::filesystem::create_directories(dir + "/folder.key");
  const std::string node = "node --role worker --scheduler tcp://127.0.0.1:9 " + dir + "/s.json";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"missing.key", "missing.key: No such file or directory"},
      {"folder.key", "folder.key is a folder"},
      {"short.key", "short.key:1: expected 'public <40 Z85 characters>'"},
      {"mixed.key", "mixed.key: its public key is not the secret key's"}};
  for (const auto& [file, why] : cases) {
    const auto r = run_pstwin_env("PSTWIN_KEY_FILE=" + dir + "/" + file, node);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("pstwin node: PSTWIN_KEY_FILE: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(why), std::string::npos) << r.output;
  }
  const auto flag = run_pstwin(node + " --key-file " + dir + "/missing.key");
  EXPECT_NE(flag.output.find("pstwin node: --key-file: cannot read key file"), std::string::npos) << flag.output;
  const auto launch = run_pstwin("launch " + dir + "/s.json --out " + dir + "/out --key-file " + dir + "/mixed.key");
  EXPECT_EQ(launch.exit_code, 2) << launch.output;
  EXPECT_NE(launch.output.find("pstwin launch: --key-file: " + dir + "/mixed.key: its public key"), std::string::npos)
      << launch.output;
}

TEST(EnvironmentVariables, EndpointFileThatCannotBeWrittenIsRefusedAsTheSchedulerStarts) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  const std::string scheduler = "node --role scheduler --scheduler tcp://127.0.0.1:* --insecure --connect-timeout 1 "
                                "--out " + dir + "/out " + dir + "/s.json";
  const auto r = run_pstwin_env("PSTWIN_ENDPOINT_FILE=" + dir + "/no/such/folder/ep", scheduler);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("pstwin node: PSTWIN_ENDPOINT_FILE " + dir + "/no/such/folder/ep: "), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("registered within"), std::string::npos) << "refused before it listened: " << r.output;
  // A node that is not the scheduler writes none, and says so.
  const auto worker = run_pstwin_env("PSTWIN_ENDPOINT_FILE=" + dir + "/ep",
                                     "node --role worker --scheduler tcp://127.0.0.1:9 --insecure --connect-timeout 0.3 " +
                                         dir + "/s.json");
  EXPECT_NE(worker.output.find("pstwin node (worker): PSTWIN_ENDPOINT_FILE is ignored"), std::string::npos)
      << worker.output;
}

TEST(EnvironmentVariables, LaunchIgnoresNodeVariablesRatherThanPassThemToItsNodes) {
  // PSTWIN_INDEX would reach launch's scheduler, which has no index: the job would not start.
  const std::string dir = fresh_dir();
  auto s = endless_job();
  s["training"]["iterations"] = 20;
  s["training"]["eval_every"] = 10;
  write_json(dir + "/s.json", s);
  const auto r = run_pstwin_env("PSTWIN_INDEX=0", "launch " + dir + "/s.json --insecure --out " + dir + "/out");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("pstwin launch: warning: PSTWIN_INDEX is for pstwin node; launch sets its nodes' options "
                          "itself, so it is ignored"),
            std::string::npos)
      << r.output;
  EXPECT_TRUE(read_json(dir + "/out/bsp/summary.json")["completed"].get<bool>());
}

}  // namespace
}  // namespace pstwin
