// "variants": each run of a comparison as a base scenario plus JSON-pointer overrides, validated
// as a whole scenario, with errors pointing into the variant that caused them.
#include "runtime/scenario/variant_overrides.h"

#include <set>
#include <string>
#include <vector>

#include "runtime/errors.h"
#include "runtime/scenario/cluster_include.h"
#include "runtime/scenario/json_fields.h"
#include "runtime/scenario/missing_parent_hint.h"

namespace pstwin {

using namespace scenario_json;

namespace {

/// What a ScenarioError says after its "<pointer>: ".
std::string message_of(const ScenarioError& e) {
  const std::string head = (e.pointer().empty() ? std::string("/") : e.pointer()) + ": ";
  const std::string what = e.what();
  return what.starts_with(head) ? what.substr(head.size()) : what;
}

/// Whether `inner` is `outer` or lies under it ("/a/b" is under "/a", "/ab" is not).
bool covers(const std::string& outer, const std::string& inner) {
  return inner == outer ||
         (inner.size() > outer.size() && inner.starts_with(outer) && inner[outer.size()] == '/');
}

/// A pointer into the resolved document, whose "consistency" is a one-entry list, as the user
/// wrote it: "/consistency/0/mode" is "/consistency/mode".
std::string unwrap_consistency(const std::string& ptr) {
  const std::string wrapped = "/consistency/0";
  return covers(wrapped, ptr) ? "/consistency" + ptr.substr(wrapped.size()) : ptr;
}

/// The resolved document: "consistency" as the one-entry list that parse_one_scenario reads.
json with_consistency_list(json doc, const std::string& name) {
  json entry = doc["consistency"];
  if (!name.empty()) entry["name"] = name;
  doc["consistency"] = json::array({std::move(entry)});
  return doc;
}

/// Where one variant's parts were written, to point errors there.
struct VariantSource {
  std::string ptr;                    ///< "/variants/2"
  bool own_consistency = false;       ///< it has a "consistency" object of its own
  std::vector<std::string> set_keys;  ///< the pointers of its "set"
};

/// Rethrows `e`, raised by the variant's resolved scenario, at the part of the variant that
/// caused it: the deepest override covering the pointer, its own consistency or name, else the
/// variant itself with the resolved pointer in the message (the base and the overrides clash).
[[noreturn]] void rethrow_in_variant(const ScenarioError& e, const VariantSource& v) {
  const std::string at = unwrap_consistency(e.pointer());
  const std::string msg = message_of(e);
  if (at == "/consistency/name") throw ScenarioError(v.ptr + "/name", msg);
  const std::string* best = nullptr;
  for (const std::string& key : v.set_keys)
    if (covers(key, at) && (!best || key.size() > best->size())) best = &key;
  if (best) throw ScenarioError(child_pointer(v.ptr + "/set", *best) + at.substr(best->size()), msg);
  if (v.own_consistency && covers("/consistency", at)) throw ScenarioError(v.ptr + at, msg);
  throw ScenarioError(v.ptr, "with its overrides, the scenario it resolves to is invalid at " +
                                 (at.empty() ? std::string("/") : at) + ": " + msg);
}

/// A consistency object of the base or of a variant: the run's name lives elsewhere.
void check_consistency_object(const json& c, const std::string& ptr, const std::string& name_hint) {
  if (!c.is_object())
    throw ScenarioError(ptr, "expected one consistency object ({\"mode\": ...}), got " + describe(c));
  if (c.contains("name")) throw ScenarioError(child_pointer(ptr, "name"), name_hint);
}

/// Applies the "set" (at `ptr`) of variant `name` to `run`, recording its pointers in `where`.
void apply_set(const json& set, const std::string& ptr, json& run, VariantSource& where, const std::string& base_dir,
               const std::string& name) {
  if (!set.is_object())
    throw ScenarioError(ptr, "expected an object {\"/json/pointer\": value, ...}, got " + describe(set));
  for (const auto& [key, value] : set.items()) {
    const std::string at = child_pointer(ptr, key);
    if (key.empty() || key[0] != '/')
      throw ScenarioError(at, "expected a JSON pointer such as \"/training/learning_rate\" as the key");
    // These belong to the whole comparison, or are the variant's own keys.
    for (const char* fixed : {"/name", "/variants", "/output", "/consistency/name"})
      if (covers(fixed, key))
        throw ScenarioError(at, std::string("a variant cannot set ") + fixed +
                                    ": it belongs to the whole comparison, or to the variant's own keys");
    try {
      if (value.is_null()) remove_json_pointer(run, key);  // no scenario value is null
      else set_json_pointer(run, key, value);
    } catch (const ScenarioError& e) {
      // A key the included file gives, not the scenario: say so, and how to set it.
      std::string hint = include_override_hint(run, key, value, base_dir, OverrideForm::kVariant);
      if (hint.empty() && !value.is_null())
        hint = missing_parent_hint(run, key, value, OverrideForm::kVariant, [&](const json& d) {
          (void)parse_one_scenario(with_consistency_list(d, name), base_dir);
        });
      throw ScenarioError(at, hint.empty() ? message_of(e) : hint);
    }
    where.set_keys.push_back(key);
  }
  if (!run["consistency"].is_object())
    throw ScenarioError(child_pointer(ptr, "/consistency"),
                        "a variant's consistency is one object ({\"mode\": ...}), got " + describe(run["consistency"]));
}

}  // namespace

void throw_in_variant(const ScenarioError& e, const Scenario& s, std::size_t i) {
  const json* variants = s.source.is_object() && s.source.contains("variants") ? &s.source["variants"] : nullptr;
  if (!variants || !variants->is_array() || i >= variants->size() || !(*variants)[i].is_object()) throw e;
  const json& variant = (*variants)[i];
  VariantSource where;
  where.ptr = "/variants/" + std::to_string(i);
  where.own_consistency = variant.contains("consistency");
  if (const auto set = variant.find("set"); set != variant.end() && set->is_object())
    for (const auto& [key, value] : set->items()) where.set_keys.push_back(key);
  // Nothing of its own but the consistency, which these checks do not read: the base failed.
  if (where.set_keys.empty() && !covers("/consistency", unwrap_consistency(e.pointer()))) throw e;
  rethrow_in_variant(e, where);
}

void set_json_pointer(json& doc, const std::string& pointer_text, json value) {
  json::json_pointer pointer;
  try {
    pointer = json::json_pointer(pointer_text);
  } catch (const json::exception& e) {
    throw ScenarioError(pointer_text, "bad JSON pointer: " + std::string(e.what()));
  }
  if (pointer.empty()) throw ScenarioError(pointer_text, "cannot replace the whole scenario");
  const std::string parent_text = pointer.parent_pointer().to_string();
  const std::string key = pointer.back();
  if (!has_pointer(doc, pointer.parent_pointer()))
    throw ScenarioError(pointer_text, "cannot set: the parent " + (parent_text.empty() ? "/" : parent_text) +
                                          " does not exist");
  json& parent = doc[pointer.parent_pointer()];
  if (parent.is_object()) {
    parent[key] = std::move(value);
  } else if (parent.is_array()) {
    // Replace an element, or append with "-" (RFC 6901's past-the-end index) or the size.
    std::size_t index = parent.size();
    if (key != "-") {
      std::size_t used = 0;
      try {
        index = std::stoul(key, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != key.size() || index > parent.size())
        throw ScenarioError(pointer_text, "cannot set: \"" + key + "\" is not an index in 0.." +
                                              std::to_string(parent.size()) + " of the array");
    }
    if (index == parent.size()) parent.push_back(std::move(value));
    else parent[index] = std::move(value);
  } else {
    throw ScenarioError(pointer_text, "cannot set: the parent " + parent_text + " is " + describe(parent) +
                                          ", not an object or array");
  }
}

void remove_json_pointer(json& doc, const std::string& pointer_text) {
  json::json_pointer pointer;
  try {
    pointer = json::json_pointer(pointer_text);
  } catch (const json::exception& e) {
    throw ScenarioError(pointer_text, "bad JSON pointer: " + std::string(e.what()));
  }
  if (pointer.empty() || !has_pointer(doc, pointer))
    throw ScenarioError(pointer_text, "cannot remove (set to null): the scenario has nothing there");
  json& parent = doc[pointer.parent_pointer()];
  if (!parent.is_object())
    throw ScenarioError(pointer_text, "cannot remove (set to null) an array element; set the whole array");
  parent.erase(pointer.back());
}

Scenario parse_variants(const json& doc, const std::string& base_dir) {
  std::vector<std::string_view> keys(kScenarioSections.begin(), kScenarioSections.end());
  keys.push_back("variants");
  const Object top(doc, "", keys);
  const json& variants = read_array(top.at("variants"), top.ptr("variants"), false);

  // The base: every section as written, with one consistency object (BSP unless given).
  json base = doc;
  base.erase("variants");
  if (!top.has("consistency")) base["consistency"] = {{"mode", "bsp"}};
  check_consistency_object(base["consistency"], "/consistency",
                           "the base's consistency has no name: each variant is named by /variants/<i>/name");
  Scenario out;
  try {
    out = parse_one_scenario(with_consistency_list(base, ""), base_dir);
  } catch (const ScenarioError& e) {
    throw ScenarioError(unwrap_consistency(e.pointer()), message_of(e));
  }
  out.source = doc;
  out.consistency.clear();

  std::set<std::string> names;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    VariantSource where;
    where.ptr = "/variants/" + std::to_string(i);
    const Object v(variants[i], where.ptr, {"name", "consistency", "set"});
    const std::string name = read_name(v.at("name"), v.ptr("name"));
    // Names become output folders, so two runs with one name would overwrite each other.
    if (!names.insert(name).second) throw ScenarioError(v.ptr("name"), "duplicate variant name \"" + name + "\"");
    json run = base;
    if (v.has("consistency")) {
      check_consistency_object(v.at("consistency"), v.ptr("consistency"),
                               "the variant's name is " + v.ptr("name") + ", not part of its consistency");
      run["consistency"] = v.at("consistency");
      where.own_consistency = true;
    }
    if (v.has("set")) apply_set(v.at("set"), v.ptr("set"), run, where, base_dir, name);
    // Named as a shorthand entry, so the resolved document is a scenario of its own.
    run = with_consistency_list(std::move(run), name);
    Scenario resolved;
    try {
      resolved = parse_one_scenario(run, base_dir);
    } catch (const ScenarioError& e) {
      rethrow_in_variant(e, where);
    }
    // resolved.source is `run` with its /cluster/include (the base's or the variant's own)
    // resolved into the figures: what a summary records and a sweep or a job fingerprint
    // compares, so a changed included file is a changed run.
    out.consistency.push_back(resolved.consistency.front());
    out.variant_scenarios.push_back(std::move(resolved));
  }
  return out;
}

}  // namespace pstwin
