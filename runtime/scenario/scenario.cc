// parse_scenario (the top level, in dependency order) and load_scenario (file, JSON, overrides).
#include "runtime/scenario/scenario.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/errors.h"
#include "runtime/scenario/cluster_include.h"
#include "runtime/scenario/cluster_parsing.h"
#include "runtime/scenario/compression_section.h"
#include "runtime/scenario/fault_sections.h"
#include "runtime/scenario/hybrid_sync_checks.h"
#include "runtime/scenario/json_fields.h"
#include "runtime/scenario/missing_parent_hint.h"
#include "runtime/scenario/partition_section.h"
#include "runtime/scenario/server_joins.h"
#include "runtime/scenario/scenario_sections.h"
#include "runtime/scenario/simulation_section.h"
#include "runtime/scenario/strict_json.h"
#include "runtime/scenario/variant_overrides.h"
#include "runtime/count_text.h"

namespace pstwin {

using namespace scenario_json;
using namespace scenario_sections;

namespace {

/// "simulation.nic_window" (or nic_send_window) gives each node a NIC actor of its own on its own host
/// (sim/nic_window.h): built for a star of separate machines. Elsewhere (other topologies,
/// servers sharing machines, several workers per machine) SimGrid finds no route between the
/// actors and aborts, so those are refused here. Throws ScenarioError at the window's pointer.
void check_nic_window_layout(const Scenario& s) {
  if (s.simulation.sender_window() == 0) return;
  const ClusterSection& c = s.cluster;
  std::string why;
  if (c.topology.kind != TopologySpec::Kind::kStar)
    why = std::string("topology \"") + c.topology.name() + "\"";
  else if (c.server_placement != ServerPlacement::kSeparate)
    why = "servers placed on the workers' machines (server_placement)";
  else if (c.workers_per_host > 1)
    why = "workers_per_host " + std::to_string(c.workers_per_host);
  if (why.empty()) return;
  const std::string key = s.simulation.window_key();
  throw ScenarioError("/simulation/" + key,
                      "applies only to a star of separate machines (topology \"star\", server_placement "
                      "\"separate\", workers_per_host 1), not with " + why +
                          ": remove " + key + " (the exact model has no such limit)");
}

/// Applies one "/json/pointer=value" override to `doc`. The value is JSON when it parses ("8",
/// "true", "[1,2]", "\"x\"") and a plain string otherwise ("bsp"), so shells need no extra quotes.
/// The parent must exist: an override creates at most the last key, which catches typos early.
void apply_override(nlohmann::json& doc, const std::string& text, const std::string& base_dir) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || text.empty() || text[0] != '/')
    throw ScenarioError(eq == std::string::npos ? text : text.substr(0, eq),
                        "bad override \"" + text + "\": expected /json/pointer=value");
  const std::string pointer_text = text.substr(0, eq);
  const std::string value_text = text.substr(eq + 1);
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
  // null removes the key, as in a variant's "set": no scenario value is null.
  try {
    if (value.is_null()) remove_json_pointer(doc, pointer_text);
    else set_json_pointer(doc, pointer_text, include_override_value(pointer_text, value));
  } catch (const ScenarioError&) {
    // A key the included file gives, not the scenario: say so, and how to set it.
    std::string hint = include_override_hint(doc, pointer_text, value, base_dir, OverrideForm::kCommandLine);
    // A section the scenario lacks: say so, and how to add it.
    if (hint.empty() && !value.is_null())
      hint = missing_parent_hint(doc, pointer_text, value, OverrideForm::kCommandLine,
                                 [&](const nlohmann::json& d) { (void)parse_scenario(d, base_dir); });
    if (hint.empty()) throw;
    throw ScenarioError(pointer_text, hint);
  }
}

/// parse_one_scenario after the cluster's include is resolved: the sections in dependency order.
/// s.source is `doc`, so a run's summary and fingerprint hold the figures it ran with.
Scenario parse_resolved_scenario(const nlohmann::json& doc, const std::string& base_dir);

}  // namespace

Scenario parse_scenario(const nlohmann::json& doc, const std::string& base_dir) {
  if (doc.is_object() && doc.contains("variants")) return parse_variants(doc, base_dir);
  Scenario s = parse_one_scenario(doc, base_dir);
  // The shorthand: each entry of "consistency" is a run of the base scenario as it stands (copied
  // from `base`, which has no runs of its own: a run never holds runs).
  const Scenario base = s;
  s.variant_scenarios.reserve(base.consistency.size());
  for (const ConsistencyVariant& v : base.consistency) {
    Scenario& run = s.variant_scenarios.emplace_back(base);
    run.consistency = {v};
  }
  return s;
}

Scenario scenario_for_variant(const Scenario& s, std::size_t i) {
  if (i < s.variant_scenarios.size()) return s.variant_scenarios[i];
  Scenario run = s;
  run.consistency = {s.consistency.at(i)};
  return run;
}

nlohmann::json source_section(const Scenario& s, const std::string& key) {
  return s.source.is_object() ? s.source.value(key, nlohmann::json()) : nlohmann::json();
}

std::uint64_t iterations_per_worker(const Scenario& s, std::uint64_t train_rows) {
  if (!s.training.epochs) return s.training.iterations;
  // Rounded up: every worker runs the same number of clocks, and no run sees less data than
  // asked for; at most workers * batch_size - 1 examples more.
  const long double examples = static_cast<long double>(*s.training.epochs) * static_cast<long double>(train_rows);
  const long double per_clock =
      static_cast<long double>(s.cluster.workers) * static_cast<long double>(s.training.batch_size);
  const long double clocks = std::ceil(examples / per_clock);
  if (clocks > 1e9L)
    throw ScenarioError("/training/epochs", format_number(*s.training.epochs) + (*s.training.epochs == 1 ? " epoch" : " epochs") + " of " +
                                                count_text(train_rows, "row") + " are over a billion iterations per worker");
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(clocks));
}

Scenario parse_one_scenario(const nlohmann::json& written, const std::string& base_dir) {
  ClusterInclude include;
  const nlohmann::json doc = resolve_cluster_include(written, base_dir, &include);
  try {
    return parse_resolved_scenario(doc, base_dir);
  } catch (const ScenarioError& e) {
    throw attribute_to_include(e, include, [&](const nlohmann::json& cluster) {
      nlohmann::json other = doc;
      other["cluster"] = cluster;
      try {
        (void)parse_resolved_scenario(other, base_dir);
      } catch (const ScenarioError& again) {
        return std::string(again.what());
      }
      return std::string();
    });
  }
}

namespace {

Scenario parse_resolved_scenario(const nlohmann::json& doc, const std::string& base_dir) {
  const Object o(doc, "", kScenarioSections);
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
  check_hybrid_sync(s);
  if (o.has("compression"))
    s.compression = parse_compression(o.at("compression"), o.ptr("compression"), synthetic);
  if (o.has("partition")) s.partition = parse_partition(o.at("partition"), o.ptr("partition"));
  check_joins_need_hash(s);
  if (o.has("simulation")) s.simulation = parse_simulation(o.at("simulation"), o.ptr("simulation"));
  check_nic_window_applies(s.simulation, s.fault_tolerance.enabled);
  check_nic_window_layout(s);
  check_io_share_applies(s.cluster, s.simulation, s.fault_tolerance.enabled);
  s.output.dir = "runs/" + s.name;
  if (o.has("output")) {
    const Object out(o.at("output"), o.ptr("output"), {"dir"});
    if (out.has("dir")) s.output.dir = read_string(out.at("dir"), out.ptr("dir"));
  }
  return s;
}

}  // namespace

Scenario parse_scenario_text(std::string_view text, const std::string& source,
                             const std::vector<std::string>& overrides, const std::string& base_dir) {
  nlohmann::json doc;
  try {
    doc = parse_strict_json(std::string(text));
  } catch (const nlohmann::json::exception& e) {
    throw ScenarioError("", source + ": " + e.what());  // a parse_error's message has line and column
  }
  for (const std::string& o : overrides) apply_override(doc, o, base_dir);
  return parse_scenario(doc, base_dir);
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  const std::string text = read_json_file_text(path, "scenario file", "");
  std::string base_dir = std::filesystem::path(path).parent_path().string();
  if (base_dir.empty()) base_dir = ".";
  return parse_scenario_text(text, path, overrides, base_dir);
}

}  // namespace pstwin
