// The send slots of "simulation.nic_send_window": a slot is held while its message is being
// serialised onto the sender's link, not until it has arrived (docs/DESIGN.md, "NIC windows").
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>

namespace pstwin {

/// A NIC's transmit queue as the sender sees it: messages leave its wire one after another at its
/// line rate, so a message's last byte has left `bytes / bandwidth` after the previous one's (or
/// after it was handed over, if the wire was idle). A real NIC frees its queue entry then, and the
/// next message starts while this one is still propagating and being received. Plain arithmetic on
/// simulated seconds; the NIC actor (sim/nic_window.cc) asks when to wake.
class SerialisingSlots {
 public:
  /// Holds a slot for a message of `bytes` handed to the wire at `now_s` (simulated seconds) on a
  /// link of `bandwidth_Bps` bytes/s. REQUIRES: now_s not before an earlier call's. A bandwidth of
  /// 0 or less (no link: nothing to serialise) frees the slot at once.
  /// Returns when that slot frees (simulated s).
  double hold(double now_s, std::uint64_t bytes, double bandwidth_Bps) {
    const double start = std::max(now_s, wire_free_s_);
    wire_free_s_ = bandwidth_Bps > 0 ? start + static_cast<double>(bytes) / bandwidth_Bps : start;
    free_at_s_.push_back(wire_free_s_);
    return wire_free_s_;
  }
  /// Frees the slots whose message's last byte has left by `now_s`. Within a picosecond counts as
  /// left: the clock SimGrid wakes the actor at may fall an ulp short of the time asked for, and a
  /// shorter wait would not advance it.
  void release_until(double now_s) {
    while (!free_at_s_.empty() && free_at_s_.front() <= now_s + kTolerance_s) free_at_s_.pop_front();
  }
  /// Slots held (messages still being serialised, or waiting for the wire).
  std::size_t held() const { return free_at_s_.size(); }
  /// When the first held slot frees (simulated s). REQUIRES: held() > 0.
  double next_free_s() const { return free_at_s_.front(); }

 private:
  static constexpr double kTolerance_s = 1e-12;
  std::deque<double> free_at_s_;  // ascending: the wire sends in order
  double wire_free_s_ = 0;        // when the last held message's last byte leaves
};

}  // namespace pstwin
