// Servers joining a running job: the "join" entries of "failures" (README, "Partitioning").
// Internal to runtime/scenario/; each throws ScenarioError at the offending value's pointer.
#pragma once

#include <string>
#include <vector>

#include "runtime/scenario/json_fields.h"
#include "runtime/scenario/scenario.h"

namespace pstwin::scenario_sections {

/// {"join": "server", "at": T} (`at_s` already read from "at"): a FailureSpec of kind kJoin,
/// its target not yet assigned. "worker" is refused (workers cannot join a job they were not
/// started in), as are "recover_at", "mtbf", "repair" and "nodes".
FailureSpec parse_join(const scenario_json::Object& o, double at_s);

/// Gives the joins of `failures` their servers: the last J of the cluster's, in the order of
/// their times (ties: entry order). Refuses, at the entry's pointer under `ptr`, as many joins
/// as servers (one must be there from the start), and any other failure that names a joining
/// server (a "node" or "link" entry, or "random" over servers).
void assign_joining_servers(std::vector<FailureSpec>& failures, const std::string& ptr,
                            const ClusterSection& cluster);

/// Throws at /failures/<i>/join unless `s.partition` is "consistent_hash" when a server joins:
/// the ring decides which keys move to it (only those it now owns); and at
/// /fault_tolerance/replication when the servers there at the start are fewer than it.
void check_joins_need_hash(const Scenario& s);

/// How many entries of `failures` are joins.
std::uint32_t joining_servers(const std::vector<FailureSpec>& failures);

}  // namespace pstwin::scenario_sections
