// StragglerModel: per-iteration compute slowdowns of simulated workers, seeded.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/metrics.h"
#include "runtime/rng.h"
#include "runtime/scenario/scenario.h"

namespace pstwin {

/// Draws each worker's slowdown factor iteration by iteration from the scenario's straggler
/// specs (see StragglerSpec). Each worker has its own random stream derived from the scenario
/// seed, drawn a fixed number of times per iteration, so every consistency variant of a scenario
/// sees the same slowdowns at the same iterations. Factors of several specs multiply.
class StragglerModel {
 public:
  StragglerModel(const std::vector<StragglerSpec>& specs, std::uint32_t workers,
                 std::uint64_t seed);

  /// The factor (>= 1) by which worker `w`'s iteration starting at simulated time `now_s` is
  /// slower. Call exactly once per worker iteration. Reports transient starts and slow windows
  /// to `sink` as "straggler_start" / "straggler_end" events.
  double next_factor(std::uint32_t w, double now_s, MetricsSink& sink);

 private:
  struct WorkerState {
    Rng rng;
    std::vector<std::uint64_t> transient_left;  // per spec: iterations of slowdown remaining
    std::vector<bool> in_window;                // per spec: inside a "slow" window last time
    std::vector<bool> transient_ending;         // per spec: an episode ended with the last draw
  };
  static bool applies(const StragglerSpec& s, std::uint32_t w);

  std::vector<StragglerSpec> specs_;
  std::vector<WorkerState> workers_;
};

}  // namespace pstwin
