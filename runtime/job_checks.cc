#include "runtime/job_checks.h"

#include "runtime/errors.h"

namespace pstwin {

void check_servers_have_keys(const Scenario& scenario, std::uint64_t keys) {
  if (scenario.cluster.servers > keys)
    throw ScenarioError("/cluster/servers",
                        std::to_string(scenario.cluster.servers) + " servers for a model of " +
                            std::to_string(keys) + " keys; every server needs at least one");
  const std::uint64_t per_server = (keys + scenario.cluster.servers - 1) / scenario.cluster.servers;
  if (per_server > 0xffffffffULL)
    throw ScenarioError("/cluster/servers",
                        "a model of " + std::to_string(keys) + " keys over " +
                            std::to_string(scenario.cluster.servers) +
                            " servers gives a server more than 2^32 - 1 keys; add servers");
}

void check_workers_have_rows(const Scenario& scenario, std::uint64_t rows, const std::string& source) {
  const std::uint32_t workers = scenario.cluster.workers;
  if (rows < workers)
    throw ScenarioError("/cluster/workers", std::to_string(workers) + " workers but only " + std::to_string(rows) +
                                                " training rows in " + source);
}

}  // namespace pstwin
