#include "runtime/scenario/missing_parent_hint.h"

#include <vector>

#include "runtime/scenario/json_fields.h"

namespace pstwin {

std::string missing_parent_hint(const nlohmann::json& doc, const std::string& pointer, const nlohmann::json& value,
                                OverrideForm form) {
  nlohmann::json::json_pointer target;
  try {
    target = nlohmann::json::json_pointer(pointer);
  } catch (const nlohmann::json::exception&) {
    return "";  // the pointer's own error says what is wrong
  }
  if (target.empty() || scenario_json::has_pointer(doc, target.parent_pointer())) return "";
  std::vector<std::string> tokens;
  for (auto p = target; !p.empty(); p = p.parent_pointer()) tokens.insert(tokens.begin(), p.back());
  // The shallowest missing key: its container exists (the document at least), and it must be an
  // object for a key to be added there.
  nlohmann::json::json_pointer top;
  std::size_t k = 0;
  while (scenario_json::has_pointer(doc, top / tokens[k])) top /= tokens[k++];
  if (!doc.at(top).is_object()) return "";
  top /= tokens[k];
  nlohmann::json nested = value;
  for (std::size_t i = tokens.size() - 1; i > k; --i) nested = {{tokens[i], nested}};
  const std::string top_text = top.to_string();
  const std::string what = k == 0 ? "the scenario has no " + top_text + " section"
                                  : "the scenario has no " + top_text;
  const std::string written = scenario_json::json_text(nested);
  const std::string setting = form == OverrideForm::kCommandLine ? "--set '" + top_text + "=" + written + "'"
                                                                 : "\"" + top_text + "\": " + written;
  // The plain refusal first: a typo in the pointer reads as one, and following the advice with a
  // typo is refused as an unknown key.
  const std::string parent = target.parent_pointer().to_string();
  return "cannot set: the parent " + parent + " does not exist: " + what + "; add it with the key inside: " + setting;
}

}  // namespace pstwin
