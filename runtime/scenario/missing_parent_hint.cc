#include "runtime/scenario/missing_parent_hint.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
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

/// What goes at tokens[k]: `value` inside an object per key below it (tokens[k + 1] on), or a
/// list per index; nullopt when an index below would start a list past element 0.
std::optional<nlohmann::json> nested(const nlohmann::json& value, const std::vector<std::string>& tokens,
                                     std::size_t k) {
  nlohmann::json out = integers_as_written(value);
  for (std::size_t i = tokens.size() - 1; i > k; --i) {
    if (!is_index(tokens[i])) out = {{tokens[i], out}};
    else if (tokens[i] == "0" || tokens[i] == "-") out = nlohmann::json::array({out});
    else return std::nullopt;  // a new list starts at element 0
  }
  return out;
}

/// An override of `pointer` to `value` as the user would write it: --set '/a=1' or "/a": 1.
std::string setting_text(const std::string& pointer, const nlohmann::json& value, OverrideForm form) {
  const std::string written = scenario_json::json_text(value);
  return form == OverrideForm::kCommandLine ? "--set '" + pointer + "=" + written + "'"
                                            : "\"" + pointer + "\": " + written;
}

/// An override through an element the list at `list` lacks (tokens[k]: "-", RFC 6901's element
/// after the last, or an index past the end), with keys below it ("/consistency/-/mode"): there
/// is no element to set a key in. Says what "-" (or the index) names, and the two overrides meant:
/// a key of an element that exists, by its index, or a whole new element appended.
std::string missing_element_hint(const nlohmann::json& doc, const nlohmann::json::json_pointer& list,
                                 const std::vector<std::string>& tokens, std::size_t k, const nlohmann::json& value,
                                 OverrideForm form, const ParseCheck& parse) {
  const auto element = nested(value, tokens, k);
  if (!element) return "";
  const std::size_t size = doc.at(list).size();
  const std::string list_text = list.to_string();
  nlohmann::json::json_pointer target(list);
  for (std::size_t i = k; i < tokens.size(); ++i) target /= tokens[i];
  std::string text = "cannot set: the parent " + target.parent_pointer().to_string() + " does not exist: ";
  text += tokens[k] == "-" ? "\"-\" in a JSON pointer is the element after the last of " + list_text +
                                 " (it appends one), so there is nothing in it to set yet"
                           : list_text + " has no element " + tokens[k];
  text += "; " + list_text + " has " + std::to_string(size) + (size == 1 ? " element" : " elements");
  if (size > 0) {
    nlohmann::json::json_pointer first(list);
    first /= "0";
    for (std::size_t i = k + 1; i < tokens.size(); ++i) first /= tokens[i];
    text += ": to change a key of one, give its index (0 to " + std::to_string(size - 1) + "): " +
            setting_text(first.to_string(), integers_as_written(value), form);
  }
  text += "; to add one, give it whole: " + setting_text(list_text + "/-", *element, form);
  // Tried first, as the other advice is: a trial's /consistency/-/mode=bsp appended a second
  // "bsp", which the scenario refuses; said, so that the user writes the rest of the element.
  nlohmann::json advised = doc;
  advised[list].push_back(*element);
  std::string at;
  const std::string after = parse_error(parse, advised, &at);
  if (!after.empty() && (at == list_text || at.starts_with(list_text + "/")) && parse_error(parse, doc).empty())
    text += " (as written it is refused: " + after + ")";
  return text;
}

/// An override that names an element of the list at `list` by a key (tokens[k],
/// "/consistency/x/mode"): a list's elements are named by index. Suggests the element whose
/// "name" (or, unnamed, whose "mode") is that key, else the first, and says the range.
std::string list_key_hint(const nlohmann::json& elements, const nlohmann::json::json_pointer& list,
                          const std::vector<std::string>& tokens, std::size_t k, const nlohmann::json& value,
                          OverrideForm form) {
  nlohmann::json::json_pointer target(list);
  for (std::size_t i = k; i < tokens.size(); ++i) target /= tokens[i];
  const std::string list_text = list.to_string();
  std::string text = "cannot set: the parent " + target.parent_pointer().to_string() + " does not exist: " +
                     list_text + " is a list, whose elements are given by index, not by a key (\"" + tokens[k] +
                     "\")";
  if (elements.empty()) return text + ", and it is empty";
  std::size_t index = 0;
  for (std::size_t i = 0; i < elements.size(); ++i)
    if (elements[i].is_object() && (elements[i].contains("name") ? elements[i]["name"] == tokens[k]
                                                                  : elements[i].value("mode", nlohmann::json()) == tokens[k]))
      index = i;
  nlohmann::json::json_pointer meant(list);
  meant /= std::to_string(index);
  for (std::size_t i = k + 1; i < tokens.size(); ++i) meant /= tokens[i];
  return text + ": give an index from 0 to " + std::to_string(elements.size() - 1) + ", as in " +
         setting_text(meant.to_string(), integers_as_written(value), form);
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
  if (doc.at(top).is_array() && is_index(tokens[k]))
    return missing_element_hint(doc, top, tokens, k, value, form, parse);
  if (doc.at(top).is_array()) return list_key_hint(doc.at(top), top, tokens, k, value, form);
  if (!doc.at(top).is_object()) return "";
  const std::string parent_object = top.empty() ? "" : top.to_string();
  top /= tokens[k];
  const auto nested_value = nested(value, tokens, k);
  if (!nested_value) return "";
  const nlohmann::json& nested = *nested_value;
  const std::string top_text = top.to_string();
  const std::string setting = setting_text(top_text, nested, form);
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
  // (The error's own "did you mean" sits between the key and the list.)
  const std::string unknown = "unknown key \"" + tokens[k] + "\"";
  const std::string keys = "; allowed keys: ";
  const std::size_t u = after.find(unknown);
  const std::size_t l = u == std::string::npos ? u : after.find(keys, u);
  if (at == top_text && l != std::string::npos) {
    const std::vector<std::string> allowed = split_list(after.substr(l + keys.size()));
    std::string list;
    for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
    const std::string hint = did_you_mean(tokens[k], allowed);
    if (k == 0) return refusal + "a scenario has no section \"" + tokens[k] + "\"" + hint + "; its sections are " + list;
    return refusal + parent_object + " has no key \"" + tokens[k] + "\"" + hint + "; its keys are " + list;
  }
  return refusal + what + "; adding it with the key inside (" + setting + ") is refused too: " + after;
}

}  // namespace pstwin
