#include "runtime/roles/range_router.h"

namespace pstwin {

RangeRouter::RangeRouter(Env& env, const JobSpec& spec)
    : env_(env),
      spec_(spec),
      membership_(initial_membership(spec)),
      unacked_push_(membership_.replicas.size()),
      open_pull_(membership_.replicas.size()) {}

void RangeRouter::send(Message m) {
  const std::uint32_t r = m.header.range;
  m.header.epoch = membership_.epoch;
  if (spec_.fault.enabled) {
    // Kept until acknowledged, to be resent if the range's primary changes.
    if (m.header.type == MsgType::kPush) unacked_push_.at(r) = m;
    else open_pull_.at(r) = m;
  }
  env_.send(membership_.primary(r), std::move(m));
}

void RangeRouter::update(const Message& membership) {
  Membership next = Membership::from_message(membership, spec_);
  if (next.epoch <= membership_.epoch) return;
  const Membership before = std::move(membership_);
  membership_ = std::move(next);
  for (std::uint32_t r = 0; r < membership_.replicas.size(); ++r) {
    if (membership_.primary(r) == before.primary(r)) continue;
    // The new primary gets the same requests again; request ids make each push count once.
    if (unacked_push_[r]) send(*unacked_push_[r]);
    if (open_pull_[r]) send(*open_pull_[r]);
  }
}

void RangeRouter::resend_all() {
  for (std::uint32_t r = 0; r < unacked_push_.size(); ++r) {
    if (unacked_push_[r]) send(*unacked_push_[r]);
    if (open_pull_[r]) send(*open_pull_[r]);
  }
}

void RangeRouter::answered(std::uint32_t range) {
  open_pull_.at(range).reset();
  unacked_push_.at(range).reset();
}

bool RangeRouter::take_push_ack(const Message& ack) {
  const std::uint32_t r = ack.header.range;
  if (r >= unacked_push_.size() || !unacked_push_[r] ||
      unacked_push_[r]->header.request_id != ack.header.request_id)
    return false;
  unacked_push_[r].reset();
  return true;
}

std::uint32_t RangeRouter::unacknowledged_pushes() const {
  std::uint32_t n = 0;
  for (const auto& p : unacked_push_) n += p ? 1 : 0;
  return n;
}

}  // namespace pstwin
