// Stall timeouts that slow-but-alive compute never trips (DESIGN.md, "Env: the swappable layer").
#pragma once

#include <algorithm>
#include <optional>

#include "runtime/env.h"
#include "runtime/message.h"

namespace pstwin {

/// When a role that has heard nothing since `quiet_since_s` (seconds of env.now()) counts as
/// stalled: stall_timeout_s after that, or after the latest compute the environment knows of
/// (Env::busy_until), whichever is later. A worker computing an iteration for hours is alive,
/// as its heartbeats say on a real node, so a server or a worker behind it at a barrier waits on.
inline double stall_deadline(const Env& env, double quiet_since_s, double stall_timeout_s) {
  return std::max(quiet_since_s, env.busy_until()) + stall_timeout_s;
}

/// The next message for env's node, or nullopt once stall_deadline (counted from now) has
/// passed with nothing received: a watchdog's receive. It waits again only when a compute moved
/// the deadline meanwhile: an environment whose recv returns nothing early (a closed in-process
/// job ending its roles) ends the wait as it did. Throws what env.recv throws.
inline std::optional<Message> recv_unless_stalled(Env& env, double stall_timeout_s) {
  const double since = env.now();
  double deadline = stall_deadline(env, since, stall_timeout_s);
  for (;;) {
    const double wait = deadline - env.now();
    if (wait <= 0) return std::nullopt;
    if (auto m = env.recv(wait)) return m;
    const double later = stall_deadline(env, since, stall_timeout_s);
    if (later <= deadline) return std::nullopt;
    deadline = later;
  }
}

}  // namespace pstwin
