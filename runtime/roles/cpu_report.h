// The "cpu" member of a node's final report, and the "node_cpu" event the scheduler makes of it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "runtime/env.h"

namespace pstwin {

/// {"role_thread_s", "process_s", "wall_s"}: `use` as a report's "cpu" member or an event's fields.
nlohmann::json cpu_use_json(const CpuUse& use);

/// Adds "cpu" (cpu_use_json) to `report` when `env` measures its CPU (Env::cpu_use); nothing
/// otherwise, so that reports of environments that do not measure keep their old bytes.
void add_cpu_use(nlohmann::json& report, const Env& env);

/// The "cpu" member of a report that came off the wire: each of its three members a finite
/// number >= 0. Throws ProtocolError naming `what` and the member that is missing or wrong.
CpuUse cpu_use_from_json(const nlohmann::json& cpu, const std::string& what);

}  // namespace pstwin
