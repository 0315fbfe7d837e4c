#include "cli/environment_variables.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>

#include "runtime/edit_distance.h"

extern char** environ;

namespace pstwin::cli {

namespace {

constexpr std::string_view kPrefix = "PSTWIN_";

/// `text` in capitals (ASCII): variables are compared as the user may have meant them.
std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

/// The variable's name in a "NAME=VALUE" entry, or "" when it does not start with PSTWIN_ (in
/// any case: "pstwin_quiet" is a slip too).
std::string_view pstwin_name(const std::string& entry) {
  if (upper(std::string_view(entry).substr(0, kPrefix.size())) != kPrefix) return {};
  return std::string_view(entry).substr(0, entry.find('='));
}

const EnvironmentVariable* find_variable(std::string_view name) {
  for (const auto& v : environment_variables())
    if (v.name == name) return &v;
  return nullptr;
}

}  // namespace

const std::vector<EnvironmentVariable>& environment_variables() {
  using R = VariableReader;
  static const std::vector<EnvironmentVariable> all = {
      {"PSTWIN_ADVERTISE", R::kNode},       {"PSTWIN_BIND", R::kNode},
      {"PSTWIN_CHECKPOINT_DIR", R::kNode},  {"PSTWIN_CONNECT_TIMEOUT", R::kNode},
      {"PSTWIN_DEVICE", R::kNode},          {"PSTWIN_ENDPOINT_FILE", R::kNode},
      {"PSTWIN_INDEX", R::kNode},           {"PSTWIN_INSECURE", R::kNode},
      {"PSTWIN_JOIN", R::kNode},            {"PSTWIN_KEY_FILE", R::kNode},
      {"PSTWIN_METRICS_ADDRESS", R::kNode}, {"PSTWIN_OUT", R::kNode},
      {"PSTWIN_QUIET", R::kNode},           {"PSTWIN_REJOIN", R::kNode},
      {"PSTWIN_RESUME", R::kNode},          {"PSTWIN_ROLE", R::kNode},
      {"PSTWIN_SCENARIO", R::kNode},        {"PSTWIN_SCHEDULER", R::kNode},
      {"PSTWIN_SET", R::kNode},             {"PSTWIN_SIMGRID_CFG", R::kSimulation},
      {"PSTWIN_STALL_TIMEOUT", R::kNode},   {"PSTWIN_TEST_TIME_SCALE", R::kTests},
      {"PSTWIN_TRANSPORT", R::kNode},       {"PSTWIN_VARIANT", R::kNode},
  };
  return all;
}

std::string closest_variable(std::string_view name) {
  // The part after PSTWIN_: the prefix, common to all, would make any name look close.
  const std::string wanted = upper(name.substr(std::min(name.size(), kPrefix.size())));
  const EnvironmentVariable* best = nullptr;
  std::size_t best_distance = typo_limit(wanted.size()) + 1;
  for (const auto& v : environment_variables()) {
    const std::size_t d = edit_distance(wanted, v.name.substr(kPrefix.size()));
    if (d < best_distance) {
      best = &v;
      best_distance = d;
    }
  }
  return best ? std::string(best->name) : "";
}

std::vector<std::string> unknown_variable_warnings(const std::vector<std::string>& environment,
                                                   std::vector<std::string>* unknown) {
  std::vector<std::string> lines;
  for (const std::string& entry : environment) {
    const std::string_view name = pstwin_name(entry);
    if (name.empty() || find_variable(name) != nullptr) continue;
    const std::string closest = closest_variable(name);
    lines.push_back(std::string(name) + " is not a variable pstwin reads, so it is ignored" +
                    (closest.empty() ? "" : " (did you mean " + closest + "?)"));
    if (unknown) unknown->emplace_back(name);
  }
  return lines;
}

std::vector<std::string> node_variables_in(const std::vector<std::string>& environment) {
  std::vector<std::string> names;
  for (const std::string& entry : environment) {
    const EnvironmentVariable* v = find_variable(pstwin_name(entry));
    if (v != nullptr && v->reader == VariableReader::kNode) names.emplace_back(v->name);
  }
  return names;
}

std::string node_variable_warning(const std::string& command, const std::string& variable) {
  return variable + " is for pstwin node; " + command +
         (command == "launch" ? " sets its nodes' options itself" : " takes its options from the command line") +
         ", so it is ignored";
}

std::vector<std::string> process_environment() {
  std::vector<std::string> entries;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) entries.emplace_back(*e);
  return entries;
}

}  // namespace pstwin::cli
