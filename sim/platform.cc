#include "sim/platform.h"

#include <simgrid/s4u.hpp>

namespace sg4 = simgrid::s4u;

namespace pstwin {

std::string host_name(const JobLayout& layout, NodeId node) {
  if (node == JobLayout::scheduler()) return "scheduler";
  if (layout.is_server(node)) return "server-" + std::to_string(layout.server_index(node));
  return "worker-" + std::to_string(layout.worker_index(node));
}

std::vector<sg4::Host*> build_star_platform(const ClusterSection& cluster, const JobLayout& layout) {
  auto* zone = sg4::create_star_zone("cluster");
  std::vector<sg4::Host*> hosts;
  hosts.reserve(layout.nodes());
  for (NodeId n = 0; n < layout.nodes(); ++n) {
    const HostGroupSpec& group = layout.is_worker(n) ? cluster.worker : cluster.server;
    const std::string name = host_name(layout, n);
    sg4::Host* host = zone->create_host(name, group.device.peak_flops);
    sg4::Link* link = zone->create_split_duplex_link("link-" + name, group.link.bandwidth_Bps)
                          ->set_latency(group.link.latency_s);
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr,
                    {{link, sg4::LinkInRoute::Direction::UP}}, true);
    hosts.push_back(host);
  }
  zone->seal();
  return hosts;
}

}  // namespace pstwin
