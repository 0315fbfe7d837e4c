// Checks of a scenario against facts of its data that prepare_training and `pstwin validate`
// (data_check.h) both make, so both refuse the same input with the same message.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/scenario/scenario.h"

namespace pstwin {

/// Throws ScenarioError at /cluster/servers when a model of `keys` keys leaves a server with
/// none (its clock, and every evaluation, would stay at 0) or one with more than 2^32 - 1 (range
/// sizes travel as 32-bit lengths).
void check_servers_have_keys(const Scenario& scenario, std::uint64_t keys);

/// Throws ScenarioError at /cluster/workers when `rows` training rows (from `source`, for the
/// message) leave a worker without any.
void check_workers_have_rows(const Scenario& scenario, std::uint64_t rows, const std::string& source);

}  // namespace pstwin
