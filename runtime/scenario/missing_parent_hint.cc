#include "runtime/scenario/missing_parent_hint.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "runtime/edit_distance.h"
#include "runtime/errors.h"
#include "runtime/scenario/json_fields.h"

namespace pstwin {

namespace {

/// A reference token that indexes a list: digits, or "-" (RFC 6901's past-the-end element).
bool is_index(const std::string& token) {
  return token == "-" || (!token.empty() && std::all_of(token.begin(), token.end(), [](char c) {
    return c >= '0' && c <= '9';
  }));
}

/// The error `parse` finds in `doc` ("" when none, or without `parse`).
std::string parse_error(const ParseCheck& parse, const nlohmann::json& doc, std::string* pointer = nullptr) {
  if (!parse) return "";
  try {
    parse(doc);
  } catch (const ScenarioError& e) {
    if (pointer) *pointer = e.pointer();
    return e.what();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

/// `allowed` ("a, b, c", as the scenario's unknown-key errors list them) split at ", ".
std::vector<std::string> split_list(const std::string& allowed) {
  std::vector<std::string> out;
  for (std::size_t at = 0; at <= allowed.size();) {
    const std::size_t end = std::min(allowed.find(", ", at), allowed.size());
    out.push_back(allowed.substr(at, end - at));
    at = end + 2;
  }
  return out;
}

/// " (did you mean "simulation"?)" for the allowed key closest to `key`, when a typo away (at most
/// a third of its letters, and at least one, differ); else "".
std::string closest(const std::string& key, const std::vector<std::string>& allowed) {
  const std::string* best = nullptr;
  std::size_t best_distance = typo_limit(key.size()) + 1;
  for (const std::string& a : allowed)
    if (const std::size_t d = edit_distance(key, a); d < best_distance) best = &a, best_distance = d;
  return best ? " (did you mean \"" + *best + "\"?)" : "";
}

/// `v` with every float that holds an integer (up to 2^53) written as that integer: "1e1" on the
/// command line parses as 10.0, which the advice would show as 10.0 for an integer field such
/// as nic_window. A float field takes the integer as well.
nlohmann::json integers_as_written(const nlohmann::json& v) {
  if (v.is_number_float()) {
    const double x = v.get<double>();
    if (std::trunc(x) == x && std::fabs(x) <= 9007199254740992.0)
      return x < 0 ? nlohmann::json(static_cast<std::int64_t>(x)) : nlohmann::json(static_cast<std::uint64_t>(x));
    return v;
  }
  if (!v.is_structured()) return v;
  nlohmann::json out = v;
  for (auto& element : out) element = integers_as_written(element);
  return out;
}

}  // namespace

std::string missing_parent_hint(const nlohmann::json& doc, const std::string& pointer, const nlohmann::json& value,
                                OverrideForm form, const ParseCheck& parse) {
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
  const std::string parent_object = top.empty() ? "" : top.to_string();
  top /= tokens[k];
  // What goes at `top`: the value inside an object per key below it, or a list per index.
  nlohmann::json nested = integers_as_written(value);
  for (std::size_t i = tokens.size() - 1; i > k; --i) {
    if (!is_index(tokens[i])) nested = {{tokens[i], nested}};
    else if (tokens[i] == "0" || tokens[i] == "-") nested = nlohmann::json::array({nested});
    else return "";  // a new list starts at element 0
  }
  const std::string top_text = top.to_string();
  const std::string written = scenario_json::json_text(nested);
  const std::string setting = form == OverrideForm::kCommandLine ? "--set '" + top_text + "=" + written + "'"
                                                                 : "\"" + top_text + "\": " + written;
  // The plain refusal first: a typo in the pointer reads as one.
  const std::string refusal =
      "cannot set: the parent " + target.parent_pointer().to_string() + " does not exist: ";
  const std::string what = k == 0 ? "the scenario has no " + top_text + " section"
                                  : "the scenario has no " + top_text;
  // Tried first: advice the scenario would refuse is no advice.
  nlohmann::json advised = doc;
  advised[top] = nested;
  std::string at;
  const std::string after = parse_error(parse, advised, &at);
  // Its fault when the error is in what it adds, or the document was valid without it (an error
  // elsewhere that a later override may mend says nothing about the advice).
  const bool inside = at == top_text || at.starts_with(top_text + "/");
  if (after.empty() || !(inside || parse_error(parse, doc).empty()))
    return refusal + what + "; add it with the key inside: " + setting;
  // The missing key itself is one its object cannot have: a typo, most likely.
  const std::string unknown = "unknown key \"" + tokens[k] + "\"; allowed keys: ";
  if (const std::size_t u = after.find(unknown); at == top_text && u != std::string::npos) {
    const std::vector<std::string> allowed = split_list(after.substr(u + unknown.size()));
    std::string list;
    for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
    const std::string hint = closest(tokens[k], allowed);
    if (k == 0) return refusal + "a scenario has no section \"" + tokens[k] + "\"" + hint + "; its sections are " + list;
    return refusal + parent_object + " has no key \"" + tokens[k] + "\"" + hint + "; its keys are " + list;
  }
  return refusal + what + "; adding it with the key inside (" + setting + ") is refused too: " + after;
}

}  // namespace pstwin
