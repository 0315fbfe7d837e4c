// The scheduler's side of servers joining a running job (docs/DESIGN.md, "Partitioning"): the
// ring is rebuilt with the new server, it becomes a backup of the blocks it now owns, and each
// block moves to it once it holds the block's state. Failure handling is in scheduler_failures.cc.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/key_placement.h"
#include "runtime/roles/scheduler.h"

namespace pstwin {

void Scheduler::handle_join(NodeId node) {
  ring_servers_.push_back(spec_.layout.server_index(node));
  std::vector<std::vector<NodeId>> target;
  for (const auto& holders : ring_holders(spec_.num_keys(), ring_servers_, spec_.fault.replication, spec_.partition)) {
    auto& set = target.emplace_back();
    for (std::uint32_t s : holders) set.push_back(spec_.layout.server(s));
  }
  // What moves: the keys whose primary changes (only blocks the new server now owns).
  std::uint64_t keys = 0, ranges = 0;
  for (std::uint32_t r = 0; r < ranges_.size(); ++r)
    if (target[r].front() != failover_.membership().primary(r)) {
      keys += ranges_[r].size();
      ++ranges;
    }
  env_.metrics().event(env_.now(), "server_joined",
                       {{"node", node_name(node)}, {"ranges_moving", ranges}, {"keys_moving", keys},
                        {"share_moving", spec_.num_keys() ? static_cast<double>(keys) / spec_.num_keys() : 0.0}});
  announce_backups(failover_.server_join(node, target));
  broadcast_membership();
  complete_moves();  // a range whose holders only change order needs no state
}

void Scheduler::report_joins_not_made() {
  const std::uint32_t servers = spec_.layout.servers;
  for (std::uint32_t s = servers - spec_.partition.joining_servers; s < servers; ++s)
    if (std::find(ring_servers_.begin(), ring_servers_.end(), s) == ring_servers_.end())
      env_.metrics().event(env_.now(), "join_not_happened",
                           {{"node", node_name(spec_.layout.server(s))},
                            {"why", "the job ended before the server joined (its join time is after the "
                                    "run's end, or it came while the job was stopping)"}});
}

void Scheduler::complete_moves() {
  if (stopping_ || !failover_.moving()) return;
  const std::vector<RangeServer> moved = failover_.complete_moves();
  if (moved.empty()) return;
  for (const RangeServer& m : moved)
    env_.metrics().event(env_.now(), "range_moved", {{"range", m.range}, {"server", node_name(m.server)}});
  broadcast_membership();
}

}  // namespace pstwin
