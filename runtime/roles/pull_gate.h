// PullGate: the replies a primary owes its workers for one led range, held first until the
// consistency model allows them, then until the log behind them is durable. A plain state
// machine with no Env: the Server sends what it releases. Protocol: docs/DESIGN.md,
// "Consistency" and "Replication and failover" (durable replies).
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/consistency/controller.h"
#include "runtime/message.h"

namespace pstwin {

/// A reply a worker waits for.
struct PendingReply {
  enum class Kind {
    kPullReply,   ///< the range's values (or keyed rows) for a pull of `clock`
    kPushAck,     ///< kPushAck of the push `request_id` (a worker's last push)
    kClockProbe,  ///< a restarted worker asks the range's clock (kRejoin pull of clock -1)
  };
  Kind kind = Kind::kPullReply;
  NodeId worker = 0;                ///< the worker's node
  std::uint32_t worker_index = 0;   ///< the same worker's index, for the consistency model
  std::uint32_t range = 0;
  std::int64_t clock = 0;           ///< the worker clock asked about
  std::uint64_t request_id = 0;
  bool keyed = false;
  std::vector<std::uint32_t> rows = {};  ///< keyed pull: the local rows wanted
  std::uint64_t needs_seq = 0;      ///< set on release: the log end it must wait for
};

/// The consistency queue and the durability queue of one range. Order of release: each queue
/// keeps arrival order. Not thread-safe.
class PullGate {
 public:
  /// Takes `p`. A pull reply waits until `consistency` allows its clock; every reply then waits
  /// until `durable` reaches the log's end at that moment (`log_end`). Appends `p` to `ready`
  /// when it may be sent now.
  void add(PendingReply p, const ConsistencyController& consistency, std::uint64_t log_end,
           std::uint64_t durable, std::vector<PendingReply>& ready);

  /// Appends to `ready` every reply that may be sent now: first, pulls the consistency model
  /// now allows (looked at only when the range's clock moved since the last look, or with
  /// `force`: a membership change alters who counts), then replies whose log is durable.
  void release(const ConsistencyController& consistency, std::uint64_t log_end,
               std::uint64_t durable, bool force, std::vector<PendingReply>& ready);

  /// Replies waiting for the consistency model, and for durability.
  std::size_t waiting() const { return waiting_.size(); }
  std::size_t gated() const { return gated_.size(); }

 private:
  void pass(PendingReply p, std::uint64_t log_end, std::uint64_t durable,
            std::vector<PendingReply>& ready);

  std::vector<PendingReply> waiting_;  ///< for the consistency model
  std::vector<PendingReply> gated_;    ///< allowed, for the backups' acks
  std::int64_t looked_at_clock_ = -1;  ///< the range clock of the last look at waiting_
};

}  // namespace pstwin
