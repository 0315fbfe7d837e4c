// "star": every machine hangs off one non-blocking switch by its NIC.
#include "sim/topology_builders.h"

namespace sg4 = simgrid::s4u;

namespace pstwin::topology {

void build_star(const MachinePlan& plan, const Build& b) {
  auto* zone = sg4::create_star_zone("cluster");
  if (b.parent) zone->set_parent(b.parent);
  // Scheduler, servers, workers: NodeId order, so a cluster of single-node machines is built
  // exactly as it always was (same names, same creation order, the same simulated times).
  // Machines of several nodes are zones; then all are (topology_builders.h, add_machine).
  bool zones = false;
  for (const Machine& m : plan.workers) zones = zones || m.shared();
  add_machine_to_star(zone, plan.scheduler, zones, b);
  for (const Machine& m : plan.servers) add_machine_to_star(zone, m, zones, b);
  for (const Machine& m : plan.workers) add_machine_to_star(zone, m, zones, b);
  zone->seal();
}

}  // namespace pstwin::topology
