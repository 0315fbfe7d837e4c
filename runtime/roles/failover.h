// Failover: the scheduler's decisions when nodes fall silent, die and come back: promotion,
// refilling replicas, lost ranges and the membership epoch (docs/DESIGN.md, "Replication and
// failover"). Nothing here sends or logs: the scheduler does, from what each call returns.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "runtime/message.h"
#include "runtime/roles/job.h"
#include "runtime/roles/membership.h"

namespace pstwin {

/// A key range and a server it went to.
struct RangeServer {
  std::uint32_t range = 0;
  NodeId server = 0;
  friend bool operator==(const RangeServer&, const RangeServer&) = default;
};

/// Where a node stands with the scheduler.
enum class Standing {
  kActive,  ///< takes part: watched, told every membership; a server may be given backups
  kLeft,    ///< a server told to stop, or a worker done or told to stop
  kDead,    ///< declared dead and not back: fenced until it rejoins as a new process
};

/// The scheduler's failover state: the membership, each node's standing, and the backups still
/// being rebuilt. Not thread-safe. Node ids follow JobLayout; REQUIRES below means a node id
/// of the job (an out-of-range id throws std::out_of_range).
class Failover {
 public:
  /// Every node active, `membership` as it starts (initial_membership); each range is kept at
  /// `replication` replicas where live servers allow.
  Failover(const JobLayout& layout, std::uint32_t replication, Membership membership);
  /// A job of no nodes, to assign a real one to.
  Failover() = default;

  const Membership& membership() const { return membership_; }
  Standing standing(NodeId n) const { return standing_.at(n); }
  bool dead(NodeId n) const { return standing(n) == Standing::kDead; }
  bool active(NodeId n) const { return standing(n) == Standing::kActive; }

  /// Node `n` leaves the job (a server told to stop; a worker done or told to stop): it is
  /// no longer watched, told memberships, or given backups. A dead node stays dead.
  void leave(NodeId n);

  /// Whether the scheduler still expects heartbeats from `n`: an active node, or a server that
  /// left but leads a range whose final snapshot is not in (`final_in`, by range).
  bool watched(NodeId n, const std::vector<bool>& final_in) const;

  /// What declaring a server dead did.
  struct ServerLoss {
    std::vector<RangeServer> promoted;   ///< ranges it led, and the synced backup now leading
    std::vector<std::uint32_t> lost;     ///< ranges left with no synced replica: the job ends
    std::vector<RangeServer> backups;    ///< new backups (only when nothing is lost)
  };
  /// Server `server` is dead: it leaves every range it held; where it led, the first synced
  /// backup leads; when no range is lost, ranges below the replication factor get backups
  /// (refill) and the epoch grows by one. REQUIRES a server id.
  ServerLoss server_dead(NodeId server);
  /// A restarted server holds nothing: it is active again and takes the missing backups
  /// (returned, in range order); the epoch grows by one. REQUIRES a server id.
  std::vector<RangeServer> server_back(NodeId server);
  /// Worker `worker` is dead (marked in the membership); the epoch grows by one.
  void worker_dead(NodeId worker);
  /// Worker `worker` (re)started: active and not dead; the epoch grows by one.
  void worker_back(NodeId worker);
  /// Range `range`'s primary reports that new backup `backup` holds its state, so it may be
  /// promoted from now on. Unknown ranges are ignored.
  void backup_synced(std::uint32_t range, NodeId backup);

  /// Server `server`, absent so far, joins (elastic servers): it is active, and `target` gives,
  /// by range, the servers (node ids, primary first) that should hold each range now. Where a
  /// range's holders differ, every target server not holding it becomes an unsynced backup
  /// (returned, in range order) and the range waits for move_ready; the epoch grows by one.
  /// REQUIRES a server id and one target set per range.
  std::vector<RangeServer> server_join(NodeId server, const std::vector<std::vector<NodeId>>& target);
  /// Finishes the waiting moves whose target servers all hold the range's state: the range's
  /// holders become its target set (the new primary first; a former holder outside it leaves
  /// the range). Returns those ranges with their new primary; the epoch grows by one when any.
  std::vector<RangeServer> complete_moves();
  /// Whether some range still waits to move to its target servers.
  bool moving() const { return !move_target_.empty(); }

  /// The nodes to tell a new membership: every active node but the scheduler, in id order.
  std::vector<NodeId> to_tell() const;

 private:
  /// Gives every range below the replication factor backups: each time, the active server not
  /// holding the range that holds the fewest ranges (the lowest id on a tie).
  std::vector<RangeServer> refill();
  bool unsynced(std::uint32_t range, NodeId server) const;

  JobLayout layout_;
  std::uint32_t replication_ = 1;
  Membership membership_;
  std::vector<Standing> standing_;  // by node id
  /// By range: backups assigned since the start whose primary has not yet confirmed they hold
  /// the range's state; never promoted.
  std::vector<std::vector<NodeId>> unsynced_;
  /// By range: the holders a join gave it, until complete_moves hands it over.
  std::map<std::uint32_t, std::vector<NodeId>> move_target_;
};

}  // namespace pstwin
