#include "cli/override_note.h"

namespace pstwin::cli {

std::vector<ScenarioOverride> overrides_of(const std::vector<std::string>& sets, const std::string& flag) {
  std::vector<ScenarioOverride> out;
  for (const std::string& set : sets) out.push_back({flag, set});
  return out;
}

std::string override_note(const std::vector<ScenarioOverride>& overrides, const std::string& pointer) {
  for (auto it = overrides.rbegin(); it != overrides.rend(); ++it) {
    const std::string at = it->text.substr(0, it->text.find('='));
    if (pointer == at || pointer.rfind(at + "/", 0) == 0)
      return " (the value of " + it->flag + (it->flag.rfind("--", 0) == 0 ? " " : "=") + it->text + ")";
  }
  return "";
}

}  // namespace pstwin::cli
