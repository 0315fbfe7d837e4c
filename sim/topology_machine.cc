// One machine of the platform: a bare host, or a star zone of the hosts that share its NIC.
#include "sim/link_load.h"
#include "sim/platform.h"
#include "sim/topology_builders.h"

namespace sg4 = simgrid::s4u;

namespace pstwin::topology {
namespace {

double node_speed(const Build& b, NodeId n) { return node_device(b.cluster, b.layout, n).peak_flops; }

// A split-duplex link marked with what it is (link_load.h: busiest_links names it so).
sg4::Link* split_duplex(sg4::NetZone* zone, const std::string& name, const LinkSpec& spec, const char* kind) {
  sg4::SplitDuplexLink* link = zone->create_split_duplex_link(name, spec.bandwidth_Bps);
  mark_link_kind(link, kind);
  return link->set_latency(spec.latency_s);
}

}  // namespace

Leaf add_machine(sg4::NetZone* parent, const Machine& m, bool nic_inside, bool as_zone, const Build& b) {
  if (!m.shared() && !nic_inside && !as_zone) {
    sg4::Host* host = parent->create_host(m.name, node_speed(b, m.nodes.front()));
    b.hosts[m.nodes.front()] = host;
    return {host->get_netpoint(), nullptr};
  }
  // A lone node's machine zone is named after the machine, its host after the node.
  auto* zone = sg4::create_star_zone(m.shared() ? m.name : "machine-" + m.name);
  zone->set_parent(parent);
  auto* gateway = zone->create_router(m.name + "-nic");
  for (std::size_t i = 0; i < m.nodes.size(); ++i) {
    const NodeId n = m.nodes[i];
    const std::string name = host_name(b.layout, n);
    sg4::Host* host = zone->create_host(name, node_speed(b, n));
    b.hosts[n] = host;
    if (m.shared())
      zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr,
                      {{split_duplex(zone, "link-" + name, m.local[i], m.local_kind[i]), sg4::LinkInRoute::Direction::UP}}, true);
  }
  if (nic_inside) {
    // In a star zone a route is the source's links up, then the destination's links down; the
    // gateway's "down" links are what leaves the machine, so its NIC goes in reversed: outgoing
    // traffic takes the NIC's UP half, incoming traffic its DOWN half.
    zone->add_route(gateway, nullptr, nullptr, nullptr,
                    {{split_duplex(zone, "link-" + m.name, m.nic, "nic"), sg4::LinkInRoute::Direction::DOWN}}, true);
  }
  zone->seal();
  return {zone->get_netpoint(), gateway};
}

void add_machine_to_star(sg4::NetZone* star, const Machine& m, bool as_zone, const Build& b) {
  const Leaf leaf = add_machine(star, m, false, as_zone, b);
  sg4::SplitDuplexLink* nic_link = star->create_split_duplex_link("link-" + m.name, m.nic.bandwidth_Bps);
  mark_link_kind(nic_link, "nic");
  sg4::Link* nic = nic_link->set_latency(m.nic.latency_s);
  star->add_route(leaf.netpoint, nullptr, leaf.gateway, nullptr, {{nic, sg4::LinkInRoute::Direction::UP}}, true);
}

}  // namespace pstwin::topology
