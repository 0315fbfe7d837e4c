// Helpers for tests of the "cluster" section: a small synthetic scenario whose cluster takes
// extra keys, and the check that a cluster is refused at the right pointer.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "runtime/errors.h"
#include "runtime/scenario/scenario.h"

namespace pstwin::testing_support {

/// A synthetic BSP scenario: 8 workers (h100, 10 Gbit/s, 50 us) and `servers` servers (cpu,
/// the same link), its "cluster" updated with `extra`.
inline nlohmann::json scenario_with_cluster(const nlohmann::json& extra, int servers = 1) {
  nlohmann::json doc = nlohmann::json::parse(R"({
    "name": "cluster", "seed": 1,
    "model": {"type": "synthetic", "parameters": 1000, "flops_per_iteration": 1e6,
              "bytes_per_iteration": 1e6},
    "training": {"iterations": 3},
    "consistency": [{"mode": "bsp"}],
    "cluster": {"workers": 8, "servers": 1,
                "worker": {"device": "h100", "link": {"bandwidth": "10Gbps", "latency": "50us"}},
                "server": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}}}
  })");
  doc["cluster"]["servers"] = servers;
  doc["cluster"].update(extra);
  return doc;
}

/// parse_scenario refuses `doc` with a ScenarioError at `pointer` whose message holds `words`.
inline void expect_error_at(const nlohmann::json& doc, const std::string& pointer, const std::string& words) {
  try {
    parse_scenario(doc);
    FAIL() << "accepted " << doc["cluster"].dump();
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.pointer(), pointer) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

}  // namespace pstwin::testing_support
