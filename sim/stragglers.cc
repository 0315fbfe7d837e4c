#include "sim/stragglers.h"

#include <algorithm>
#include <cmath>

namespace pstwin {

namespace {
constexpr std::uint64_t kStragglerStream = 3;
}

StragglerModel::StragglerModel(const std::vector<StragglerSpec>& specs, std::uint32_t workers,
                               std::uint64_t seed)
    : specs_(specs) {
  workers_.reserve(workers);
  for (std::uint32_t w = 0; w < workers; ++w)
    workers_.push_back(WorkerState{Rng(Rng::derive_seed(seed, w, kStragglerStream)),
                                   std::vector<std::uint64_t>(specs.size(), 0),
                                   std::vector<bool>(specs.size(), false),
                                   std::vector<bool>(specs.size(), false)});
}

bool StragglerModel::applies(const StragglerSpec& s, std::uint32_t w) {
  return s.workers.empty() || std::find(s.workers.begin(), s.workers.end(), w) != s.workers.end();
}

double StragglerModel::next_factor(std::uint32_t w, double now_s, MetricsSink& sink) {
  WorkerState& st = workers_.at(w);
  double factor = 1.0;
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    const StragglerSpec& s = specs_[i];
    // Draw for every spec whether or not it applies, so the stream position depends only on the
    // iteration count, never on timing (timing differs between consistency variants).
    switch (s.kind) {
      case StragglerSpec::Kind::kSlowWorkers: {
        const bool in = applies(s, w) && now_s >= s.start_s && now_s < s.end_s;
        if (in != st.in_window[i])
          sink.event(now_s, in ? "straggler_start" : "straggler_end",
                     {{"worker", w}, {"factor", s.factor}, {"kind", "slow"}});
        st.in_window[i] = in;
        if (in) factor *= s.factor;
        break;
      }
      case StragglerSpec::Kind::kTransient: {
        const double u = st.rng.uniform();
        if (!applies(s, w)) break;
        if (st.transient_left[i] == 0 && st.transient_ending[i]) {
          // The episode's last slowed iteration ended when this one began.
          st.transient_ending[i] = false;
          sink.event(now_s, "straggler_end", {{"worker", w}, {"kind", "transient"}});
        }
        if (st.transient_left[i] == 0 && u < s.probability) {
          st.transient_left[i] = s.iterations;
          sink.event(now_s, "straggler_start",
                     {{"worker", w}, {"factor", s.factor}, {"kind", "transient"},
                      {"iterations", s.iterations}});
        }
        if (st.transient_left[i] > 0) {
          factor *= s.factor;
          if (--st.transient_left[i] == 0) st.transient_ending[i] = true;
        }
        break;
      }
      case StragglerSpec::Kind::kLognormal: {
        const double z = st.rng.normal();
        if (applies(s, w)) factor *= std::max(1.0, std::exp(s.mu + s.sigma * z));
        break;
      }
    }
  }
  return factor;
}

}  // namespace pstwin
