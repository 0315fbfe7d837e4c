// "consistency" (the runs to compare, one per entry; "variants" reaches it through the one-entry
// list of each resolved variant, variant_overrides.cc) and "stragglers" (how workers slow down):
// the sections that say what varies, as opposed to the job itself in scenario_sections.cc.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "runtime/errors.h"
#include "runtime/rng.h"
#include "runtime/scenario/json_fields.h"
#include "runtime/scenario/scenario_sections.h"
#include "runtime/scenario/units.h"

namespace pstwin::scenario_sections {

using namespace scenario_json;

namespace {

/// The folder-safe default name of a variant: "bsp", "asp", "ssp3", "bsp-b2"; "-hybrid" appended
/// under hybrid synchronisation, so a plain and a hybrid entry of one mode get distinct folders.
std::string default_name(const ConsistencyConfig& c) {
  std::string name = "unknown";
  switch (c.mode) {
    case ConsistencyMode::kBsp:
      name = c.backup_workers > 0 ? "bsp-b" + std::to_string(c.backup_workers) : "bsp";
      break;
    case ConsistencyMode::kAsp: name = "asp"; break;
    case ConsistencyMode::kSsp: name = "ssp" + std::to_string(c.staleness); break;
  }
  return c.sync == SyncMode::kHybrid ? name + "-hybrid" : name;
}

ConsistencyVariant parse_variant(const json& v, const std::string& ptr, std::uint32_t workers) {
  const Object o(v, ptr, {"mode", "staleness", "backup_workers", "name", "sync"});
  ConsistencyVariant out;
  const std::string mode = read_choice(o.at("mode"), o.ptr("mode"), {"bsp", "asp", "ssp"});
  ConsistencyConfig& c = out.config;
  // What hybrid needs of the rest of the scenario is checked once all of it is read
  // (check_hybrid_sync, hybrid_sync_checks.h).
  if (o.has("sync"))
    c.sync = read_choice(o.at("sync"), o.ptr("sync"), {"ps", "hybrid"}) == "hybrid" ? SyncMode::kHybrid
                                                                                 : SyncMode::kPs;
  if (mode == "ssp") {
    c.mode = ConsistencyMode::kSsp;
    constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    c.staleness = static_cast<std::int64_t>(read_uint(o.at("staleness"), o.ptr("staleness"), 0, kMax));
  } else {
    // BSP is SSP(0) and ASP has no bound: a staleness here is a mistake, not a setting.
    o.forbid("staleness", "only allowed when mode is \"ssp\"");
    c.mode = mode == "bsp" ? ConsistencyMode::kBsp : ConsistencyMode::kAsp;
  }
  if (o.has("backup_workers")) {
    if (c.mode != ConsistencyMode::kBsp)
      throw ScenarioError(o.ptr("backup_workers"), "only allowed when mode is \"bsp\"");
    // The barrier waits for W - b workers, so b must leave at least one.
    const std::uint64_t b = read_uint(o.at("backup_workers"), o.ptr("backup_workers"), 0,
                                      static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()));
    if (b >= workers)
      throw ScenarioError(o.ptr("backup_workers"), "expected fewer backup workers than cluster.workers (" +
                                                       std::to_string(workers) + "), got " + std::to_string(b));
    c.backup_workers = static_cast<std::int32_t>(b);
  }
  out.name = o.has("name") ? read_name(o.at("name"), o.ptr("name")) : default_name(c);
  // A variant's folder sits beside the files of the whole comparison.
  if (out.name == "comparison.csv" || out.name == "report.md" || out.name.ends_with(".png"))
    throw ScenarioError(o.ptr("name"), "\"" + out.name + "\" is the name of an output file; choose another");
  return out;
}

/// A list of distinct worker indices, each < `workers`.
std::vector<std::uint32_t> parse_workers(const json& v, const std::string& ptr, std::uint32_t workers) {
  read_array(v, ptr, false);
  std::vector<std::uint32_t> out;
  std::set<std::uint64_t> seen;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string p = ptr + "/" + std::to_string(i);
    const std::uint64_t w = read_uint(v[i], p);
    if (w >= workers)
      throw ScenarioError(p, "worker index " + std::to_string(w) + " is out of range: cluster.workers is " +
                                 std::to_string(workers) + " (indices start at 0)");
    if (!seen.insert(w).second) throw ScenarioError(p, "worker " + std::to_string(w) + " is listed twice");
    out.push_back(static_cast<std::uint32_t>(w));
  }
  return out;
}

double parse_factor(const Object& o) {
  return read_number(o.at("factor"), o.ptr("factor"), {.min = 1.0});
}

StragglerSpec parse_straggler(const json& v, const std::string& ptr, std::uint32_t workers) {
  // The type decides which keys are allowed, so read it before checking the keys.
  if (!v.is_object()) throw ScenarioError(ptr, "expected an object, got " + describe(v));
  const auto type_it = v.find("type");
  if (type_it == v.end()) throw ScenarioError(child_pointer(ptr, "type"), "missing required key \"type\"");
  const std::string type = read_choice(*type_it, child_pointer(ptr, "type"), {"slow", "transient", "lognormal"});

  StragglerSpec s;
  if (type == "slow") {
    const Object o(v, ptr, {"type", "workers", "factor", "start", "end"});
    s.kind = StragglerSpec::Kind::kSlowWorkers;
    s.workers = parse_workers(o.at("workers"), o.ptr("workers"), workers);
    s.factor = parse_factor(o);
    s.start_s = o.has("start") ? read_unit(o.at("start"), o.ptr("start"), parse_duration_s, "10s", false) : 0.0;
    s.end_s = std::numeric_limits<double>::infinity();
    if (o.has("end")) {
      s.end_s = read_unit(o.at("end"), o.ptr("end"), parse_duration_s, "20s", false);
      if (!(s.end_s > s.start_s)) throw ScenarioError(o.ptr("end"), "expected an end after start");
    }
  } else if (type == "transient") {
    const Object o(v, ptr, {"type", "probability", "factor", "iterations", "workers"});
    s.kind = StragglerSpec::Kind::kTransient;
    s.probability = read_number(o.at("probability"), o.ptr("probability"), {.min = 0.0, .max = 1.0});
    s.factor = parse_factor(o);
    if (o.has("iterations")) s.iterations = read_uint(o.at("iterations"), o.ptr("iterations"), 1);
    if (o.has("workers")) s.workers = parse_workers(o.at("workers"), o.ptr("workers"), workers);
  } else {
    const Object o(v, ptr, {"type", "mu", "sigma", "workers"});
    s.kind = StragglerSpec::Kind::kLognormal;
    s.mu = read_number(o.at("mu"), o.ptr("mu"));
    s.sigma = read_number(o.at("sigma"), o.ptr("sigma"), {.min = 0.0});
    if (o.has("workers")) s.workers = parse_workers(o.at("workers"), o.ptr("workers"), workers);
  }
  return s;
}

}  // namespace

std::vector<ConsistencyVariant> parse_consistency(const json& v, const std::string& ptr, std::uint32_t workers) {
  read_array(v, ptr, false);
  std::vector<ConsistencyVariant> out;
  std::set<std::string> names;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string p = ptr + "/" + std::to_string(i);
    out.push_back(parse_variant(v[i], p, workers));
    // Names become output folders, so two runs with one name would overwrite each other.
    if (!names.insert(out.back().name).second) {
      const bool named = v[i].contains("name");
      throw ScenarioError(named ? p + "/name" : p,
                          "duplicate variant name \"" + out.back().name + "\"" +
                              (named ? std::string() : std::string(" (the default); give it a distinct \"name\"")));
    }
  }
  return out;
}

/// The largest slowdown all stragglers together may give a worker (see parse_stragglers).
constexpr double kMaxSlowdown = 1e9;

std::vector<StragglerSpec> parse_stragglers(const json& v, const std::string& ptr, std::uint32_t workers) {
  read_array(v, ptr, true);
  std::vector<StragglerSpec> out;
  // A worker's compute time is multiplied by every straggler that applies to it, so the largest
  // slowdown they can give together is bounded: by 1e9. Beyond, an iteration's length swamps the
  // simulated clock (a double): 1e308 overflows it to infinity in two iterations, and 1e12
  // already loses the microseconds messages take. A worker a billion times slower is a stopped
  // one: a "failures" entry says that. Summed as logarithms, which do not overflow: a
  // lognormal's largest factor is e^(mu + kNormalMax * sigma).
  const double max_log = std::log(kMaxSlowdown);
  double log_slowdown = 0.0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string p = ptr + "/" + std::to_string(i);
    out.push_back(parse_straggler(v[i], p, workers));
    const StragglerSpec& s = out.back();
    const bool lognormal = s.kind == StragglerSpec::Kind::kLognormal;
    log_slowdown += lognormal ? std::max(0.0, s.mu + Rng::kNormalMax * s.sigma) : std::log(s.factor);
    if (log_slowdown > max_log)
      // Blame the key that contributes the larger part of the exponent.
      throw ScenarioError(p + (!lognormal                             ? "/factor"
                               : Rng::kNormalMax * s.sigma > s.mu ? "/sigma"
                                                                      : "/mu"),
                          std::string(lognormal ? "e^(mu + " + format_number(Rng::kNormalMax) +
                                                      " x sigma), the largest slowdown a draw can give,"
                                                : "the slowdown") +
                              (i > 0 ? " together with the stragglers before it" : "") +
                              " is e^" + format_number(log_slowdown) +
                              ", above the largest a simulated clock keeps exact, 1e9 (e^" +
                              format_number(max_log) +
                              "); compute times are multiplied by it. A worker that never finishes "
                              "is a \"failures\" entry");
  }
  return out;
}

}  // namespace pstwin::scenario_sections
