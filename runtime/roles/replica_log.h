// A key range's replication log: on its primary, the sequence, each backup's acknowledged
// position and the durable point; on a backup, in-order replay. Plain state machines with no
// Env: the Server sends what they decide. Protocol: docs/DESIGN.md, "Replication and failover".
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "runtime/message.h"
#include "runtime/roles/job.h"

namespace pstwin {

class Shard;

/// The primary's side of one led range's log. Sequence numbers start at 1; seq 0 means "nothing".
class ReplicaLog {
 public:
  /// A log whose last entry is `end` (0 at the job's start; a promoted backup's applied position).
  explicit ReplicaLog(std::uint64_t end = 0) : end_(end) {}

  /// The last sequence number appended.
  std::uint64_t end() const { return end_; }
  /// Appends one operation; returns its sequence number (end() + 1 before the call).
  std::uint64_t append() { return ++end_; }

  /// Current backups and the position each has acknowledged, in node order (the send order).
  const std::map<NodeId, std::uint64_t>& backups() const { return acked_; }
  bool has_backups() const { return !acked_.empty(); }
  bool has_backup(NodeId node) const { return acked_.count(node) > 0; }
  /// `node` started with the range: it holds the log's start and acknowledges from there.
  void add_backup(NodeId node) { acked_[node] = 0; }
  /// `node` is sent the range's whole state at end(): it counts as holding nothing until it
  /// acknowledges that position, and is then synced (see on_ack).
  void add_rebuilt_backup(NodeId node);
  /// Forgets every backup not in `keep` (they left the range); returns the nodes of `keep` that
  /// are not backups yet (they joined: the caller rebuilds them), in `keep`'s order.
  std::vector<NodeId> retain(const std::vector<NodeId>& keep);

  enum class Ack {
    kIgnored,   ///< not a backup of this range (any more): nothing changed
    kRecorded,  ///< its acknowledged position is recorded
    kSynced,    ///< recorded, and it acknowledges the state it was rebuilt from: tell the scheduler
  };
  /// Backup `node` has applied the log up to `seq` (acks may arrive late or twice).
  Ack on_ack(NodeId node, std::uint64_t seq);

  /// The durable point: the smallest position every backup acknowledged; end() without backups.
  std::uint64_t durable() const;

 private:
  std::uint64_t end_;
  std::map<NodeId, std::uint64_t> acked_;
  std::map<NodeId, std::uint64_t> rebuilt_at_;  ///< rebuilt backups not yet synced: state's seq
};

/// A backup's side of one range's log: which entry it applies next.
class ReplicaReplay {
 public:
  /// A replica that has applied the log up to `applied` (0 at the start; a state's seq).
  explicit ReplicaReplay(std::uint64_t applied = 0) : applied_(applied) {}

  std::uint64_t applied() const { return applied_; }
  /// Whether kReplicate `entry` is the next to apply (true) or one applied already, to
  /// acknowledge again (false). Throws ProtocolError, naming the sender and range, for a gap.
  bool is_next(const Message& entry) const;
  /// Records that entry `seq` (the next one) is applied.
  void applied(std::uint64_t seq) { applied_ = seq; }
  /// Replays `entry` onto `shard` when it is the next (see is_next and replay); returns the
  /// position to acknowledge, applied().
  std::uint64_t take(Shard& shard, Message entry, const JobLayout& layout);

 private:
  std::uint64_t applied_;
};

/// Applies log entry `entry` (a kReplicate from the range's primary) to a backup's `shard`.
/// A push the shard has applied already changes nothing. Throws ProtocolError for an entry
/// without an operation or about a node that is not a worker, and what Shard::push throws.
void replay(Shard& shard, Message entry, const JobLayout& layout);

/// A log entry without a payload: operation `op` about node `subject` (kWorkerRejoin: from
/// `clock`). The primary stamps type, range, seq and epoch when it sends it.
Message log_entry(ReplicaOp op, NodeId subject, std::int64_t clock = 0);
/// Backup -> primary: range `range`'s log is applied up to `seq`.
Message replica_ack(std::uint32_t range, std::uint64_t seq, std::uint32_t epoch);
/// Primary -> scheduler (kReplicaAck with `subject`): `backup` now holds `range`. The sender
/// stamps the epoch.
Message backup_synced(std::uint32_t range, NodeId backup);

}  // namespace pstwin
