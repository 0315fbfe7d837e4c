#include "sim/platform.h"

#include <simgrid/s4u.hpp>
#include <xbt/config.hpp>

#include "sim/host_cpus.h"
#include "sim/machines.h"
#include "sim/topology_builders.h"

namespace sg4 = simgrid::s4u;

namespace pstwin {

std::string host_name(const JobLayout& layout, NodeId node) {
  if (node == JobLayout::scheduler()) return "scheduler";
  if (layout.is_server(node)) return "server-" + std::to_string(layout.server_index(node));
  return "worker-" + std::to_string(layout.worker_index(node));
}

const DeviceSpec& node_device(const ClusterSection& cluster, const JobLayout& layout, NodeId node) {
  if (layout.is_worker(node)) return cluster.worker_spec(layout.worker_index(node)).device;
  if (layout.is_server(node)) return cluster.server_spec(layout.server_index(node)).device;
  return cluster.server.device;
}

const MessagingSpec& node_messaging(const ClusterSection& cluster, const JobLayout& layout, NodeId node) {
  if (layout.is_worker(node)) return cluster.worker_spec(layout.worker_index(node)).messaging;
  if (layout.is_server(node)) return cluster.server_spec(layout.server_index(node)).messaging;
  return cluster.server.messaging;
}

std::vector<sg4::Host*> build_platform(const ClusterSection& cluster, const JobLayout& layout,
                                       std::vector<sg4::Host*>* cpu_hosts) {
  // Co-located processes of one machine talk over its loopback, as SimGrid prices a host's
  // messages to itself (network/loopback-bw and -lat, 10 GB/s and 0 by default).
  const LinkSpec loopback{simgrid::config::get_value<double>("network/loopback-bw"),
                          simgrid::config::get_value<double>("network/loopback-lat")};
  const MachinePlan plan = plan_machines(cluster, layout, loopback);
  std::vector<sg4::Host*> hosts(layout.nodes(), nullptr);
  // The first zone made is SimGrid's root: with "cpu", a root holding the topology and the cores.
  sg4::NetZone* root = cluster.cpu ? sg4::create_full_zone("job") : nullptr;
  const topology::Build build{cluster, layout, hosts, root};
  switch (cluster.topology.kind) {
    case TopologySpec::Kind::kStar: topology::build_star(plan, build); break;
    case TopologySpec::Kind::kRacks: topology::build_racks(plan, build); break;
    default: topology::build_fabric(plan, build); break;
  }
  if (root) {
    auto* cpus = sg4::create_full_zone("cpus");
    cpus->set_parent(root);
    std::vector<sg4::Host*> cores = build_cpu_hosts(cpus, cluster, layout);
    if (cpu_hosts) *cpu_hosts = std::move(cores);
    cpus->seal();
    root->seal();
  }
  return hosts;
}

}  // namespace pstwin
