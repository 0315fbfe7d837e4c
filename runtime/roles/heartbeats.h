// Heartbeats: when the scheduler last heard each node, and how much of a node's silence was the
// scheduler's own (docs/DESIGN.md, "Replication and failover"). Nothing here sends or logs.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/message.h"

namespace pstwin {

/// When each node was last heard from, and whether it has been silent too long. Times are
/// seconds of Env::now().
///
/// A scheduler that is not scheduled itself (a loaded machine, a paused process) hears nobody:
/// after it, every node looks silent at once although none died. So the scheduler reports each
/// time it looks (scheduler_turn, after every receive); a gap between two looks longer than it
/// meant to wait (the heartbeat interval) is its own delay, and that time does not count as any
/// node's silence. A node is overdue when its silence, less the scheduler's delays within it,
/// exceeds the timeout.
class Heartbeats {
 public:
  /// Every one of `nodes` nodes counts as heard at `now_s`, which is also the scheduler's first
  /// look. `interval_s` is the longest the scheduler means to go between two looks.
  Heartbeats(std::uint32_t nodes, double now_s, double timeout_s, double interval_s);
  /// No nodes, to assign a real one to.
  Heartbeats() = default;

  /// The scheduler looks at `now_s` (right after a receive returned, before it notes what came).
  /// Returns the seconds of this gap counted as its own delay: the part beyond `interval_s`, when
  /// the gap exceeds 1.5 x `interval_s` (a slightly late wake-up is not a stall); else 0.
  double scheduler_turn(double now_s);
  /// Something arrived from `node` at `now_s`; ids outside the job are ignored.
  void heard(NodeId node, double now_s);

  /// Seconds since `node` was last heard, as the clock shows. REQUIRES node < nodes.
  double silent_s(NodeId node, double now_s) const { return now_s - last_heard_s_.at(node); }
  /// Seconds of the scheduler's own delay since `node` was last heard. REQUIRES node < nodes.
  double scheduler_delay_s(NodeId node) const { return delayed_s_ - delayed_when_heard_s_.at(node); }
  /// The silence that counts: silent_s less scheduler_delay_s. REQUIRES node < nodes.
  double counted_silence_s(NodeId node, double now_s) const {
    return silent_s(node, now_s) - scheduler_delay_s(node);
  }
  /// Whether `node`'s counted silence is longer than the timeout. REQUIRES node < nodes.
  bool overdue(NodeId node, double now_s) const { return counted_silence_s(node, now_s) > timeout_s_; }

 private:
  std::vector<double> last_heard_s_;          // by node id
  std::vector<double> delayed_when_heard_s_;  // by node id: delayed_s_ when last heard
  double timeout_s_ = 0.0;
  double interval_s_ = 0.0;
  double last_turn_s_ = 0.0;
  double delayed_s_ = 0.0;  // the scheduler's own delays so far, in all
};

}  // namespace pstwin
