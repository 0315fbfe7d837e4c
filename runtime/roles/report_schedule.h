// ReportSchedule: when a led range reports to the scheduler. A plain state machine with no Env.
#pragma once

#include <cstdint>

#include "runtime/roles/job.h"

namespace pstwin {

/// A led range sends a snapshot each time its clock reaches a multiple of spec.eval_every, and
/// stores a checkpoint when its clock reaches a multiple of fault.checkpoint_every_clocks or
/// fault.checkpoint_every_s seconds have passed since the last (docs/DESIGN.md, "Replication and
/// failover", checkpoints). Each is due at most once per clock.
class ReportSchedule {
 public:
  /// From the moment a server begins leading the range, at range clock `clock` and time `now_s`:
  /// no checkpoint is due at `clock` itself.
  ReportSchedule(const JobSpec& spec, std::int64_t clock, double now_s)
      : eval_every_(static_cast<std::int64_t>(spec.eval_every)),
        checkpoint_every_(static_cast<std::int64_t>(spec.fault.checkpoint_every_clocks)),
        checkpoint_every_s_(spec.fault.checkpoint_every_s),
        last_checkpoint_clock_(clock),
        last_checkpoint_s_(now_s) {}

  /// Whether a snapshot is due at range clock `clock`; once true, false again for that clock.
  bool snapshot_due(std::int64_t clock) {
    if (clock == last_snapshot_clock_ || eval_every_ == 0 || clock % eval_every_ != 0) return false;
    last_snapshot_clock_ = clock;
    return true;
  }

  /// Whether a checkpoint is due at range clock `clock` and time `now_s`; once true, false again
  /// for that clock, and the time counts from `now_s`.
  bool checkpoint_due(std::int64_t clock, double now_s) {
    if (clock == last_checkpoint_clock_) return false;
    const bool by_clock = checkpoint_every_ > 0 && clock % checkpoint_every_ == 0;
    const bool by_time =
        checkpoint_every_s_ > 0 && now_s - last_checkpoint_s_ >= checkpoint_every_s_;
    if (!by_clock && !by_time) return false;
    last_checkpoint_clock_ = clock;
    last_checkpoint_s_ = now_s;
    return true;
  }

 private:
  std::int64_t eval_every_;
  std::int64_t checkpoint_every_;
  double checkpoint_every_s_;
  std::int64_t last_snapshot_clock_ = -1;
  std::int64_t last_checkpoint_clock_;
  double last_checkpoint_s_;
};

}  // namespace pstwin
