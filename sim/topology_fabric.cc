// "fat_tree", "dragonfly", "torus": SimGrid's own cluster zones, a machine at each leaf.
#include <utility>

#include "sim/topology_builders.h"

namespace sg4 = simgrid::s4u;

namespace pstwin::topology {

void build_fabric(const MachinePlan& plan, const Build& b) {
  const TopologySpec& t = b.cluster.topology;
  const std::vector<const Machine*> order = plan.leaf_order(b.cluster.server_placement);
  // SimGrid asks for leaf `id` in order. Each machine is a zone holding its NIC (the fabric's
  // own links start at the leaf's gateway), so a NIC stays full-duplex and per-machine, which a
  // fabric's limiter links (one shared link per leaf) would not be. Leaves beyond the job's
  // machines are routers no message goes to.
  auto leaf =
      [&](sg4::NetZone* zone, const std::vector<unsigned long>& /*coord*/,
          unsigned long id) -> std::pair<simgrid::kernel::routing::NetPoint*, simgrid::kernel::routing::NetPoint*> {
    if (id >= order.size()) return {zone->create_router("unused-leaf-" + std::to_string(id)), nullptr};
    const Leaf l = add_machine(zone, *order[id], true, true, b);
    return {l.netpoint, l.gateway};
  };
  const sg4::ClusterCallbacks callbacks(leaf);
  const double bw = t.fabric.bandwidth_Bps, lat = t.fabric.latency_s;
  constexpr auto kSplit = sg4::Link::SharingPolicy::SPLITDUPLEX;
  sg4::NetZone* zone = nullptr;
  switch (t.kind) {
    case TopologySpec::Kind::kFatTree: {
      const std::vector<unsigned> down(t.down.begin(), t.down.end()), up(t.up.begin(), t.up.end()),
          count(t.link_count.begin(), t.link_count.end());
      zone = sg4::create_fatTree_zone("cluster", b.parent,
                                      sg4::FatTreeParams(static_cast<unsigned>(down.size()), down, up, count),
                                      callbacks, bw, lat, kSplit);
      break;
    }
    case TopologySpec::Kind::kDragonfly:
      zone = sg4::create_dragonfly_zone("cluster", b.parent,
                                        sg4::DragonflyParams({t.groups, t.group_links}, {t.chassis, t.chassis_links},
                                                             {t.routers, t.router_links}, t.nodes_per_router),
                                        callbacks, bw, lat, kSplit);
      break;
    case TopologySpec::Kind::kTorus:
      zone = sg4::create_torus_zone("cluster", b.parent,
                                    std::vector<unsigned long>(t.dimensions.begin(), t.dimensions.end()), callbacks, bw,
                                    lat, kSplit);
      break;
    default:
      break;
  }
  zone->seal();
}

}  // namespace pstwin::topology
