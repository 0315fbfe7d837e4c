#include "runtime/roles/failover.h"

#include <algorithm>

namespace pstwin {

Failover::Failover(const JobLayout& layout, std::uint32_t replication, Membership membership)
    : layout_(layout),
      replication_(replication),
      membership_(std::move(membership)),
      standing_(layout.nodes(), Standing::kActive),
      unsynced_(membership_.replicas.size()) {}

void Failover::leave(NodeId n) {
  if (!dead(n)) standing_.at(n) = Standing::kLeft;
}

bool Failover::watched(NodeId n, const std::vector<bool>& final_in) const {
  if (active(n)) return true;
  if (dead(n) || !layout_.is_server(n)) return false;
  // A stopped server exits once its finals are out; only a primary still owing one counts.
  for (std::uint32_t r = 0; r < membership_.replicas.size(); ++r)
    if (!final_in.at(r) && membership_.primary(r) == n) return true;
  return false;
}

bool Failover::unsynced(std::uint32_t range, NodeId server) const {
  const auto& u = unsynced_[range];
  return std::find(u.begin(), u.end(), server) != u.end();
}

Failover::ServerLoss Failover::server_dead(NodeId server) {
  standing_.at(server) = Standing::kDead;
  ServerLoss loss;
  for (std::uint32_t r = 0; r < membership_.replicas.size(); ++r) {
    auto& set = membership_.replicas[r];
    const auto it = std::find(set.begin(), set.end(), server);
    if (it == set.end()) continue;
    const bool was_primary = it == set.begin();
    set.erase(it);
    std::erase(unsynced_[r], server);
    if (!was_primary) continue;
    // Only a backup that holds the state can lead; one still being rebuilt cannot.
    const auto synced = std::find_if(set.begin(), set.end(),
                                     [&](NodeId n) { return !unsynced(r, n); });
    if (synced == set.end()) {
      loss.lost.push_back(r);
      continue;
    }
    std::rotate(set.begin(), synced, synced + 1);
    loss.promoted.push_back({r, set.front()});
  }
  if (!loss.lost.empty()) return loss;
  loss.backups = refill();
  ++membership_.epoch;
  return loss;
}

std::vector<RangeServer> Failover::server_back(NodeId server) {
  standing_.at(server) = Standing::kActive;
  std::vector<RangeServer> backups = refill();
  ++membership_.epoch;
  return backups;
}

std::vector<RangeServer> Failover::server_join(NodeId server, const std::vector<std::vector<NodeId>>& target) {
  standing_.at(server) = Standing::kActive;
  std::vector<RangeServer> added;
  for (std::uint32_t r = 0; r < membership_.replicas.size(); ++r) {
    auto& set = membership_.replicas[r];
    if (set == target.at(r)) continue;
    for (NodeId n : target[r])
      if (std::find(set.begin(), set.end(), n) == set.end()) {
        set.push_back(n);  // a backup until it holds the state
        unsynced_[r].push_back(n);
        added.push_back({r, n});
      }
    move_target_[r] = target[r];
  }
  ++membership_.epoch;
  return added;
}

std::vector<RangeServer> Failover::complete_moves() {
  std::vector<RangeServer> moved;
  for (auto it = move_target_.begin(); it != move_target_.end();) {
    const std::uint32_t r = it->first;
    const auto& target = it->second;
    auto& set = membership_.replicas[r];
    const bool ready = std::all_of(target.begin(), target.end(), [&](NodeId n) {
      return std::find(set.begin(), set.end(), n) != set.end() && !unsynced(r, n) && active(n);
    });
    if (!ready) {
      ++it;
      continue;
    }
    set = target;
    moved.push_back({r, set.front()});
    it = move_target_.erase(it);
  }
  if (!moved.empty()) ++membership_.epoch;
  return moved;
}

void Failover::worker_dead(NodeId worker) {
  standing_.at(worker) = Standing::kDead;
  membership_.dead_workers.at(layout_.worker_index(worker)) = true;
  ++membership_.epoch;
}

void Failover::worker_back(NodeId worker) {
  standing_.at(worker) = Standing::kActive;
  membership_.dead_workers.at(layout_.worker_index(worker)) = false;
  ++membership_.epoch;
}

void Failover::backup_synced(std::uint32_t range, NodeId backup) {
  if (range < unsynced_.size()) std::erase(unsynced_[range], backup);
}

std::vector<NodeId> Failover::to_tell() const {
  std::vector<NodeId> nodes;
  for (NodeId n = 1; n < layout_.nodes(); ++n)
    if (active(n)) nodes.push_back(n);
  return nodes;
}

std::vector<RangeServer> Failover::refill() {
  std::vector<std::uint32_t> load(layout_.nodes(), 0);
  for (const auto& set : membership_.replicas)
    for (NodeId n : set) ++load[n];
  std::vector<RangeServer> assigned;
  for (std::uint32_t r = 0; r < membership_.replicas.size(); ++r) {
    auto& set = membership_.replicas[r];
    while (set.size() < replication_) {
      NodeId best = 0;  // the scheduler's id: none found
      for (std::uint32_t s = 0; s < layout_.servers; ++s) {
        const NodeId n = layout_.server(s);
        if (!active(n) || std::find(set.begin(), set.end(), n) != set.end()) continue;
        if (best == 0 || load[n] < load[best]) best = n;
      }
      if (best == 0) break;  // no spare server now; a restarted one will fill the gap
      set.push_back(best);
      unsynced_[r].push_back(best);
      ++load[best];
      assigned.push_back({r, best});
    }
  }
  return assigned;
}

}  // namespace pstwin
