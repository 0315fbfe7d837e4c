// Who is who in a job: node ids by role and index, and the seed of each node's random stream.
// In the base layer so that every environment (sim/, net/) seeds a node the same way without
// knowing the roles (docs/DESIGN.md, "Env: the swappable layer").
#pragma once

#include <cstdint>

#include "runtime/message.h"

namespace pstwin {

/// What a node of a job is.
enum class NodeRole : std::uint8_t { kScheduler = 0, kServer = 1, kWorker = 2 };

/// Node numbering of a job: 0 is the scheduler, then S servers, then W workers.
struct JobLayout {
  std::uint32_t servers = 0;
  std::uint32_t workers = 0;

  static constexpr NodeId scheduler() { return 0; }
  NodeId server(std::uint32_t i) const { return 1 + i; }
  NodeId worker(std::uint32_t i) const { return 1 + servers + i; }
  std::uint32_t nodes() const { return 1 + servers + workers; }
  bool is_server(NodeId n) const { return n >= 1 && n <= servers; }
  bool is_worker(NodeId n) const { return n > servers && n < nodes(); }
  std::uint32_t server_index(NodeId n) const { return n - 1; }
  std::uint32_t worker_index(NodeId n) const { return n - 1 - servers; }
  /// The role of node n. REQUIRES: n < nodes().
  NodeRole role(NodeId n) const {
    return n == scheduler() ? NodeRole::kScheduler : is_server(n) ? NodeRole::kServer : NodeRole::kWorker;
  }
  /// Node n's index among the nodes of its role (0 for the scheduler). REQUIRES: n < nodes().
  std::uint32_t index(NodeId n) const {
    return n == scheduler() ? 0 : is_server(n) ? server_index(n) : worker_index(n);
  }
  friend bool operator==(const JobLayout&, const JobLayout&) = default;
};

/// A number naming the `index`-th node of `role` in any job, whatever its size: (role << 32) |
/// index. Random streams that belong to a node are derived from this, never from its node id,
/// because node ids shift with the number of servers: a what-if on the servers must change the
/// time a job takes, not its mathematics.
inline std::uint64_t node_stream_key(NodeRole role, std::uint32_t index) {
  return std::uint64_t{static_cast<std::uint8_t>(role)} << 32 | index;
}

/// The seed of the role stream (Env::rng) of the `index`-th node of `role` under scenario seed
/// `scenario_seed`: Rng::derive_seed(scenario_seed, node_stream_key(role, index), 0). Every
/// environment seeds a node's Env::rng with this, so a node draws the same numbers everywhere.
std::uint64_t role_stream_seed(std::uint64_t scenario_seed, NodeRole role, std::uint32_t index);

/// Same for node `n` of `layout`. REQUIRES: n < layout.nodes().
inline std::uint64_t role_stream_seed(std::uint64_t scenario_seed, const JobLayout& layout, NodeId n) {
  return role_stream_seed(scenario_seed, layout.role(n), layout.index(n));
}

}  // namespace pstwin
