// StragglerModel: the straggler schedules of every worker of one simulated run.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/metrics.h"
#include "runtime/scenario/scenario.h"
#include "runtime/straggler_schedule.h"

namespace pstwin {

/// One StragglerSchedule per worker (the drawing itself lives in runtime/, where real runs use
/// it too): the simulation shares one model among all its nodes.
class StragglerModel {
 public:
  StragglerModel(const std::vector<StragglerSpec>& specs, std::uint32_t workers,
                 std::uint64_t seed);

  /// The factor (>= 1) by which worker `w`'s iteration starting at simulated time `now_s` is
  /// slower (StragglerSchedule::next_factor). Call exactly once per worker iteration. Throws
  /// std::out_of_range for an unknown worker.
  double next_factor(std::uint32_t w, double now_s, MetricsSink& sink) {
    return workers_.at(w).next_factor(now_s, sink);
  }

 private:
  std::vector<StragglerSchedule> workers_;
};

}  // namespace pstwin
