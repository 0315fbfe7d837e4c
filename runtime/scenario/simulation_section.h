// "simulation": settings only `pstwin simulate` reads, today SimGrid's own configuration options.
// Here is their spelling only; whether SimGrid accepts a name and value is sim/simgrid_options.h's
// question (runtime/ never includes SimGrid: docs/DESIGN.md, "Layers").
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pstwin {

/// "simulation": ignored by launch and node (real runs have no SimGrid engine).
struct SimulationSection {
  /// "cfg": SimGrid configuration options, each "NAME:VALUE" ("network/model:CM02"), given to
  /// SimGrid's engine as --cfg=NAME:VALUE in this order, before simulate's own --cfg flags (so
  /// a flag overrides the scenario for the same name; SimGrid keeps the last value).
  std::vector<std::string> cfg;
};

/// Why `option` is not spelled as one SimGrid option "NAME:VALUE", or "" when it is. NAME is
/// non-empty and made of letters, digits and "/_.-"; the first ':' ends it. VALUE is non-empty,
/// has no white space (SimGrid would split it into several options) and is not "help" (which
/// makes SimGrid print the choices and end the process). The factors and precisions that SimGrid
/// takes as any number (network/latency-factor, network/bandwidth-factor, maxmin/precision,
/// surf/precision) must be positive and finite where they are numbers, each piece of a piecewise
/// "SIZE:X;SIZE:X" value included (SimGrid itself refuses what is no number). Never throws.
std::string simgrid_option_syntax_error(const std::string& option);

}  // namespace pstwin

namespace pstwin::scenario_sections {

/// "simulation": an object with the optional key "cfg", a list of strings (possibly empty) that
/// pass simgrid_option_syntax_error. Throws ScenarioError at the section's pointer (or its
/// entry's, "/simulation/cfg/1") for an unknown key, a wrong type or a misspelt option.
SimulationSection parse_simulation(const nlohmann::json& v, const std::string& ptr);

}  // namespace pstwin::scenario_sections
