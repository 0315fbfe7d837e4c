// "racks": machines in racks behind a top-of-rack switch, racks joined by a core switch.
#include "sim/link_load.h"
#include "sim/topology_builders.h"

namespace sg4 = simgrid::s4u;

namespace pstwin::topology {

void build_racks(const MachinePlan& plan, const Build& b) {
  const TopologySpec& t = b.cluster.topology;
  // Which machines go in which rack: workers' racks of hosts_per_rack (the last may hold
  // fewer); servers in racks of their own, or server i in workers' rack i mod racks ("spread").
  std::vector<std::vector<const Machine*>> racks;
  for (std::size_t h = 0; h < plan.workers.size(); ++h) {
    if (h % t.hosts_per_rack == 0) racks.emplace_back();
    racks.back().push_back(&plan.workers[h]);
  }
  const std::size_t worker_racks = racks.size();
  for (std::size_t i = 0; i < plan.servers.size(); ++i) {
    if (b.cluster.server_placement == ServerPlacement::kSpread) {
      racks[i % worker_racks].push_back(&plan.servers[i]);
    } else {
      if (i % t.hosts_per_rack == 0) racks.emplace_back();
      racks.back().push_back(&plan.servers[i]);
    }
  }

  // The scheduler sits in server 0's rack: the servers' first rack, or rack 0 when servers
  // share the workers' racks. So a job whose machines all fit in one rack is the star.
  const std::size_t scheduler_rack =
      plan.servers.empty() || b.cluster.server_placement == ServerPlacement::kSpread ? 0 : worker_racks;
  racks[scheduler_rack].push_back(&plan.scheduler);

  auto* core = sg4::create_star_zone("cluster");
  if (b.parent) core->set_parent(b.parent);
  for (std::size_t r = 0; r < racks.size(); ++r) {
    // A rack is a star whose centre is its top-of-rack switch; the switch (the rack's gateway)
    // reaches the core through the rack's full-duplex uplink.
    const std::string name = "rack-" + std::to_string(r);
    auto* rack = sg4::create_star_zone(name);
    rack->set_parent(core);
    // The rack holds zones only (topology_builders.h): every machine a zone, and the switch a
    // zone of its own whose router is the rack's gateway, reached from the machines through
    // their NICs alone.
    auto* tor_zone = sg4::create_star_zone(name + "-switch");
    tor_zone->set_parent(rack);
    auto* tor = tor_zone->create_router(name + "-tor");
    tor_zone->seal();
    rack->add_route(tor_zone->get_netpoint(), nullptr, tor, nullptr, {}, true);
    for (const Machine* m : racks[r]) add_machine_to_star(rack, *m, true, b);
    rack->seal();
    sg4::SplitDuplexLink* uplink_link = core->create_split_duplex_link("uplink-" + name, t.uplink.bandwidth_Bps);
    mark_link_kind(uplink_link, "rack_uplink");
    sg4::Link* uplink = uplink_link->set_latency(t.uplink.latency_s);
    core->add_route(rack->get_netpoint(), nullptr, tor, nullptr, {{uplink, sg4::LinkInRoute::Direction::UP}}, true);
  }
  core->seal();
}

}  // namespace pstwin::topology
