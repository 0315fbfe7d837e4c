// What a server reports to the scheduler about the ranges it leads: snapshots when due,
// checkpoints when due, and the final snapshots that end its part of the job (docs/DESIGN.md,
// "Protocol"). Dispatch and replication are in server.cc.
#include <nlohmann/json.hpp>

#include "runtime/checkpoint/checkpoint_store.h"
#include "runtime/roles/cpu_report.h"
#include "runtime/roles/server.h"
#include "runtime/span_scope.h"

namespace pstwin {

void Server::maybe_snapshot(std::uint32_t range) {
  Lead& l = leads_.at(range);
  Shard& s = *shards_.at(range);
  if (!l.reports.snapshot_due(s.clock())) return;
  tell_scheduler(s.snapshot(/*final=*/false));
  // Backups drop the histogram just reported, at the same point of the log.
  if (l.log.has_backups()) replicate(range, log_entry(ReplicaOp::kSnapshotTaken, 0));
}

void Server::maybe_checkpoint(std::uint32_t range) {
  CheckpointStore* store = env_.checkpoints();
  const Shard& s = *shards_.at(range);
  if (!store || !leads_.at(range).reports.checkpoint_due(s.clock(), env_.now())) return;
  SpanScope checkpointing(env_, "checkpoint");
  store->store(s.checkpoint());
  Message done;
  done.header.type = MsgType::kCheckpointDone;
  done.header.range = range;
  done.header.clock = s.clock();
  tell_scheduler(std::move(done));
}

void Server::tell_scheduler(Message m) {
  m.header.epoch = membership_.epoch;
  env_.send(JobLayout::scheduler(), std::move(m));
}

bool Server::try_finish(bool immediate) {
  if (!immediate)
    for (const auto& lead : leads_)
      // After a normal finish a worker's last push may still be on its way: it travels on
      // another connection than the scheduler's stop. Wait for it; an abort stops at once.
      if (!shards_.at(lead.first)->all_pushes_in()) return false;
  std::size_t left = leads_.size();
  for (const auto& lead : leads_) {
    Message snap = shards_.at(lead.first)->snapshot(/*final=*/true);
    // The last message a server sends: its traffic report. What its workers sent it is counted
    // here in every environment; what it sent, only where nodes count their own.
    if (--left == 0) {
      nlohmann::json report{{"bytes_from_workers", load_.bytes_in}, {"load", load_.to_json()}};
      if (const auto sent = env_.bytes_sent()) report["bytes_sent"] = sent;
      add_cpu_use(report, env_);
      snap.data = report.dump();
    }
    tell_scheduler(std::move(snap));
  }
  return true;
}

}  // namespace pstwin
