// What hybrid synchronisation ("sync": "hybrid" on a consistency entry) needs of the rest of a
// scenario, checked once every section is read (DESIGN.md, "Hybrid synchronisation").
#pragma once

#include "runtime/scenario/scenario.h"

namespace pstwin {

/// Checks every consistency entry of `s` with sync "hybrid" against the rest of the scenario.
/// REQUIRES: s.cluster, s.model, s.fault_tolerance and s.failures parsed.
/// Throws ScenarioError at "/consistency/<i>/sync" when cluster.workers_per_host is 1 (nothing to
/// reduce inside a host: that is "ps"), the model is sparse ("mf": the workers of a host touch
/// different keys), the entry has backup_workers, or the scenario has fault tolerance or failures
/// (a host's reduce cannot go on without one of its workers).
void check_hybrid_sync(const Scenario& s);

}  // namespace pstwin
