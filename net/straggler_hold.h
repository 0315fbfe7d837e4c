// StragglerHold: the scenario's stragglers acting on a worker of a real job (launch, node), and
// the worker's measured compute time.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/metrics.h"
#include "runtime/scenario/scenario.h"
#include "runtime/straggler_schedule.h"

namespace pstwin::net {

/// A real worker computes at its hardware's speed; a straggler is made by holding it afterwards.
/// The worker's Env tells this when the role last came back from it (mark): until the role's
/// next account(), it computes. After each compute, the worker is held (factor - 1) times the
/// compute's measured time, factor drawn from the same StragglerSchedule as the simulation, so
/// a launched run and a simulated one slow the same iterations by the same factors. Events
/// ("straggler_start" / "straggler_end") carry the job-clock time the compute began, as in the
/// simulation. Used by one thread (the role's).
class StragglerHold {
 public:
  /// Worker `worker` (0-based) of a job whose scenario has `specs` and seed `seed`.
  StragglerHold(const std::vector<StragglerSpec>& specs, std::uint32_t worker, std::uint64_t seed);

  /// The role came back from the Env at `now_s` (job clock, seconds).
  void mark(double now_s) { mark_s_ = now_s; }
  /// The role accounts a compute that ended at `now_s` (it began at the last mark): returns the
  /// seconds to hold the worker (>= 0), and reports straggler events to `sink`. Call once per
  /// iteration, as roles call account().
  double after_compute(double now_s, MetricsSink& sink);
  /// Seconds this worker has computed so far, holds included.
  double compute_s() const { return compute_s_; }

 private:
  StragglerSchedule schedule_;
  double mark_s_ = 0.0;
  double compute_s_ = 0.0;
};

}  // namespace pstwin::net
