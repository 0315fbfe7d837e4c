#include "net/straggler_hold.h"

#include <algorithm>

namespace pstwin::net {

StragglerHold::StragglerHold(const std::vector<StragglerSpec>& specs, std::uint32_t worker,
                             std::uint64_t seed)
    : schedule_(specs, worker, seed) {}

double StragglerHold::after_compute(double now_s, MetricsSink& sink) {
  const double measured = std::max(0.0, now_s - mark_s_);
  // The iteration began when the compute did, as in the simulation, where compute takes no
  // simulated time until it is accounted.
  const double factor = schedule_.next_factor(mark_s_, sink);
  const double hold = (factor - 1.0) * measured;
  compute_s_ += measured + hold;
  return hold;
}

}  // namespace pstwin::net
