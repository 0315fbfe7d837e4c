#include "cli/override_note.h"

namespace pstwin::cli {

namespace {

/// "--set /a=1", "PSTWIN_SET=/a=1": the override as the user gave it.
std::string shown(const ScenarioOverride& o) {
  return o.flag + (o.flag.rfind("--", 0) == 0 ? " " : "=") + o.text;
}

std::string pointer_of(const ScenarioOverride& o) { return o.text.substr(0, o.text.find('=')); }

/// The last override at or above `pointer` (the last one applied wins), or null.
const ScenarioOverride* setting(const std::vector<ScenarioOverride>& overrides, const std::string& pointer) {
  for (auto it = overrides.rbegin(); it != overrides.rend(); ++it) {
    const std::string at = pointer_of(*it);
    if (pointer == at || pointer.rfind(at + "/", 0) == 0) return &*it;
  }
  return nullptr;
}

/// The way out of "give iterations or epochs, not both" when an override brought one of them
/// and the file has the other (README, "How long a run lasts"): remove the file's.
std::string both_lengths_hint(const std::vector<ScenarioOverride>& overrides, const std::string& message) {
  if (message.find("give \"iterations\" or \"epochs\", not both") == std::string::npos) return "";
  for (auto it = overrides.rbegin(); it != overrides.rend(); ++it) {
    const std::string at = pointer_of(*it);
    const char* other = at == "/training/epochs" ? "iterations" : at == "/training/iterations" ? "epochs" : nullptr;
    if (other)
      return "; to replace the file's " + std::string(other) + ", add " + it->flag +
             (it->flag.rfind("--", 0) == 0 ? " " : "=") + "/training/" + other + "=null";
  }
  return "";
}

}  // namespace

std::vector<ScenarioOverride> overrides_of(const std::vector<std::string>& sets, const std::string& flag) {
  std::vector<ScenarioOverride> out;
  for (const std::string& set : sets) out.push_back({flag, set});
  return out;
}

std::string override_note(const std::vector<ScenarioOverride>& overrides, const std::string& pointer,
                          const std::string& message, const ErrorWithout& error_without) {
  if (overrides.empty()) return "";
  // An error inside an included file is the include's, whatever its pointer in the merged
  // cluster: blame the override that named the file, never one that happens to sit above it.
  const bool included = message.find("in the included file \"") != std::string::npos;
  const std::string hint = both_lengths_hint(overrides, message);
  if (const ScenarioOverride* o = setting(overrides, included ? "/cluster/include" : pointer))
    return " (the value of " + shown(*o) + ")" + hint;
  if (included) return "";  // the file's own include: the message names the file
  // A clash the overrides made (1000 workers, each with too few rows for the file's batch): the
  // error is at another pointer. Tried without each override in turn where that can be done.
  std::string list;
  for (std::size_t i = 0; i < overrides.size(); ++i)
    if (!error_without || error_without(i) != message) list += (list.empty() ? "" : ", ") + shown(overrides[i]);
  if (!error_without) return " (with " + list + " in effect)" + hint;
  if (list.empty()) return hint;  // the file's own error
  return " (a clash made by " + list + ": without " + (list.find(", ") == std::string::npos ? "it" : "any one of them") +
         " this error does not arise)" + hint;
}

}  // namespace pstwin::cli
