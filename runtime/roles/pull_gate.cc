#include "runtime/roles/pull_gate.h"

namespace pstwin {

void PullGate::add(PendingReply p, const ConsistencyController& consistency,
                   std::uint64_t log_end, std::uint64_t durable, std::vector<PendingReply>& ready) {
  if (p.kind != PendingReply::Kind::kPullReply ||
      consistency.can_serve_pull(p.worker_index, p.clock))
    pass(std::move(p), log_end, durable, ready);
  else
    waiting_.push_back(std::move(p));
}

void PullGate::pass(PendingReply p, std::uint64_t log_end, std::uint64_t durable,
                    std::vector<PendingReply>& ready) {
  // A reply shows the range as it is when released, so it waits until every backup has all of it.
  p.needs_seq = log_end;
  if (durable >= log_end) ready.push_back(std::move(p));
  else gated_.push_back(std::move(p));
}

void PullGate::release(const ConsistencyController& consistency, std::uint64_t log_end,
                       std::uint64_t durable, bool force, std::vector<PendingReply>& ready) {
  // Whether a waiting pull may be answered depends only on the range's clock (see
  // ConsistencyController::can_serve_pull) and on who is live, so the queue needs a look only
  // when one of them changed. Looking on every push would cost W^2 per clock under BSP.
  if (!waiting_.empty() && (force || consistency.clock() != looked_at_clock_)) {
    looked_at_clock_ = consistency.clock();
    // Allowed pulls wait for durability (at once when the log is durable), in arrival order.
    std::vector<PendingReply>& allowed = durable >= log_end ? ready : gated_;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < waiting_.size(); ++i) {
      if (consistency.can_serve_pull(waiting_[i].worker_index, waiting_[i].clock)) {
        waiting_[i].needs_seq = log_end;
        allowed.push_back(std::move(waiting_[i]));
      } else if (kept++ != i) {  // never self-move: it would empty the pull's row list
        waiting_[kept - 1] = std::move(waiting_[i]);
      }
    }
    waiting_.resize(kept);
  }
  if (gated_.empty()) return;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < gated_.size(); ++i) {
    if (gated_[i].needs_seq <= durable) ready.push_back(std::move(gated_[i]));
    else if (kept++ != i) gated_[kept - 1] = std::move(gated_[i]);
  }
  gated_.resize(kept);
}

}  // namespace pstwin
