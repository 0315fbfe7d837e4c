// ConsistencyController: the state machine behind BSP, ASP and SSP(s) on one server shard.
// It decides when a push is applied and when a pull may be answered; the server does the math.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pstwin {

/// The three consistency models, with their standard meaning (DESIGN.md, "Consistency").
enum class ConsistencyMode { kBsp, kAsp, kSsp };

/// "bsp", "asp" or "ssp".
std::string consistency_mode_name(ConsistencyMode m);

/// How workers reach the servers (scenario key "sync" of a consistency entry; DESIGN.md,
/// "Hybrid synchronisation"): kPs, every worker pushes and pulls itself; kHybrid, the workers of
/// a host sum their gradients inside the host and one leader per host pushes and pulls.
enum class SyncMode { kPs, kHybrid };

struct ConsistencyConfig {
  ConsistencyMode mode = ConsistencyMode::kBsp;
  /// SSP's bound s >= 0: a worker at clock c reads only once every live worker pushed clock c-s-1.
  std::int64_t staleness = 0;
  /// BSP backup workers b >= 0 (Chen et al. 2016): clock c is applied once the first W-b live
  /// workers' gradients for c arrived; later gradients for c are dropped.
  std::int32_t backup_workers = 0;
  /// How workers reach the servers: each itself, or through their host's leader.
  SyncMode sync = SyncMode::kPs;
};

/// What the server must do with a push.
enum class PushAction {
  kApply,           ///< ASP/SSP: apply this gradient now
  kBuffer,          ///< BSP: keep it; the barrier for its clock is not complete
  kBarrierReached,  ///< BSP: keep it, then apply the aggregate of every buffered gradient of this
                    ///< clock; the controller's clock() has advanced past it
  kDrop,            ///< BSP with backup workers: the clock was already applied; discard
};

/// Everything a ConsistencyController knows, for replica transfer (see state() and restore()).
struct ConsistencyState {
  std::vector<std::int64_t> pushes;  ///< by worker
  std::vector<bool> live;            ///< by worker
  std::int64_t applied_clock = 0;
  std::uint32_t arrived_for_clock = 0;
};

/// Per-shard consistency state for `num_workers` workers, indexed 0..W-1. Not thread-safe.
///
/// Clocks: worker w's k-th push (k = 0, 1, ...) carries clock k. clock() is the shard's clock:
/// under BSP the number of clocks applied; under ASP and SSP the minimum, over live workers, of
/// pushes received. A gradient's staleness is clock() at application minus the version it read.
class ConsistencyController {
 public:
  /// Throws std::invalid_argument for num_workers == 0, negative staleness, or
  /// backup_workers outside [0, num_workers).
  ConsistencyController(ConsistencyConfig config, std::uint32_t num_workers);

  /// Records a push from `worker` for `clock`. Pushes from one worker must come in clock order
  /// 0, 1, 2, ...; throws std::invalid_argument (naming worker, expected and received clock) when
  /// not, or for an unknown worker.
  PushAction on_push(std::uint32_t worker, std::int64_t clock);

  /// Whether a pull from `worker` at worker clock `clock` may be answered now:
  /// ASP always; BSP when clock() >= clock; SSP(s) when every live worker pushed >= clock - s times.
  bool can_serve_pull(std::uint32_t worker, std::int64_t clock) const;

  /// The shard's clock (see class comment); also the version stamped on pull replies.
  std::int64_t clock() const;

  /// Pushes received from `worker`.
  std::int64_t pushes(std::uint32_t worker) const;

  /// Minimum pushes over live workers (0 if none is live).
  std::int64_t min_live_pushes() const;

  /// Marks a worker dead (excluded from barriers and minimums) or alive again. A BSP barrier that
  /// the death completes is reported by the returned value: true when clock() advanced, in which
  /// case the server applies the buffered aggregate of clock()-1.
  bool set_live(std::uint32_t worker, bool live);

  /// A restarted worker counts again, from `clock` on: its next push carries `clock`, whatever its
  /// former process pushed (the clocks it missed count as arrived under BSP, without a gradient). Under BSP `clock` must not exceed
  /// clock() + 1 (a worker rejoins at the newest clock of any range, and ranges differ by at most
  /// one); throws std::invalid_argument otherwise. Returns true when a BSP barrier completed, as
  /// set_live does.
  bool rejoin(std::uint32_t worker, std::int64_t clock);

  /// Whether `worker` counts toward barriers and minimums.
  bool live(std::uint32_t worker) const;

  /// The whole state, and its replacement (a backup taking a primary's state). restore() throws
  /// std::invalid_argument when the state is for another number of workers.
  ConsistencyState state() const;
  void restore(const ConsistencyState& s);

  std::uint32_t num_workers() const { return static_cast<std::uint32_t>(pushes_.size()); }
  const ConsistencyConfig& config() const { return config_; }

 private:
  std::uint32_t live_count() const;
  std::uint32_t barrier_quorum() const;

  ConsistencyConfig config_;
  std::vector<std::int64_t> pushes_;
  std::vector<bool> live_;
  // How many of live_ are true: every BSP push asks for the quorum, so counting live_ each time
  // cost workers x pushes, 11% of a 10,000-worker run.
  std::uint32_t live_count_ = 0;
  std::int64_t applied_clock_ = 0;      // BSP: clocks applied
  std::uint32_t arrived_for_clock_ = 0;  // BSP: pushes for applied_clock_ seen so far
};

}  // namespace pstwin
