// failure_schedule: the concrete failures a scenario injects, drawn once from its seed.
#pragma once

#include <optional>
#include <vector>

#include "runtime/scenario/scenario.h"

namespace pstwin {

/// A concrete failure: what fails, when, and when (if ever) it comes back. Times in seconds from
/// the start of the run.
struct FailureEvent {
  FailureSpec::Kind kind = FailureSpec::Kind::kNode;  ///< kNode, kLink or kJoin (a server joining at at_s)
  NodeRef target;
  double at_s = 0.0;
  std::optional<double> recover_at_s;  ///< absent: the node (or link) stays down
  friend bool operator==(const FailureEvent&, const FailureEvent&) = default;
};

/// Every failure of `s` that starts at or before `horizon_s`, ordered by start time (ties keep
/// the order below): the explicit "node" and "link" entries as given, and for each "random"
/// entry, per listed node, a renewal process: up-times ~ Exponential(mean mtbf), each followed
/// by a node failure that lasts `repair` (or forever when absent: one event, the node's process
/// ends). Draws come from Rng(Rng::derive_seed(s.seed, entry << 34 | node_stream_key(role, index),
/// kFailureStream)), one stream per entry and node, so the schedule depends only on the
/// scenario: launch and simulate see the same one, and a node's draws do not change with the
/// number of servers. A recover_at_s may lie past the horizon.
std::vector<FailureEvent> failure_schedule(const Scenario& s, double horizon_s);

}  // namespace pstwin
