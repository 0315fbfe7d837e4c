// Shard: one key range's parameters, optimizer and consistency state, on a primary or a backup.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/backend.h"
#include "runtime/consistency/controller.h"
#include "runtime/env.h"
#include "runtime/optimizer.h"
#include "runtime/partition.h"
#include "runtime/roles/job.h"

namespace pstwin {

/// The state of one key range and the math on it, whichever server holds it. A primary and its
/// backups apply the same operations in the same order (the primary's log, see Server), so they
/// hold bit-identical state.
///
/// Pushes: ConsistencyController decides apply / buffer / barrier / drop. Dense models push the
/// whole range; sparse models (JobSpec::sparse()) push explicit keys (msg_flags::kKeyed). ASP/SSP
/// apply a push on arrival with step scale 1/W. BSP sums each key's gradient over the clock's
/// pushes in worker-index order, scaled by 1/(pushes counted), then takes one optimizer step
/// (on the touched rows only for sparse models).
/// Exactly once: a push whose request id is not above the last one applied from its worker is a
/// duplicate (a worker resending after a failover) and changes nothing.
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

  /// Applies or buffers worker `w`'s push (sizes checked: ProtocolError). Returns false for a
  /// duplicate, which changes nothing. Throws std::invalid_argument for a push out of clock order.
  bool push(Message m, std::uint32_t w);

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

  /// Whether this replica reports events (a primary); every replica records staleness, and a
  /// backup drops its histogram where the primary took a snapshot, so a promoted backup reports
  /// exactly what the old primary had not.
  void set_reporting(bool on) { reporting_ = on; }
  /// A kSnapshot of the range (see MsgType::kSnapshot); hands over the staleness histogram.
  Message snapshot(bool final);

  /// The whole state as a kShardState message (header.range = range, values = params, then the
  /// optimizer's first and second state vectors, then buffered BSP gradients; data = JSON layout).
  Message state_message() const;
  /// Replaces this shard's state with a kShardState message's. Throws ProtocolError when it does
  /// not fit (another range, sizes that disagree).
  void restore_state(const Message& m);
  /// Starts from a checkpoint at `clock`: params, optimizer state, every worker at `clock`.
  void resume(std::int64_t clock, std::vector<float> params, OptimizerState optimizer);

  const std::vector<float>& params() const { return params_; }
  OptimizerState optimizer_state() const { return optimizer_->state(); }

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
