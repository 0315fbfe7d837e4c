// "cluster.include": reading the included file, merging the scenario's keys over it, and saying
// which file an error lies in.
#include "runtime/scenario/cluster_include.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "runtime/scenario/cluster_parsing.h"
#include "runtime/scenario/json_fields.h"
#include "runtime/scenario/strict_json.h"
#include "runtime/scenario/units.h"

namespace pstwin {

namespace {

using scenario_json::has_pointer;

constexpr const char* kIncludePointer = "/cluster/include";

/// The message of `e` without its leading "pointer: ".
std::string message_of(const ScenarioError& e) {
  const std::string head = (e.pointer().empty() ? std::string("/") : e.pointer()) + ": ";
  const std::string what = e.what();
  return what.starts_with(head) ? what.substr(head.size()) : what;
}

std::string read_included(const std::string& file, const std::string& path) {
  return read_json_file_text(path, "the included file \"" + file + "\"", kIncludePointer);
}

}  // namespace

nlohmann::json resolve_cluster_include(const nlohmann::json& doc, const std::string& base_dir,
                                       ClusterInclude* info) {
  if (info) *info = ClusterInclude{};
  if (!doc.is_object() || !doc.contains("cluster") || !doc["cluster"].is_object() ||
      !doc["cluster"].contains("include"))
    return doc;
  const nlohmann::json& include = doc["cluster"]["include"];
  if (!include.is_string() || include.get<std::string>().empty())
    throw ScenarioError(kIncludePointer, "expected the name of a JSON file of cluster keys "
                                         "(\"calibrated.json\", as `pstwin calibrate` writes), got " +
                                             scenario_json::describe(include));
  ClusterInclude got;
  got.file = include.get<std::string>();
  const std::filesystem::path as_given(got.file);
  got.path = (as_given.is_absolute() ? as_given : std::filesystem::path(base_dir) / as_given).string();
  const std::string text = read_included(got.file, got.path);
  try {
    got.included = parse_strict_json(text);
  } catch (const ScenarioError& e) {
    throw ScenarioError(kIncludePointer, "in the included file \"" + got.file + "\" at " +
                                             (e.pointer().empty() ? "/" : e.pointer()) + ": " + message_of(e));
  } catch (const nlohmann::json::exception& e) {
    throw ScenarioError(kIncludePointer, "the included file \"" + got.file + "\" is not JSON: " + e.what());
  }
  if (!got.included.is_object())
    throw ScenarioError(kIncludePointer, "the included file \"" + got.file +
                                             "\" must hold one JSON object of cluster keys, got " +
                                             scenario_json::describe(got.included));
  // One level only: a chain of files would make "where does this value come from" a search.
  if (got.included.contains("include"))
    throw ScenarioError(kIncludePointer, "in the included file \"" + got.file +
                                             "\" at /include: an included file cannot include another");
  got.own = doc["cluster"];
  got.own.erase("include");

  nlohmann::json resolved = doc;
  nlohmann::json cluster = got.included;
  cluster.merge_patch(got.own);  // RFC 7386: the scenario's keys win
  resolved["cluster"] = std::move(cluster);
  if (info) *info = std::move(got);
  return resolved;
}

ScenarioError attribute_to_include(const ScenarioError& e, const ClusterInclude& info, const ClusterCheck& check) {
  if (info.file.empty()) return e;
  const std::string& at = e.pointer();
  if (!at.starts_with("/cluster/")) return e;
  const std::string inside = at.substr(std::string("/cluster").size());
  nlohmann::json::json_pointer p;
  try {
    p = nlohmann::json::json_pointer(inside);
  } catch (const nlohmann::json::exception&) {
    return e;
  }
  // A value the scenario wrote is the scenario's, even where the file has one too; a value only
  // the file has is the file's. A missing value belongs to the nearest object holding it: a key
  // the file's "worker" lacks is the file's to add, a key "cluster" lacks the scenario's.
  while (!p.empty() && !has_pointer(info.own, p) && !has_pointer(info.included, p)) p = p.parent_pointer();
  if (p.empty() || has_pointer(info.own, p)) return e;
  const ScenarioError the_files(at, "in the included file \"" + info.file + "\" at " + inside + ": " + message_of(e));
  // The deepest object above it that both wrote: their keys merged there, and may clash (the
  // scenario's "preset" beside the file's "flops"). Whose fault is told by the file's alone.
  nlohmann::json::json_pointer merged = p.parent_pointer();
  while (!merged.empty() && !(has_pointer(info.own, merged) && info.own.at(merged).is_object() &&
                              info.included.at(merged).is_object()))
    merged = merged.parent_pointer();
  if (merged.empty() || !check) return the_files;
  nlohmann::json files_alone = info.included;
  files_alone.merge_patch(info.own);
  files_alone[merged] = info.included.at(merged);
  if (check(files_alone) == std::string(e.what())) return the_files;
  std::string keys;
  for (const auto& [key, value] : info.own.at(merged).items()) keys += (keys.empty() ? "\"" : ", \"") + key + "\"";
  const std::string here = "/cluster" + merged.to_string();
  return ScenarioError(here, "the scenario's keys here (" + keys + ") and those of the included file \"" + info.file +
                                 "\" at " + merged.to_string() + " are merged key by key, and together they are "
                                 "invalid at " + at + " (from the file): " + message_of(e) +
                                 "; to take the file's, remove the scenario's " + here +
                                 "; to take the scenario's, include a file without " + merged.to_string());
}

std::string include_override_hint(const nlohmann::json& doc, const std::string& pointer, const nlohmann::json& value,
                                  const std::string& base_dir, OverrideForm form) {
  const std::string cluster = "/cluster";
  if (!pointer.starts_with(cluster + "/")) return "";
  ClusterInclude info;
  nlohmann::json::json_pointer inside;
  try {
    (void)resolve_cluster_include(doc, base_dir, &info);
    inside = nlohmann::json::json_pointer(pointer.substr(cluster.size()));
  } catch (const std::exception&) {
    return "";  // the include's own error comes when the scenario is read
  }
  if (info.file.empty()) return "";
  const bool removal = value.is_null();
  const nlohmann::json::json_pointer needed = removal ? inside : inside.parent_pointer();
  if (needed.empty() || !has_pointer(info.included, needed) || has_pointer(info.own, needed)) return "";
  const std::string from = " comes from the included file \"" + info.file + "\", not from the scenario";
  if (removal)
    return "cannot remove (set to null): " + pointer + from +
           ", which can add to the file's keys and replace them but not remove them: include a copy of the "
           "file without it";
  // The shallowest object on the way that the scenario lacks: set there, the scenario's value is
  // merged over the file's key by key (RFC 7386), so it changes only the key asked for. A list
  // on the way is replaced whole instead.
  std::vector<std::string> tokens;
  for (auto p = inside; !p.empty(); p = p.parent_pointer()) tokens.insert(tokens.begin(), p.back());
  nlohmann::json::json_pointer top;
  std::size_t k = 0;
  while (has_pointer(info.own, top / tokens[k])) top /= tokens[k++];
  top /= tokens[k];
  const std::size_t top_index = k;
  const std::string top_text = cluster + top.to_string();
  std::string advice;
  for (auto p = top; advice.empty() && p != inside; p /= tokens[++k]) {
    if (!info.included.at(p).is_array()) continue;
    advice = cluster + p.to_string() + " is a list in the file, and a list in the scenario replaces the file's "
             "whole: set " + cluster + p.to_string() + " to the whole list";
  }
  if (advice.empty()) {
    nlohmann::json nested = value;
    for (std::size_t i = tokens.size() - 1; i > top_index; --i) nested = {{tokens[i], nested}};
      const std::string written = scenario_json::json_text(nested);
    const std::string setting = form == OverrideForm::kCommandLine ? "--set '" + top_text + "=" + written + "'"
                                                                   : "\"" + top_text + "\": " + written;
    advice = "set " + top_text + " as an object, which is merged over the file's key by key: " + setting;
  }
  return "cannot set: " + top_text + from + "; " + advice;
}

nlohmann::json include_override_value(const std::string& pointer, nlohmann::json value) {
  if (pointer != kIncludePointer || !value.is_string()) return value;
  const std::filesystem::path given(value.get<std::string>());
  if (given.empty() || given.is_absolute()) return value;
  return std::filesystem::absolute(given).string();
}

}  // namespace pstwin

namespace pstwin {

void check_calibration_record(const nlohmann::json& v, const std::string& ptr) {
  using namespace scenario_json;
  const Object o(v, ptr, {"machine", "date", "pstwin_version", "transport", "device", "cores",
                          "memcpy_bandwidth", "quick", "transport_link", "transport_hosts",
                          "kernels_measured_on"});
  for (const char* key : {"machine", "date", "pstwin_version", "transport", "device", "kernels_measured_on"})
    if (o.has(key)) (void)read_string(o.at(key), o.ptr(key));
  if (o.has("cores")) (void)read_uint(o.at("cores"), o.ptr("cores"), 1);
  if (o.has("memcpy_bandwidth"))
    (void)read_unit(o.at("memcpy_bandwidth"), o.ptr("memcpy_bandwidth"), parse_bandwidth_Bps, "12GBps", true);
  if (o.has("transport_link")) (void)scenario_sections::parse_link(o.at("transport_link"), o.ptr("transport_link"));
  if (o.has("transport_hosts")) {
    // calibrate --hostfile: the echo peer's machine and the driver's.
    const nlohmann::json& hosts = o.at("transport_hosts");
    if (!hosts.is_array() || hosts.size() != 2)
      throw ScenarioError(o.ptr("transport_hosts"),
                          "expected the two hosts the transport was measured between, [\"a\", \"b\"], got " +
                              describe(hosts));
    for (std::size_t i = 0; i < 2; ++i) (void)read_string(hosts[i], o.ptr("transport_hosts") + "/" + std::to_string(i));
  }
  if (o.has("quick") && !o.at("quick").is_boolean())
    throw ScenarioError(o.ptr("quick"), "expected true or false, got " + describe(o.at("quick")));
}

}  // namespace pstwin
