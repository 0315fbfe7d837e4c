// failure_schedule: the explicit failures as given, and the random ones drawn node by node.
#include "runtime/scenario/failure_schedule.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "runtime/job_layout.h"
#include "runtime/rng.h"

namespace pstwin {

namespace {

/// The Rng::derive_seed stream of failure draws: far from the small stream numbers of roles (0),
/// data (1-3) and stragglers (3), so no node shares a stream with them. ASCII "FAIL".
constexpr std::uint64_t kFailureStream = 0x4641494c;

/// The node's key by role and index (not its node id, which shifts with the server count).
std::uint64_t node_key(const NodeRef& n) {
  switch (n.role) {
    case NodeRef::Role::kScheduler: return node_stream_key(NodeRole::kScheduler, 0);
    case NodeRef::Role::kServer: return node_stream_key(NodeRole::kServer, n.index);
    case NodeRef::Role::kWorker: return node_stream_key(NodeRole::kWorker, n.index);
  }
  return 0;
}

/// Appends the renewal process of one node of a random entry.
void draw_node(const Scenario& s, const FailureSpec& f, std::uint64_t entry, const NodeRef& node, double horizon_s,
               std::vector<FailureEvent>& out) {
  Rng rng(Rng::derive_seed(s.seed, entry << 34 | node_key(node), kFailureStream));
  double t = 0.0;
  for (;;) {
    t += -f.mtbf_s * std::log(1.0 - rng.uniform());  // Exponential(mean mtbf); 1 - u is in (0, 1]
    if (!(t <= horizon_s)) return;
    FailureEvent e{FailureSpec::Kind::kNode, node, t, std::nullopt};
    if (f.repair_s) e.recover_at_s = t + *f.repair_s;
    out.push_back(e);
    if (!f.repair_s) return;  // down for good: its process has ended
    t = *e.recover_at_s;
  }
}

}  // namespace

std::vector<FailureEvent> failure_schedule(const Scenario& s, double horizon_s) {
  std::vector<FailureEvent> out;
  for (std::size_t i = 0; i < s.failures.size(); ++i) {
    const FailureSpec& f = s.failures[i];
    if (f.kind != FailureSpec::Kind::kRandom) {
      if (f.at_s <= horizon_s) out.push_back(FailureEvent{f.kind, f.target, f.at_s, f.recover_at_s});
      continue;
    }
    const std::uint32_t size = f.group == NodeRef::Role::kServer ? s.cluster.servers : s.cluster.workers;
    std::vector<std::uint32_t> nodes = f.nodes;
    if (nodes.empty())
      for (std::uint32_t n = 0; n < size; ++n) nodes.push_back(n);
    for (std::uint32_t n : nodes) draw_node(s, f, i, NodeRef{f.group, n}, horizon_s, out);
  }
  std::stable_sort(out.begin(), out.end(), [](const FailureEvent& a, const FailureEvent& b) { return a.at_s < b.at_s; });
  return out;
}

}  // namespace pstwin
