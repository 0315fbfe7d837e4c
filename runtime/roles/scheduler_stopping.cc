// The scheduler's ways of ending a job early or telling nodes to stop: at the end, after a
// divergence or a lost job, and when the job is stopped from outside (a signal to a real
// scheduler's process). The lifecycle is in scheduler.cc, failures in scheduler_failures.cc.
#include <algorithm>
#include <cstdint>
#include <string>

#include "runtime/errors.h"
#include "runtime/roles/late_stop_note.h"
#include "runtime/roles/scheduler.h"

namespace pstwin {

// Each node is told once: a node that already stopped, or a worker that finished, is gone, and
// on a real network a send to it would wait out the send timeout.

void Scheduler::stop_servers(StopMode mode) {
  stopping_ = true;
  if (servers_stopped_) return;
  servers_stopped_ = true;
  for (std::uint32_t s = 0; s < spec_.layout.servers; ++s) stop_server(spec_.layout.server(s), mode);
}

void Scheduler::stop_server(NodeId node, StopMode mode) {
  if (!failover_.active(node)) return;
  failover_.leave(node);
  Message m;
  m.header.type = MsgType::kStop;
  if (mode == StopMode::kNow) m.header.flags = msg_flags::kStopNow;
  env_.send(node, std::move(m));
}

void Scheduler::stop_workers() {
  for (std::uint32_t w = 0; w < spec_.layout.workers; ++w) {
    const NodeId node = spec_.layout.worker(w);
    if (!failover_.active(node)) continue;
    failover_.leave(node);
    Message m;
    m.header.type = MsgType::kStop;
    env_.send(node, std::move(m));
  }
}

void Scheduler::abort_job() {
  snapshots_.clear();
  stop_servers(StopMode::kNow);
  stop_workers();
}

void Scheduler::stop_now(NodeId node) {
  Message stop;
  stop.header.type = MsgType::kStop;
  stop.header.flags = msg_flags::kStopNow;
  env_.send(node, std::move(stop));
}

void Scheduler::stop_from_outside(const std::string& why) {
  const std::int64_t clock = std::max<std::int64_t>(last_eval_clock_, 0);
  reason_ = "the job was " + why + " at clock " + std::to_string(clock) + " of " +
            std::to_string(spec_.iterations) + " (the last evaluated), before it completed";
  env_.metrics().event(env_.now(), "job_stopped", {{"reason", why}, {"clock", clock}});
  // Nothing more is received: the others are told to stop rather than wait out their timeouts.
  abort_job();
  throw JobStopped(reason_);
}

bool Scheduler::training_over() const {
  return !diverged_ &&
         (!stop_rule_.empty() || draining_ || last_eval_clock_ >= static_cast<std::int64_t>(spec_.iterations));
}

void Scheduler::note_late_stop(const std::string& why) {
  late_stop_ = why;
  const std::string note = late_stop_note(stop_rule_, spec_.iterations, why);
  reason_ = reason_.empty() ? note : reason_ + "; " + note;
  env_.metrics().event(env_.now(), "stopped_after_completion",
                       {{"reason", why}, {"clock", std::max<std::int64_t>(last_eval_clock_, 0)}});
  // Nothing more is received: whoever was not told to stop yet (the last clock was evaluated
  // before every worker said it was done) is told now, rather than left to wait out a timeout.
  stop_servers(StopMode::kNow);
  stop_workers();
}

}  // namespace pstwin
