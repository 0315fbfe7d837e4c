// Membership: who holds which key range and which workers count, as the scheduler announces it.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/message.h"
#include "runtime/roles/job.h"

namespace pstwin {

/// The scheduler's view of the job after each change, sent to every live node as kMembership.
/// `epoch` starts at 0 and grows by one with each change (a failover, a rebuilt replica, a dead
/// or returning worker); a node keeps only the newest epoch it has seen.
struct Membership {
  std::uint32_t epoch = 0;
  /// By key range: the servers (node ids) holding it, primary first, then its backups.
  std::vector<std::vector<NodeId>> replicas;
  /// By worker index: declared dead and not (yet) back.
  std::vector<bool> dead_workers;

  NodeId primary(std::uint32_t range) const { return replicas.at(range).front(); }
  /// Whether server `node` holds range `range` (as primary or backup).
  bool holds(NodeId node, std::uint32_t range) const;

  /// The kMembership message (header.epoch = epoch, data = JSON).
  Message to_message() const;
  /// Reads a kMembership message of a job with `ranges` key ranges, `workers` workers and server
  /// node ids in [first_server, first_server + servers). Throws ProtocolError naming what is wrong:
  /// malformed JSON, a range without replicas, an id that is not a server, a repeated server in
  /// one range, the wrong number of ranges or workers.
  static Membership from_message(const Message& m, std::uint32_t ranges, std::uint32_t workers,
                                 NodeId first_server, std::uint32_t servers);
  /// The same for the job `spec` describes (its key ranges, spec.key_ranges()).
  static Membership from_message(const Message& m, const JobSpec& spec);
};

/// The starting assignment: range r is held by servers r, r+1, ..., r+replication-1 (mod
/// `servers`), as node ids first_server + index; no worker is dead. Placing the backups on the next
/// servers round the ring spreads each server's backups over its neighbours, so one failure moves
/// load to one server per range. (The replication itself is primary-backup, not a chain.)
/// Throws std::invalid_argument when replication is 0 or exceeds `servers`.
Membership initial_membership(std::uint32_t ranges, std::uint32_t servers, std::uint32_t workers,
                              std::uint32_t replication, NodeId first_server);

/// The starting assignment of the job `spec` describes: its key ranges placed by its partition
/// (range_holders), replicated spec.fault.replication times; under the range partition the same
/// as the overload above. Every role derives it the same way, so it is never sent. Throws
/// std::invalid_argument when replication is 0 or exceeds the servers.
Membership initial_membership(const JobSpec& spec);

}  // namespace pstwin
