// parse_scenario (the top level, in dependency order) and load_scenario (file, JSON, overrides).
#include "runtime/scenario/scenario.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/errors.h"
#include "runtime/scenario/fault_sections.h"
#include "runtime/scenario/json_fields.h"
#include "runtime/scenario/scenario_sections.h"
#include "runtime/scenario/strict_json.h"
#include "runtime/scenario/simulation_section.h"

namespace pstwin {

using namespace scenario_json;
using namespace scenario_sections;

namespace {

/// Applies one "/json/pointer=value" override to `doc`. The value is JSON when it parses ("8",
/// "true", "[1,2]", "\"x\"") and a plain string otherwise ("bsp"), so shells need no extra quotes.
/// The parent must exist: an override creates at most the last key, which catches typos early.
void apply_override(nlohmann::json& doc, const std::string& text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || text.empty() || text[0] != '/')
    throw ScenarioError(eq == std::string::npos ? text : text.substr(0, eq),
                        "bad override \"" + text + "\": expected /json/pointer=value");
  const std::string pointer_text = text.substr(0, eq);
  const std::string value_text = text.substr(eq + 1);

  nlohmann::json::json_pointer pointer;
  try {
    pointer = nlohmann::json::json_pointer(pointer_text);
  } catch (const nlohmann::json::exception& e) {
    throw ScenarioError(pointer_text, "bad override pointer: " + std::string(e.what()));
  }
  // Strict as a file is: a repeated key or a number out of range is an error at its pointer.
  nlohmann::json value;
  try {
    value = parse_strict_json(value_text, pointer_text);
  } catch (const nlohmann::json::parse_error&) {
    value = value_text;
    // The document is JSON, written out again into every run's summary: its strings are UTF-8.
    try {
      (void)value.dump();
    } catch (const nlohmann::json::type_error& e) {
      throw ScenarioError(pointer_text, "the value is not valid UTF-8, as JSON text must be: " + std::string(e.what()));
    }
  }

  const std::string parent_text = pointer.parent_pointer().to_string();
  const std::string key = pointer.back();
  if (!doc.contains(pointer.parent_pointer()))
    throw ScenarioError(pointer_text, "cannot set: the parent " + (parent_text.empty() ? "/" : parent_text) +
                                          " does not exist");
  nlohmann::json& parent = doc[pointer.parent_pointer()];
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

}  // namespace

Scenario parse_scenario(const nlohmann::json& doc, const std::string& base_dir) {
  const Object o(doc, "",
                 {"name", "seed", "data", "model", "training", "consistency", "cluster", "stragglers",
                  "fault_tolerance", "failures", "output", "simulation"});
  Scenario s;
  s.source = doc;
  s.name = read_name(o.at("name"), o.ptr("name"));
  s.seed = read_uint(o.at("seed"), o.ptr("seed"));

  // Order matters: data and training depend on the model type, variants and stragglers on the
  // number of workers, fault tolerance and failures on the cluster.
  s.model = parse_model(o.at("model"), o.ptr("model"));
  const bool synthetic = s.model.type == "synthetic";
  if (o.has("data")) s.data = parse_data(o.at("data"), o.ptr("data"), base_dir);
  else if (!synthetic)
    throw ScenarioError(o.ptr("data"), "missing required key \"data\" (only a \"synthetic\" model needs none)");
  // Ratings data feeds exactly the matrix-factorisation model, and it needs nothing else.
  if (s.data && (s.model.type == "mf") != (s.data->format == "ratings")) {
    if (s.model.type == "mf")
      throw ScenarioError("/data/format", "model type \"mf\" needs format \"ratings\", got \"" + s.data->format + "\"");
    throw ScenarioError("/model/type", "format \"ratings\" is for model type \"mf\", got \"" + s.model.type + "\"");
  }
  s.training = parse_training(o.at("training"), o.ptr("training"), synthetic);
  s.cluster = parse_cluster(o.at("cluster"), o.ptr("cluster"));
  s.consistency = parse_consistency(o.at("consistency"), o.ptr("consistency"), s.cluster.workers);
  if (o.has("stragglers")) s.stragglers = parse_stragglers(o.at("stragglers"), o.ptr("stragglers"), s.cluster.workers);
  if (o.has("fault_tolerance"))
    s.fault_tolerance = parse_fault_tolerance(o.at("fault_tolerance"), o.ptr("fault_tolerance"), s.cluster);
  if (o.has("failures")) s.failures = parse_failures(o.at("failures"), o.ptr("failures"), s.cluster);
  // Failures without the section still need someone to notice them: heartbeats with defaults,
  // which must suit the cluster's links as a written section must.
  s.fault_tolerance.enabled = o.has("fault_tolerance") || !s.failures.empty();
  if (s.fault_tolerance.enabled && !o.has("fault_tolerance"))
    check_heartbeat_margin(s.fault_tolerance, s.cluster, o.ptr("fault_tolerance"));
  if (o.has("simulation")) s.simulation = parse_simulation(o.at("simulation"), o.ptr("simulation"));
  s.output.dir = "runs/" + s.name;
  if (o.has("output")) {
    const Object out(o.at("output"), o.ptr("output"), {"dir"});
    if (out.has("dir")) s.output.dir = read_string(out.at("dir"), out.ptr("dir"));
  }
  return s;
}

Scenario parse_scenario_text(std::string_view text, const std::string& source,
                             const std::vector<std::string>& overrides, const std::string& base_dir) {
  nlohmann::json doc;
  try {
    doc = parse_strict_json(std::string(text));
  } catch (const nlohmann::json::exception& e) {
    throw ScenarioError("", source + ": " + e.what());  // a parse_error's message has line and column
  }
  for (const std::string& o : overrides) apply_override(doc, o);
  return parse_scenario(doc, base_dir);
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError("", "cannot read scenario file \"" + path + "\": " + std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ScenarioError("", "cannot read scenario file \"" + path + "\"");

  std::string base_dir = std::filesystem::path(path).parent_path().string();
  if (base_dir.empty()) base_dir = ".";
  return parse_scenario_text(text.str(), path, overrides, base_dir);
}

}  // namespace pstwin
