#include "runtime/straggler_schedule.h"

#include <algorithm>
#include <cmath>

namespace pstwin {

namespace {
// The stream id of straggler draws (job_layout.cc lists every stream).
constexpr std::uint64_t kStragglerStream = 3;
}  // namespace

StragglerSchedule::StragglerSchedule(const std::vector<StragglerSpec>& specs, std::uint32_t worker,
                                     std::uint64_t seed)
    : specs_(specs),
      worker_(worker),
      rng_(Rng::derive_seed(seed, worker, kStragglerStream)),
      transient_left_(specs.size(), 0),
      in_window_(specs.size(), false),
      transient_ending_(specs.size(), false) {}

bool StragglerSchedule::applies(const StragglerSpec& s) const {
  return s.workers.empty() || std::find(s.workers.begin(), s.workers.end(), worker_) != s.workers.end();
}

double StragglerSchedule::next_factor(double now_s, MetricsSink& sink) {
  const std::uint64_t iteration = iteration_++;
  double factor = 1.0;
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    const StragglerSpec& s = specs_[i];
    // Draw for every spec whether or not it applies, so the stream position depends only on the
    // iteration count, never on timing (timing differs between consistency variants).
    switch (s.kind) {
      case StragglerSpec::Kind::kSlowWorkers: {
        const bool in = applies(s) && now_s >= s.start_s && now_s < s.end_s;
        if (in != in_window_[i])
          sink.event(now_s, in ? "straggler_start" : "straggler_end",
                     {{"worker", worker_}, {"factor", s.factor}, {"kind", "slow"},
                      {"iteration", iteration}});
        in_window_[i] = in;
        if (in) factor *= s.factor;
        break;
      }
      case StragglerSpec::Kind::kTransient: {
        const double u = rng_.uniform();
        if (!applies(s)) break;
        if (transient_left_[i] == 0 && transient_ending_[i]) {
          // The episode's last slowed iteration ended when this one began.
          transient_ending_[i] = false;
          sink.event(now_s, "straggler_end",
                     {{"worker", worker_}, {"kind", "transient"}, {"iteration", iteration}});
        }
        if (transient_left_[i] == 0 && u < s.probability) {
          transient_left_[i] = s.iterations;
          sink.event(now_s, "straggler_start",
                     {{"worker", worker_}, {"factor", s.factor}, {"kind", "transient"},
                      {"iterations", s.iterations}, {"iteration", iteration}});
        }
        if (transient_left_[i] > 0) {
          factor *= s.factor;
          if (--transient_left_[i] == 0) transient_ending_[i] = true;
        }
        break;
      }
      case StragglerSpec::Kind::kLognormal: {
        const double z = rng_.normal();
        if (applies(s)) factor *= std::max(1.0, std::exp(s.mu + s.sigma * z));
        break;
      }
    }
  }
  return factor;
}

}  // namespace pstwin
