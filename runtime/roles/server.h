// Server: holds key ranges (runtime/roles/shard.h) as their primary or as a backup, answers
// workers for the ranges it leads, replicates them to their backups, and takes over a range
// when the scheduler promotes it.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <vector>

#include "kernels/backend.h"
#include "runtime/env.h"
#include "runtime/partition.h"
#include "runtime/roles/job.h"
#include "runtime/roles/membership.h"
#include "runtime/roles/shard.h"

namespace pstwin {

/// One parameter server. Protocol (all through Env):
///   1. kStart from the scheduler for each key range it holds (the initial membership: range r on
///      servers r .. r+replication-1 mod S, see initial_membership): the range and its initial
///      values (or, resuming, a checkpoint's state). Messages that overtake the starts wait.
///   2. loop: for each range it leads (the primary):
///            kPush -> applied or buffered by the range's Shard, exactly once per request id;
///            kPull -> answered when the consistency model allows and every live backup has
///            applied every operation logged before it (so a reply, or kPushAck, acknowledges
///            the pushes before it durably);
///            snapshots to the scheduler at each multiple of eval_every, checkpoints when due.
///         For each range it backs up: kReplicate from the primary -> applied in log order, then
///            kReplicaAck; kShardState -> the whole state replaces its own.
///         kMembership (newer epoch) -> new primaries send their state to every backup and
///            continue the log from it; dead workers are removed from barriers through the log.
///         kStop -> once every live worker's last push is in (at once when flagged kStopNow),
///            a final kSnapshot per led range, then return.
/// Replication is primary-backup (not chain): one hop from primary to every backup keeps the
/// acknowledgement latency at one round trip whatever the replication factor, and a primary
/// that fails loses nothing a backup lacks, because replies wait for every backup's ack.
/// Requests for a range this server does not lead are held when they carry a newer epoch than
/// it knows (its membership is on the way) and dropped otherwise (the worker resends them to the
/// primary it is told of). Throws ProtocolError for a message that breaks the protocol, and
/// std::runtime_error when nothing arrives for spec.stall_timeout_s.
/// A restarted server (`rejoining`) holds nothing: it sends kRejoin to the scheduler and waits
/// to be made a backup, rebuilt from a primary's kShardState.
class Server {
 public:
  Server(Env& env, const JobSpec& spec, std::uint32_t index, KernelBackend& kernels,
         bool rejoining = false);
  void run();

 private:
  struct PendingPull {
    NodeId worker = 0;
    std::uint32_t range = 0;
    std::int64_t clock = 0;
    std::uint64_t request_id = 0;
    bool keyed = false;
    std::vector<std::uint32_t> rows;  ///< keyed: local rows wanted
    std::uint64_t needs_seq = 0;      ///< reply once every backup applied the log up to here
    enum class Kind { kPull, kAck, kClockProbe } kind = Kind::kPull;
  };
  /// Primary-side state of a led range: its log position and each backup's acknowledged one.
  struct Lead {
    std::uint64_t seq = 0;
    std::map<NodeId, std::uint64_t> acked;
    std::int64_t last_snapshot_clock = -1;
    std::int64_t scanned_clock = -1;
    std::int64_t last_checkpoint_clock = -1;
    double last_checkpoint_time = 0.0;
    std::vector<PendingPull> waiting;  ///< for the consistency model
    std::vector<PendingPull> gated;    ///< allowed, waiting for backups' acks
    bool promoted_awaiting_push = false;  ///< promoted; its first applied push is an event
    std::map<NodeId, std::uint64_t> state_sent;  ///< backups rebuilt from the state at this seq,
                                                 ///< until they acknowledge it
  };

  /// Handles one message; returns true when the server is done.
  bool handle(Message m);
  void handle_start(const Message& m);
  void handle_membership(const Message& m);
  void handle_push(Message m, std::uint32_t w);
  void handle_pull(const Message& m, std::uint32_t w);
  void handle_replicate(const Message& m);
  void handle_state(const Message& m);
  void handle_ack(const Message& m);
  /// Backup side: tells `primary` that `range`'s log is applied up to `seq`.
  void acknowledge(std::uint32_t range, NodeId primary, std::uint64_t seq);
  /// Whether a worker request or replication message is for this server now; false when it was
  /// held (newer epoch) or dropped.
  bool routed_here(Message& m, bool as_primary);
  bool leads(std::uint32_t range) const { return leads_.count(range) > 0; }
  /// Takes over `range` as its primary (at start, or promoted by a membership change).
  void lead(std::uint32_t range, bool promoted);
  /// Sends `range`'s whole state to backup `node` and starts tracking its acks.
  void send_state(std::uint32_t range, NodeId node);
  /// Appends an operation to a led range's log and forwards it to every backup.
  void log_op(std::uint32_t range, Message op);
  std::uint64_t durable_seq(std::uint32_t range) const;
  /// After a led range changed: snapshot, checkpoint, and answer what can be answered now.
  void after_change(std::uint32_t range);
  void queue_pull(PendingPull p);
  void release(Lead& lead, PendingPull p);
  void answer(const PendingPull& p);
  void serve_ready(std::uint32_t range, bool force_scan);
  void maybe_snapshot(std::uint32_t range);
  void maybe_checkpoint(std::uint32_t range);
  /// kStop's work: true when every led range's last pushes are in and the finals went out.
  bool try_finish(bool immediate);

  Env& env_;
  const JobSpec& spec_;
  std::uint32_t index_;
  KernelBackend& kernels_;
  std::vector<KeyRange> ranges_;  ///< every key range of the job, by range index
  Membership membership_;
  std::map<std::uint32_t, std::unique_ptr<Shard>> shards_;  ///< ranges held, led or backed up
  std::map<std::uint32_t, Lead> leads_;
  std::map<std::uint32_t, std::uint64_t> applied_seq_;  ///< backed-up ranges: log applied so far
  std::deque<Message> held_;  ///< messages for a newer epoch, or before the starts
  std::uint32_t starts_expected_ = 0;
  std::uint32_t starts_seen_ = 0;
  bool stop_pending_ = false;
  bool rejoining_;
};

}  // namespace pstwin
