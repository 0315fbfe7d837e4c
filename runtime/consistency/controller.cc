// ConsistencyController: when a push is applied and when a pull may be answered, under BSP, ASP
// and SSP(s) (DESIGN.md, "Consistency").
//
// Under BSP a worker cannot push clock c+1 before the barrier for c completes (its pull for c+1
// waits for it), so pushes_[w] <= applied_clock_ + 1 for every worker, and worker w has arrived
// for the current clock exactly when pushes_[w] > applied_clock_. arrived_for_clock_ caches the
// number of live workers for which that holds; set_live keeps it in step.
#include "runtime/consistency/controller.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace pstwin {

std::string consistency_mode_name(ConsistencyMode m) {
  switch (m) {
    case ConsistencyMode::kBsp: return "bsp";
    case ConsistencyMode::kAsp: return "asp";
    case ConsistencyMode::kSsp: return "ssp";
  }
  return "unknown";
}

ConsistencyController::ConsistencyController(ConsistencyConfig config, std::uint32_t num_workers)
    : config_(config), pushes_(num_workers, 0), live_(num_workers, true), live_count_(num_workers) {
  if (num_workers == 0) {
    throw std::invalid_argument("consistency: num_workers must be at least 1");
  }
  if (config.staleness < 0) {
    throw std::invalid_argument("consistency: staleness must be >= 0, got " +
                                std::to_string(config.staleness));
  }
  if (config.backup_workers < 0 ||
      static_cast<std::uint32_t>(config.backup_workers) >= num_workers) {
    throw std::invalid_argument("consistency: backup_workers must be in [0, " +
                                std::to_string(num_workers) + "), got " +
                                std::to_string(config.backup_workers));
  }
}

namespace {
void check_worker(std::uint32_t worker, std::size_t num_workers, const char* what) {
  if (worker >= num_workers) {
    throw std::invalid_argument(std::string("consistency: ") + what + " from unknown worker " +
                                std::to_string(worker) + " (there are " +
                                std::to_string(num_workers) + ")");
  }
}
}  // namespace

PushAction ConsistencyController::on_push(std::uint32_t worker, std::int64_t clock) {
  check_worker(worker, pushes_.size(), "push");
  if (clock != pushes_[worker]) {
    throw std::invalid_argument("consistency: worker " + std::to_string(worker) +
                                " pushed clock " + std::to_string(clock) + ", expected clock " +
                                std::to_string(pushes_[worker]) +
                                " (a worker's pushes carry clocks 0, 1, 2, ... in order)");
  }
  if (config_.mode != ConsistencyMode::kBsp) {
    ++pushes_[worker];
    return PushAction::kApply;
  }
  if (clock > applied_clock_) {
    throw std::invalid_argument("consistency: worker " + std::to_string(worker) +
                                " pushed clock " + std::to_string(clock) +
                                " under BSP while the shard is at clock " +
                                std::to_string(applied_clock_) +
                                " (it must wait for the barrier before computing the next clock)");
  }
  ++pushes_[worker];
  // A late gradient (backup workers, or a worker that was excluded while dead): its clock is done.
  if (clock < applied_clock_) return PushAction::kDrop;
  // A dead worker's gradient is kept but counts toward no barrier until the worker is live again.
  if (!live_[worker]) return PushAction::kBuffer;
  ++arrived_for_clock_;
  if (arrived_for_clock_ < barrier_quorum()) return PushAction::kBuffer;
  ++applied_clock_;
  arrived_for_clock_ = 0;  // nobody can have pushed past the clock just applied
  return PushAction::kBarrierReached;
}

bool ConsistencyController::can_serve_pull(std::uint32_t worker, std::int64_t clock) const {
  check_worker(worker, pushes_.size(), "pull");
  switch (config_.mode) {
    case ConsistencyMode::kAsp:
      return true;
    case ConsistencyMode::kBsp:
      return applied_clock_ >= clock;
    case ConsistencyMode::kSsp:
      // Every live worker must have pushed clock - s times; written to avoid overflow.
      return clock <= config_.staleness || min_live_pushes() >= clock - config_.staleness;
  }
  return false;
}

std::int64_t ConsistencyController::clock() const {
  return config_.mode == ConsistencyMode::kBsp ? applied_clock_ : min_live_pushes();
}

std::int64_t ConsistencyController::pushes(std::uint32_t worker) const {
  check_worker(worker, pushes_.size(), "query");
  return pushes_[worker];
}

std::int64_t ConsistencyController::min_live_pushes() const {
  std::int64_t min = std::numeric_limits<std::int64_t>::max();
  bool any = false;
  for (std::size_t w = 0; w < pushes_.size(); ++w) {
    if (live_[w]) {
      min = std::min(min, pushes_[w]);
      any = true;
    }
  }
  return any ? min : 0;
}

bool ConsistencyController::set_live(std::uint32_t worker, bool live) {
  check_worker(worker, pushes_.size(), "set_live");
  if (live_[worker] == live) return false;
  live_[worker] = live;
  live_count_ = live ? live_count_ + 1 : live_count_ - 1;
  if (config_.mode != ConsistencyMode::kBsp) return false;
  // Only live workers' arrivals count, so a worker that already arrived moves in or out of the
  // count with its liveness.
  if (pushes_[worker] > applied_clock_) {
    if (live) ++arrived_for_clock_;
    else --arrived_for_clock_;
  }
  // Removing a worker shrinks the quorum; the arrivals already in may now complete the barrier.
  // (Reviving one can too, in the corner where the quorum was clamped to 1 with nobody live.)
  if (arrived_for_clock_ == 0 || arrived_for_clock_ < barrier_quorum()) return false;
  ++applied_clock_;
  arrived_for_clock_ = 0;
  return true;
}

bool ConsistencyController::rejoin(std::uint32_t worker, std::int64_t clock) {
  check_worker(worker, pushes_.size(), "rejoin");
  if (clock < 0)
    throw std::invalid_argument("consistency: worker " + std::to_string(worker) +
                                " rejoins at negative clock " + std::to_string(clock));
  if (config_.mode == ConsistencyMode::kBsp && clock > applied_clock_ + 1)
    throw std::invalid_argument("consistency: worker " + std::to_string(worker) + " rejoins at clock " +
                                std::to_string(clock) + " but the shard is at clock " +
                                std::to_string(applied_clock_) + " (BSP allows at most one ahead)");
  const bool was_arrived = live_[worker] && pushes_[worker] > applied_clock_;
  // Exactly `clock`, even below what its former process pushed: the new process pushes `clock`
  // next (a gradient its former process left buffered for that clock is replaced by the new one).
  pushes_[worker] = clock;
  if (!live_[worker]) ++live_count_;
  live_[worker] = true;
  if (config_.mode != ConsistencyMode::kBsp) return false;
  const bool arrived = pushes_[worker] > applied_clock_;
  if (arrived == was_arrived) return false;
  if (arrived) ++arrived_for_clock_;
  else --arrived_for_clock_;
  if (arrived_for_clock_ == 0 || arrived_for_clock_ < barrier_quorum()) return false;
  ++applied_clock_;
  arrived_for_clock_ = 0;
  return true;
}

bool ConsistencyController::live(std::uint32_t worker) const {
  check_worker(worker, pushes_.size(), "query");
  return live_[worker];
}

ConsistencyState ConsistencyController::state() const {
  return ConsistencyState{pushes_, live_, applied_clock_, arrived_for_clock_};
}

void ConsistencyController::restore(const ConsistencyState& s) {
  if (s.pushes.size() != pushes_.size() || s.live.size() != live_.size())
    throw std::invalid_argument("consistency: state for " + std::to_string(s.pushes.size()) +
                                " workers restored into a controller of " +
                                std::to_string(pushes_.size()));
  pushes_ = s.pushes;
  live_ = s.live;
  live_count_ = static_cast<std::uint32_t>(std::count(live_.begin(), live_.end(), true));
  applied_clock_ = s.applied_clock;
  arrived_for_clock_ = s.arrived_for_clock;
}

std::uint32_t ConsistencyController::live_count() const { return live_count_; }

std::uint32_t ConsistencyController::barrier_quorum() const {
  const std::int64_t quorum =
      static_cast<std::int64_t>(live_count()) - static_cast<std::int64_t>(config_.backup_workers);
  return static_cast<std::uint32_t>(std::max<std::int64_t>(1, quorum));
}

}  // namespace pstwin
