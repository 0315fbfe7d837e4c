// Every flag a command's usage shows is one it accepts: the synopsis of its --help, its lines in
// `pstwin --help`, and its synopsis in README.md's "Commands", checked against the option table
// of its --help and tried on the command line. A trial's `launch --quiet`, copied from launch's
// usage, was refused as unknown.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

const std::vector<std::string> kCommands = {"simulate", "sweep",     "launch",  "node",
                                            "keygen",   "calibrate", "validate"};

/// Every "--flag" written in `text`.
std::set<std::string> flags_in(const std::string& text) {
  static const std::regex flag("--[a-z][a-z0-9-]*");
  std::set<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), flag); it != std::sregex_iterator(); ++it)
    out.insert(it->str());
  return out;
}

/// The options a command's --help table lists (Boost.Program_options' own account of what it
/// parses), each with whether it takes a value: "  -o [ --out ] arg   ..." or "  --quick  ...".
std::map<std::string, bool> option_table(const std::string& help) {
  static const std::regex row(R"(^  (?:-\w \[ )?(--[a-z][a-z0-9-]*)(?: \])?( arg)?)");
  std::map<std::string, bool> out;
  std::istringstream in(help);
  for (std::string line; std::getline(in, line);)
    if (std::smatch m; std::regex_search(line, m, row)) out[m[1]] = m[2].matched;
  return out;
}

/// A command's synopsis in its --help: the "usage:" line and the indented lines under it (the
/// text after them may name other commands' flags: keygen's key file goes to `--key-file`).
std::string synopsis_of(const std::string& help) {
  std::istringstream in(help);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (!(out.empty() ? line.rfind("usage:", 0) == 0 : line.rfind(" ", 0) == 0)) break;
    out += line + "\n";
  }
  return out;
}

/// `pstwin --help`'s lines about each command: "  launch SCENARIO.json [...]" and the indented
/// description under it.
std::map<std::string, std::string> top_level_usage(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string current;
  for (std::string line; std::getline(in, line);) {
    const bool entry = line.size() > 2 && line.rfind("  ", 0) == 0 && line[2] != ' ';
    if (entry) current = line.substr(2, line.find(' ', 2) - 2);
    if (!current.empty() && line.rfind("  ", 0) == 0) out[current] += line + "\n";
    if (line.empty()) current.clear();
  }
  return out;
}

/// README.md's synopsis of each command: the code block under "## Commands", "pstwin CMD ..."
/// and its continuation lines.
std::map<std::string, std::string> readme_synopses() {
  const std::string readme = read_file(PSTWIN_SOURCE_DIR "/README.md");
  std::istringstream in(readme.substr(readme.find("\n## Commands")));
  std::map<std::string, std::string> out;
  std::string current;
  bool in_block = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("    ", 0) != 0) {
      if (in_block) break;
      continue;
    }
    in_block = true;
    const std::string text = line.substr(line.find_first_not_of(' '));
    if (text.rfind("pstwin ", 0) == 0) current = text.substr(7, text.find(' ', 7) - 7);
    out[current] += text + "\n";
  }
  return out;
}

TEST(CliUsage, EveryFlagAUsageShowsIsAccepted) {
  const auto top = run_pstwin("--help");
  ASSERT_EQ(top.exit_code, 0) << top.output;
  const auto top_lines = top_level_usage(top.output);
  const auto readme = readme_synopses();
  for (const std::string& command : kCommands) {
    const auto help = run_pstwin(command + " --help");
    ASSERT_EQ(help.exit_code, 0) << command << "\n" << help.output;
    const auto accepted = option_table(help.output);
    EXPECT_TRUE(top_lines.count(command)) << "pstwin --help does not list " << command << "\n" << top.output;
    EXPECT_TRUE(readme.count(command)) << "README's Commands has no synopsis of " << command;
    const std::map<std::string, std::string> sources = {
        {"its usage", synopsis_of(help.output)},
        {"pstwin --help", top_lines.count(command) ? top_lines.at(command) : ""},
        {"README.md", readme.count(command) ? readme.at(command) : ""}};
    // Tried, all at once: one command line with every flag shown, a value for each that takes
    // one, must get past the parser (it then stops at the values, "1" for all).
    std::string line = command;
    std::set<std::string> tried;
    for (const auto& [where, text] : sources)
      for (const std::string& flag : flags_in(text)) {
        EXPECT_TRUE(accepted.count(flag)) << command << ": " << where << " shows " << flag
                                          << ", which the command does not accept";
        if (flag == "--help" || !tried.insert(flag).second) continue;
        line += " " + flag + (accepted.count(flag) && accepted.at(flag) ? " 1" : "");
      }
    const auto r = run_pstwin(line);
    EXPECT_EQ(r.output.find("unrecognised option"), std::string::npos) << line << "\n" << r.output;
    EXPECT_NE(r.exit_code, 0) << line << "\n" << r.output;  // "1" is no scenario: refused, nothing run
  }
}

// The other way: README's synopsis of a command shows every flag its --help lists (a trial found
// launch's without --insecure, --key-file, --resume, --ssh-command, --scheduler-host and --port).
// --help, and --scenario (the positional SCENARIO.json by name), go without saying.
TEST(CliUsage, ReadmeShowsEveryFlagACommandAccepts) {
  const auto readme = readme_synopses();
  for (const std::string& command : kCommands) {
    const auto help = run_pstwin(command + " --help");
    ASSERT_EQ(help.exit_code, 0) << command << "\n" << help.output;
    const std::set<std::string> shown = readme.count(command) ? flags_in(readme.at(command)) : std::set<std::string>{};
    for (const auto& [flag, takes_value] : option_table(help.output))
      if (flag != "--help" && flag != "--scenario") {
        EXPECT_TRUE(shown.count(flag)) << command << ": README's synopsis leaves out " << flag;
      }
  }
}

}  // namespace
}  // namespace pstwin
