// RangeRouter: where a worker's requests for each key range go, and what it resends after a
// failover (docs/DESIGN.md, "Replication and failover").
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "runtime/env.h"
#include "runtime/roles/job.h"
#include "runtime/roles/membership.h"

namespace pstwin {

/// Sends a worker's pushes and pulls to the primary of their key range in the newest membership,
/// stamped with its epoch. With fault tolerance (JobSpec::fault.enabled) it keeps, by range, the
/// last push until it is acknowledged and the pull until it is answered, and sends them again,
/// with the same request ids, to a range's new primary or after a long silence; the server's
/// duplicate check makes each push count once. Not thread-safe (one role uses it).
class RangeRouter {
 public:
  /// Starts from the job's initial membership (initial_membership(spec)).
  RangeRouter(Env& env, const JobSpec& spec);

  /// Sends kPush or kPull `m` to the primary of range m.header.range.
  /// REQUIRES: m.header.range < the job's number of key ranges.
  void send(Message m);
  /// Takes a kMembership: a newer epoch replaces the routes, and what the ranges whose primary
  /// changed have not acknowledged is sent to the new primary. An older epoch changes nothing.
  /// Throws ProtocolError for a malformed membership (Membership::from_message).
  void update(const Message& membership);
  /// Sends every kept push and pull again (the safety net after a long silence).
  void resend_all();

  /// Range `range` answered the pull for the current clock, which also acknowledges its push of
  /// the clock before: neither is kept any longer.
  void answered(std::uint32_t range);
  /// Whether kPushAck `ack` acknowledges the push kept for its range; if so, forgets that push.
  bool take_push_ack(const Message& ack);
  /// Ranges with a push not yet acknowledged.
  std::uint32_t unacknowledged_pushes() const;

 private:
  Env& env_;
  const JobSpec& spec_;
  Membership membership_;
  std::vector<std::optional<Message>> unacked_push_;  ///< by range
  std::vector<std::optional<Message>> open_pull_;     ///< by range
};

}  // namespace pstwin
