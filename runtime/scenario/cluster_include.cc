// "cluster.include": reading the included file, merging the scenario's keys over it, and saying
// which file an error lies in.
#include "runtime/scenario/cluster_include.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/scenario/cluster_parsing.h"
#include "runtime/scenario/json_fields.h"
#include "runtime/scenario/strict_json.h"
#include "runtime/scenario/units.h"

namespace pstwin {

namespace {

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

ScenarioError attribute_to_include(const ScenarioError& e, const ClusterInclude& info) {
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
  while (!p.empty() && !info.own.contains(p) && !info.included.contains(p)) p = p.parent_pointer();
  if (p.empty() || info.own.contains(p)) return e;
  return ScenarioError(at, "in the included file \"" + info.file + "\" at " + inside + ": " + message_of(e));
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
                          "memcpy_bandwidth", "quick", "transport_link"});
  for (const char* key : {"machine", "date", "pstwin_version", "transport", "device"})
    if (o.has(key)) (void)read_string(o.at(key), o.ptr(key));
  if (o.has("cores")) (void)read_uint(o.at("cores"), o.ptr("cores"), 1);
  if (o.has("memcpy_bandwidth"))
    (void)read_unit(o.at("memcpy_bandwidth"), o.ptr("memcpy_bandwidth"), parse_bandwidth_Bps, "12GBps", true);
  if (o.has("transport_link")) (void)scenario_sections::parse_link(o.at("transport_link"), o.ptr("transport_link"));
  if (o.has("quick") && !o.at("quick").is_boolean())
    throw ScenarioError(o.ptr("quick"), "expected true or false, got " + describe(o.at("quick")));
}

}  // namespace pstwin
