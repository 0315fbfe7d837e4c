#include "runtime/scenario/hybrid_sync_checks.h"

#include <string>

#include "runtime/errors.h"

namespace pstwin {

void check_hybrid_sync(const Scenario& s) {
  for (std::size_t i = 0; i < s.consistency.size(); ++i) {
    const ConsistencyConfig& c = s.consistency[i].config;
    if (c.sync != SyncMode::kHybrid) continue;
    const std::string ptr = "/consistency/" + std::to_string(i) + "/sync";
    // Refused rather than run as "ps": a user who asked for hybrid and got plain PS would
    // compare two identical runs without knowing it.
    if (s.cluster.workers_per_host == 1)
      throw ScenarioError(ptr, "\"hybrid\" reduces gradients among the workers of one host, but "
                               "cluster.workers_per_host is 1; set workers_per_host > 1 (and "
                               "intra_host), or use \"ps\"");
    if (s.model.type == "mf")
      throw ScenarioError(ptr, "\"hybrid\" needs a dense model: the workers of a host push "
                               "different keys of model \"mf\", which a host cannot sum into one push");
    if (c.backup_workers > 0)
      throw ScenarioError(ptr, "\"hybrid\" does not take backup_workers: a host's sum waits for "
                               "all its workers, so a server cannot drop a slow one");
    if (s.fault_tolerance.enabled)
      throw ScenarioError(ptr, "\"hybrid\" cannot run with fault_tolerance or failures: a host's "
                               "reduce and its leader's pushes would stop with any of its "
                               "workers; use \"ps\" to study failures");
  }
}

}  // namespace pstwin
