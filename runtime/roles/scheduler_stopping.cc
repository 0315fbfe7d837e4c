// The scheduler's ways of ending a job early or telling nodes to stop: at the end, after a
// divergence or a lost job, and when the job is stopped from outside (a signal to a real
// scheduler's process). The lifecycle is in scheduler.cc, failures in scheduler_failures.cc.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "runtime/errors.h"
#include "runtime/roles/evaluation.h"
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
  // The others are told to stop rather than wait out their timeouts.
  abort_job();
  const std::uint64_t skipped = wind_down_after_stop();
  const std::int64_t clock = std::max<std::int64_t>(last_eval_clock_, 0);
  reason_ = "the job was " + why + " at clock " + std::to_string(clock) + " of " +
            std::to_string(spec_.iterations) + " (the last evaluated), before it completed";
  nlohmann::json fields{{"reason", why}, {"clock", clock}};
  if (skipped > 0) fields["evaluations_skipped"] = skipped;
  env_.metrics().event(env_.now(), "job_stopped", std::move(fields));
  throw JobStopped(reason_);
}

std::uint64_t Scheduler::wind_down_after_stop() {
  std::optional<RangeAssembly> newest;  // the newest periodic snapshot completed meanwhile
  std::uint64_t completed = 0;
  const double until = env_.now() + kStopWindDown_s;
  try {
    while (const auto m = env_.recv_after_stop(until - env_.now())) {
      if (m->header.type == MsgType::kWorkerDone) absorb_traffic_report(*m);
      if (m->header.type != MsgType::kSnapshot) continue;
      report_staleness(*m, env_.metrics());
      if (m->header.flags & msg_flags::kFinal) {
        handle_final(*m);
      } else if (m->header.clock > last_eval_clock_) {
        std::optional<RangeAssembly> done = snapshots_.add(*m);
        if (!done) continue;
        ++completed;
        if (!newest || done->clock() > newest->clock()) newest = std::move(done);
      }
    }
  } catch (const ProtocolError&) {
    // What came before it stays; the stop is what the summary reports.
  }
  // The servers' final snapshots hold the parameters at the stop; else the newest periodic one.
  RangeAssembly* latest = finals_.complete() ? &finals_ : (newest ? &*newest : nullptr);
  if (!latest || diverged_ || latest->clock() <= last_eval_clock_) return completed;
  const std::int64_t clock = latest->clock();
  if (!evaluate(clock, latest->params(), latest->time_s())) {
    diverged_ = true;
    env_.metrics().event(env_.now(), "diverged", {{"clock", clock}});
  }
  return latest == &finals_ ? completed : completed - 1;
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
