// "variants": runs named by their differences from a base scenario, as JSON-pointer overrides.
// Internal to runtime/scenario/ (parse_scenario in scenario.h is the entry point).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "runtime/scenario/scenario.h"

namespace pstwin {

/// Sets the value at `pointer` (RFC 6901) in `doc`, as --set and a variant's "set" do. The
/// parent must exist and be an object (the last key is created when absent) or an array (an
/// index in 0..size, "-" appends). Throws ScenarioError at `pointer` otherwise, or when the
/// pointer is malformed.
void set_json_pointer(nlohmann::json& doc, const std::string& pointer, nlohmann::json value);

/// Removes the value at `pointer` from `doc`, as --set and a variant's "set" do for null: the
/// key as if never written, so its default applies, or its optional section is off. Throws
/// ScenarioError at `pointer` when there is nothing there, for an array element (set the whole
/// array instead), or when the pointer is malformed.
void remove_json_pointer(nlohmann::json& doc, const std::string& pointer);

/// One scenario without "variants": the sections validated in dependency order; its
/// `consistency` is the list of runs, variant_scenarios left empty.
Scenario parse_one_scenario(const nlohmann::json& doc, const std::string& base_dir);

/// parse_scenario for a document with "variants" (see scenario.h): validates the base (with its
/// one "consistency" object), then each variant as a whole scenario, and returns the base with
/// `consistency` listing the variants and variant_scenarios holding them resolved.
Scenario parse_variants(const nlohmann::json& doc, const std::string& base_dir);

}  // namespace pstwin
