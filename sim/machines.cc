#include "sim/machines.h"

#include "sim/platform.h"

namespace pstwin {

MachinePlan plan_machines(const ClusterSection& cluster, const JobLayout& layout, const LinkSpec& loopback) {
  MachinePlan plan;
  const std::uint32_t k = cluster.workers_per_host;
  const bool colocated = cluster.server_placement == ServerPlacement::kColocated;
  // The layout's counts: a cluster built by hand (simgrid_options.cc) may leave its own at 0.
  for (std::uint32_t h = 0; h < layout.workers / k; ++h) {
    Machine m;
    m.nic = cluster.worker_spec(h * k).link;
    for (std::uint32_t w = h * k; w < (h + 1) * k; ++w) m.nodes.push_back(layout.worker(w));
    if (colocated && h < layout.servers) m.nodes.push_back(layout.server(h));
    if (m.shared()) {
      m.name = "machine-" + std::to_string(h);
      for (NodeId n : m.nodes) {
        const bool intra = layout.is_worker(n) && k > 1;
        m.local.push_back(intra ? *cluster.intra_host : loopback);
        m.local_kind.push_back(intra ? "intra_host" : "loopback");
      }
    } else {
      m.name = host_name(layout, m.nodes.front());
    }
    plan.workers.push_back(std::move(m));
  }
  if (!colocated)
    for (std::uint32_t i = 0; i < layout.servers; ++i)
      plan.servers.push_back(
          {host_name(layout, layout.server(i)), {layout.server(i)}, cluster.server_spec(i).link, {}, {}});
  plan.scheduler = {"scheduler", {JobLayout::scheduler()}, cluster.server.link, {}, {}};
  return plan;
}

std::vector<const Machine*> MachinePlan::leaf_order(ServerPlacement placement) const {
  std::vector<const Machine*> order;
  const std::size_t hosts = workers.size(), servers_n = servers.size();
  std::size_t next_server = 0;
  for (std::size_t h = 0; h < hosts; ++h) {
    order.push_back(&workers[h]);
    // Server i after worker machine ceil((i + 1) * H / S) - 1: evenly among the workers.
    while (placement == ServerPlacement::kSpread && next_server < servers_n &&
           (next_server + 1) * hosts <= (h + 1) * servers_n)
      order.push_back(&servers[next_server++]);
  }
  while (next_server < servers_n) order.push_back(&servers[next_server++]);
  order.push_back(&scheduler);
  return order;
}

}  // namespace pstwin
