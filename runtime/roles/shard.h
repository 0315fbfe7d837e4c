// Shard: one key range's parameters, optimizer and consistency state, on a primary or a backup.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/backend.h"
#include "runtime/checkpoint/shard_checkpoint.h"
#include "runtime/consistency/controller.h"
#include "runtime/env.h"
#include "runtime/optimizer.h"
#include "runtime/partition.h"
#include "runtime/roles/job.h"
#include "runtime/roles/shard_state.h"

namespace pstwin {

/// The state of one key range and the math on it, whichever server holds it. Every replica
/// applies the same operations in the same order (the primary's log), so all hold bit-identical
/// state. Consistency and the BSP mean: docs/DESIGN.md, "Consistency"; exactly-once pushes:
/// "Replication and failover". Workers are counted by pusher slot (JobSpec::pusher_slot): the
/// worker's index, or under hybrid synchronisation its host's, whose leader alone pushes.
class Shard {
 public:
  /// `params`: keys.size() x values_per_key floats (empty for the timing-only synthetic model).
  /// Throws ProtocolError when the size does not match.
  Shard(Env& env, const JobSpec& spec, KernelBackend& kernels, std::uint32_t range, KeyRange keys,
        std::vector<float> params);

  std::uint32_t range() const { return range_; }
  const KeyRange& keys() const { return keys_; }

  /// Local row indices of a keyed message's keys; throws ProtocolError when one is outside the
  /// range or they are not strictly increasing, or the model is dense.
  std::vector<std::uint32_t> local_rows(const Message& m) const;

  /// Whether worker `w`'s push `request_id` was applied already.
  bool is_duplicate(std::uint32_t w, std::uint64_t request_id) const;

  /// Applies or buffers worker `w`'s push. REQUIRES: !is_duplicate(w, m.header.request_id).
  /// A keyed push's local rows are copied to `*rows` when `rows` is set (a push that asks for
  /// its pull after). Throws ProtocolError for keys or sizes that do not fit the range, and
  /// std::invalid_argument for a push out of clock order.
  void push(Message m, std::uint32_t w, std::vector<std::uint32_t>* rows = nullptr);

  /// Marks a worker dead or alive again (ConsistencyController::set_live); a barrier the change
  /// completes is applied.
  void set_live(std::uint32_t w, bool live);
  /// A restarted worker counts again from `clock` (ConsistencyController::rejoin); its request ids
  /// start over.
  void rejoin(std::uint32_t w, std::int64_t clock);

  const ConsistencyController& controller() const { return controller_; }
  std::int64_t clock() const { return controller_.clock(); }
  /// Every live worker pushed every iteration.
  bool all_pushes_in() const;

  /// A kPullReply for worker clock `clock`: the whole range, or the rows `rows` when keyed.
  Message pull_reply(bool keyed, const std::vector<std::uint32_t>& rows, std::int64_t clock,
                     std::uint64_t request_id);
  /// A kPullReply to a restarted worker's clock probe: no values, version = the range's clock.
  Message clock_reply(std::uint64_t request_id) const;
  /// A kPushAck of push `request_id` for worker clock `clock`.
  Message push_ack(std::int64_t clock, std::uint64_t request_id) const;

  /// Whether this replica reports events (a primary); every replica records staleness, and a
  /// backup drops its histogram where the primary took a snapshot, so a promoted backup reports
  /// exactly what the old primary had not.
  void set_reporting(bool on) { reporting_ = on; }
  /// A kSnapshot of the range (see MsgType::kSnapshot); hands over the staleness histogram.
  Message snapshot(bool final);

  /// The whole state (encoded by shard_state_message).
  ShardState state() const;
  /// Replaces this shard's state with a primary's. Throws ProtocolError when it does not fit
  /// (another parameter count or number of workers, a buffer of an unknown worker).
  void restore(ShardState state);
  /// Starts from a checkpoint at `clock` whose parameters the shard was constructed with: the
  /// optimizer's state, every worker at `clock`. Throws ProtocolError when the state does not fit.
  void resume(std::int64_t clock, OptimizerState optimizer);

  const std::vector<float>& params() const { return params_; }
  OptimizerState optimizer_state() const { return optimizer_->state(); }
  /// The checkpoint of the range at its current clock.
  ShardCheckpoint checkpoint() const;

 private:
  void apply_barrier();
  void apply_keyed_barrier(std::uint32_t count, Cost& cost);
  void apply_one(const Message& m, const std::vector<std::uint32_t>& rows, std::int64_t staleness,
                 double scale);
  void record_staleness(std::int64_t staleness);
  std::string where() const;

  Env& env_;
  const JobSpec& spec_;
  KernelBackend& kernels_;
  std::uint32_t range_;
  KeyRange keys_;
  bool synthetic_;
  std::size_t width_;  ///< floats per key
  ConsistencyController controller_;
  std::vector<float> params_;
  std::unique_ptr<ServerOptimizer> optimizer_;
  // BSP: gradients of the current clock by worker index (empty = not arrived), their versions,
  // and for keyed pushes their local rows.
  std::vector<std::vector<float>> buffered_;
  std::vector<std::vector<std::uint32_t>> buffered_rows_;
  std::vector<std::int64_t> buffered_version_;
  std::vector<bool> arrived_;
  std::vector<float> aggregate_;
  std::vector<bool> touched_;  // keyed BSP: rows of aggregate_ holding a sum (all false between barriers)
  std::vector<std::uint64_t> last_request_;  // by worker: request id of the last push applied
  bool reporting_ = true;
  std::vector<std::uint32_t> staleness_counts_;  // gradients applied since the last snapshot
};

}  // namespace pstwin
