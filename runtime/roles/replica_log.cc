#include "runtime/roles/replica_log.h"

#include <algorithm>
#include <string>

#include "runtime/errors.h"
#include "runtime/roles/shard.h"

namespace pstwin {

void ReplicaLog::add_rebuilt_backup(NodeId node) {
  acked_[node] = 0;
  rebuilt_at_[node] = end_;
}

std::vector<NodeId> ReplicaLog::retain(const std::vector<NodeId>& keep) {
  for (auto it = acked_.begin(); it != acked_.end();) {
    if (std::find(keep.begin(), keep.end(), it->first) != keep.end()) {
      ++it;
      continue;
    }
    rebuilt_at_.erase(it->first);
    it = acked_.erase(it);
  }
  std::vector<NodeId> joined;
  for (NodeId node : keep)
    if (!has_backup(node)) joined.push_back(node);
  return joined;
}

ReplicaLog::Ack ReplicaLog::on_ack(NodeId node, std::uint64_t seq) {
  const auto it = acked_.find(node);
  if (it == acked_.end()) return Ack::kIgnored;
  it->second = std::max(it->second, seq);
  const auto rebuilt = rebuilt_at_.find(node);
  if (rebuilt == rebuilt_at_.end() || seq < rebuilt->second) return Ack::kRecorded;
  rebuilt_at_.erase(rebuilt);
  return Ack::kSynced;
}

std::uint64_t ReplicaLog::durable() const {
  std::uint64_t d = end_;
  for (const auto& [node, acked] : acked_) d = std::min(d, acked);
  return d;
}

bool ReplicaReplay::is_next(const Message& entry) const {
  const std::uint64_t seq = entry.header.seq;
  if (seq > applied_ + 1)
    throw ProtocolError("replicate from node " + std::to_string(entry.header.sender) +
                        ": the log of key range " + std::to_string(entry.header.range) +
                        " jumps from operation " + std::to_string(applied_) + " to " +
                        std::to_string(seq));
  return seq == applied_ + 1;
}

std::uint64_t ReplicaReplay::take(Shard& shard, Message entry, const JobLayout& layout) {
  if (!is_next(entry)) return applied_;
  const std::uint64_t seq = entry.header.seq;
  replay(shard, std::move(entry), layout);
  applied_ = seq;
  return applied_;
}

void replay(Shard& shard, Message entry, const JobLayout& layout) {
  const ReplicaOp op = entry.header.op;
  const NodeId worker = entry.header.subject;
  const auto fail = [&](const std::string& what) {
    return ProtocolError("replicate from node " + std::to_string(entry.header.sender) +
                         " for key range " + std::to_string(entry.header.range) + ": " + what);
  };
  if (op == ReplicaOp::kNone) throw fail("no operation");
  if (op == ReplicaOp::kSnapshotTaken) {
    (void)shard.snapshot(false);  // the primary reported the histogram so far
    return;
  }
  if (!layout.is_worker(worker))
    throw fail(std::string(replica_op_name(op)) + " for node " + std::to_string(worker) +
               ", which is not a worker");
  const std::uint32_t w = layout.worker_index(worker);
  switch (op) {
    case ReplicaOp::kPush:
      // The primary logs only pushes it has not applied and replicas hold the same ids, so
      // this never skips; it keeps a replica exactly-once even so.
      if (shard.is_duplicate(w, entry.header.request_id)) break;
      entry.header.type = MsgType::kPush;
      entry.header.op = ReplicaOp::kNone;
      entry.header.sender = worker;
      shard.push(std::move(entry), w);
      break;
    case ReplicaOp::kWorkerDead:
      shard.set_live(w, false);
      break;
    case ReplicaOp::kWorkerRejoin:
      shard.rejoin(w, entry.header.clock);
      break;
    case ReplicaOp::kNone:
    case ReplicaOp::kSnapshotTaken:
      break;  // handled above
  }
}

Message log_entry(ReplicaOp op, NodeId subject, std::int64_t clock) {
  Message entry;
  entry.header.op = op;
  entry.header.subject = subject;
  entry.header.clock = clock;
  return entry;
}

Message replica_ack(std::uint32_t range, std::uint64_t seq, std::uint32_t epoch) {
  Message ack;
  ack.header.type = MsgType::kReplicaAck;
  ack.header.range = range;
  ack.header.seq = seq;
  ack.header.epoch = epoch;
  return ack;
}

Message backup_synced(std::uint32_t range, NodeId backup) {
  Message synced;
  synced.header.type = MsgType::kReplicaAck;
  synced.header.range = range;
  synced.header.subject = backup;
  return synced;
}

}  // namespace pstwin
