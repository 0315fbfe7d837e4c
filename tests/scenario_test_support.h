// Helpers for tests of scenario validation.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/errors.h"
#include "runtime/scenario/scenario.h"

namespace pstwin::testing_support {

/// The JSON pointer of the ScenarioError that parsing `doc` throws, or "<valid>" when it parses.
inline std::string error_pointer(const nlohmann::json& doc) {
  try {
    parse_scenario(doc);
  } catch (const ScenarioError& e) {
    return e.pointer();
  }
  return "<valid>";
}

/// The full message (what()) of the ScenarioError, or "<valid>".
inline std::string error_message(const nlohmann::json& doc) {
  try {
    parse_scenario(doc);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "<valid>";
}

/// The full message (what()) of the ScenarioError that loading the file at `path` with the
/// overrides `sets` throws, or "<valid>".
inline std::string load_error(const std::string& path, const std::vector<std::string>& sets = {}) {
  try {
    load_scenario(path, sets);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "<valid>";
}

}  // namespace pstwin::testing_support
