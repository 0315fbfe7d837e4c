#include "runtime/roles/heartbeats.h"

namespace pstwin {

Heartbeats::Heartbeats(std::uint32_t nodes, double now_s, double timeout_s, double interval_s)
    : last_heard_s_(nodes, now_s),
      delayed_when_heard_s_(nodes, 0.0),
      timeout_s_(timeout_s),
      interval_s_(interval_s),
      last_turn_s_(now_s) {}

double Heartbeats::scheduler_turn(double now_s) {
  const double gap = now_s - last_turn_s_;
  last_turn_s_ = now_s;
  // A simulated scheduler never goes past its interval, so simulated detection is unchanged.
  if (gap <= 1.5 * interval_s_) return 0.0;
  const double delay = gap - interval_s_;
  delayed_s_ += delay;
  return delay;
}

void Heartbeats::heard(NodeId node, double now_s) {
  if (node >= last_heard_s_.size()) return;
  last_heard_s_[node] = now_s;
  delayed_when_heard_s_[node] = delayed_s_;
}

}  // namespace pstwin
