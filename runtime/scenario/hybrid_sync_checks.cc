#include "runtime/scenario/hybrid_sync_checks.h"

#include <string>

#include "runtime/errors.h"
#include "runtime/scenario/json_fields.h"

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
    // The chain's adds reach the environment as ordinary work (Env::account), which is priced
    // as a training step: each add would pay the device's fixed overhead and draw the worker's
    // next straggler factor. Refused until the Env can tell a reduce from a step.
    if (!s.stragglers.empty())
      throw ScenarioError(ptr, "\"hybrid\" cannot run with stragglers yet: each in-host add of the "
                               "reduce would count as an iteration of the straggler schedule; use "
                               "\"ps\" to study stragglers");
    for (std::uint32_t w = 0; w < s.cluster.workers; ++w)
      if (s.cluster.worker_spec(w).device.overhead_s > 0.0)
        throw ScenarioError(ptr, "\"hybrid\" needs worker devices without \"overhead\" (worker " +
                                     std::to_string(w) + "'s is " +
                                     scenario_json::format_number(s.cluster.worker_spec(w).device.overhead_s) +
                                     " s): each in-host add of the reduce would pay it, as if it were "
                                     "a training step");
    if (s.fault_tolerance.enabled)
      throw ScenarioError(ptr, "\"hybrid\" cannot run with fault_tolerance or failures: a host's "
                               "reduce and its leader's pushes would stop with any of its "
                               "workers; use \"ps\" to study failures");
  }
}

}  // namespace pstwin
