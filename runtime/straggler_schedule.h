// StragglerSchedule: one worker's seeded compute slowdowns, iteration by iteration. The
// simulation (sim/stragglers.h) and real runs (net/straggler_hold.h) draw from it alike.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/metrics.h"
#include "runtime/rng.h"
#include "runtime/scenario/scenario.h"

namespace pstwin {

/// Draws worker `worker`'s slowdown factor for each of its iterations from the scenario's
/// straggler specs (see StragglerSpec). The worker has its own random stream derived from the
/// scenario seed and its index, drawn a fixed number of times per iteration, so every consistency
/// variant and every environment sees the same slowdowns at the same iterations (a "slow" window
/// excepted: it is in seconds of the job's clock, simulated or wall). Factors of several specs
/// multiply.
class StragglerSchedule {
 public:
  /// REQUIRES: every worker index in `specs` is a worker of the job (the scenario checked it).
  StragglerSchedule(const std::vector<StragglerSpec>& specs, std::uint32_t worker, std::uint64_t seed);

  /// The factor (>= 1) by which the worker's next iteration, starting at `now_s` seconds of the
  /// job's clock, is slower. Call exactly once per iteration. Reports transient starts and slow
  /// windows to `sink` as "straggler_start" / "straggler_end" events at `now_s`, with fields
  /// worker, kind, iteration (0-based, counted by this schedule), and on a start the factor (and a
  /// transient's iterations).
  double next_factor(double now_s, MetricsSink& sink);

  /// Iterations drawn so far.
  std::uint64_t iterations_drawn() const { return iteration_; }

 private:
  bool applies(const StragglerSpec& s) const;

  std::vector<StragglerSpec> specs_;
  std::uint32_t worker_;
  Rng rng_;
  std::uint64_t iteration_ = 0;
  std::vector<std::uint64_t> transient_left_;  // per spec: iterations of slowdown remaining
  std::vector<bool> in_window_;                // per spec: inside a "slow" window last time
  std::vector<bool> transient_ending_;         // per spec: an episode ended with the last draw
};

}  // namespace pstwin
