#include "sim/host_cpus.h"

#include <simgrid/s4u.hpp>
#include <string>

#include "sim/machines.h"

namespace sg4 = simgrid::s4u;

namespace pstwin {

std::vector<sg4::Host*> build_cpu_hosts(sg4::NetZone* zone, const ClusterSection& cluster, const JobLayout& layout) {
  const CpuSpec& cpu = *cluster.cpu;
  const auto make = [&](const std::string& name) {
    return zone->create_host(name, kCoreFlops)->set_core_count(static_cast<int>(cpu.cores))->seal();
  };
  std::vector<sg4::Host*> of_node(layout.nodes(), nullptr);
  if (cpu.machines == CpuSpec::Machines::kOne) {
    sg4::Host* one = make("cpu");
    for (auto& h : of_node) h = one;
    return of_node;
  }
  // Which nodes share a machine is the platform's own plan; its links do not matter here.
  const MachinePlan plan = plan_machines(cluster, layout, LinkSpec{});
  const auto place = [&](const Machine& m) {
    sg4::Host* host = make("cpu-" + m.name);
    for (NodeId n : m.nodes) of_node[n] = host;
  };
  for (const Machine& m : plan.workers) place(m);
  for (const Machine& m : plan.servers) place(m);
  place(plan.scheduler);
  return of_node;
}

void spend_host_work(sg4::Host* cores, double seconds) {
  if (seconds <= 0.0) return;
  if (cores) {
    // Placed explicitly: SimGrid 3.32's Host::exec_init leaves the execution on the actor's host.
    sg4::ExecPtr exec = sg4::this_actor::exec_init(seconds * kCoreFlops);
    exec->set_host(cores);
    exec->start();
    exec->wait();
    return;
  }
  // The node's host runs at its device's peak: this takes exactly `seconds`.
  sg4::this_actor::execute(seconds * sg4::this_actor::get_host()->get_speed());
}

}  // namespace pstwin
