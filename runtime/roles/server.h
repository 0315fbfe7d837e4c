// Server: holds key ranges (Shard) as their primary or as a backup. It dispatches messages,
// fences them by epoch, and becomes or ceases to be a range's primary; a led range's log is a
// ReplicaLog, its owed replies a PullGate, a backed-up range's replay a ReplicaReplay.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/backend.h"
#include "runtime/env.h"
#include "runtime/partition.h"
#include "runtime/roles/job.h"
#include "runtime/roles/membership.h"
#include "runtime/roles/pull_gate.h"
#include "runtime/roles/replica_log.h"
#include "runtime/roles/report_schedule.h"
#include "runtime/roles/server_load.h"
#include "runtime/roles/shard.h"

namespace pstwin {

/// One parameter server (docs/DESIGN.md, "Roles"; its messages: "Protocol"; replicas, epochs
/// and promotion: "Replication and failover").
///
/// run(): waits for a kStart per range it holds (the initial membership), holding what comes
/// earlier; then serves pushes and pulls for the ranges it leads, replays the logs of the ranges
/// it backs up, follows kMembership, and returns after kStop once its final snapshots are sent.
/// Throws ProtocolError for a message that breaks the protocol, and std::runtime_error when
/// nothing arrives for spec.stall_timeout_s.
/// A restarted server (`rejoining`) holds nothing: it sends kRejoin and waits to be made a backup.
class Server {
 public:
  /// `spec` and `kernels` must outlive the server; `index`: its server index (node index + 1).
  Server(Env& env, const JobSpec& spec, std::uint32_t index, KernelBackend& kernels,
         bool rejoining = false);
  void run();

 private:
  /// A range this server leads.
  struct Lead {
    Lead(std::uint64_t log_end, ReportSchedule schedule) : log(log_end), reports(schedule) {}
    ReplicaLog log;
    PullGate gate;
    ReportSchedule reports;
    bool promoted_awaiting_push = false;  ///< promoted; its first applied push is an event
  };

  /// Handles one message; returns true when the server is done.
  bool handle(Message m);
  /// Whether a worker request (as_primary) or a primary's log entry or state is for this server
  /// now; false when it was held for a newer epoch, or dropped.
  bool routed_here(Message& m, bool as_primary);
  void handle_start(const Message& m);
  void handle_membership(const Message& m);
  void handle_push(Message m, std::uint32_t w);
  void handle_pull(const Message& m, std::uint32_t w);
  void handle_replicate(Message m);
  void handle_state(const Message& m);
  void handle_ack(const Message& m);

  bool started() const { return starts_seen_ == starts_expected_; }
  bool leads(std::uint32_t range) const { return leads_.count(range) > 0; }
  /// Takes over `range` as its primary (at start, or promoted by a membership change).
  void lead(std::uint32_t range, bool promoted);
  /// Sends `range`'s whole state to backup `node`, which is rebuilt from it.
  void send_state(std::uint32_t range, NodeId node);
  /// Appends `entry` (op and subject set) to a led range's log and sends it to every backup.
  void replicate(std::uint32_t range, Message entry);

  /// After a led range changed: snapshot, checkpoint, and send the replies now allowed.
  void after_change(std::uint32_t range);
  void owe(PendingReply p);
  void serve_ready(std::uint32_t range, bool force);
  void send_ready();
  void maybe_snapshot(std::uint32_t range);
  void maybe_checkpoint(std::uint32_t range);
  /// Sends `m` to the scheduler, stamped with this server's epoch.
  void tell_scheduler(Message m);
  /// kStop's work: true when every led range's last pushes are in and the finals went out.
  bool try_finish(bool immediate);

  Env& env_;
  const JobSpec& spec_;
  std::uint32_t index_;
  std::string name_;  ///< "server <index>", for errors
  KernelBackend& kernels_;
  std::vector<KeyRange> ranges_;  ///< every key range of the job, by range index
  Membership membership_;
  std::map<std::uint32_t, std::unique_ptr<Shard>> shards_;  ///< ranges held, led or backed up
  std::map<std::uint32_t, Lead> leads_;
  std::map<std::uint32_t, ReplicaReplay> backed_up_;
  std::vector<PendingReply> ready_;  ///< replies released, about to be sent (reused)
  std::deque<Message> held_;  ///< messages for a newer epoch, or before the starts
  std::uint32_t starts_expected_ = 0;
  std::uint32_t starts_seen_ = 0;
  bool stop_pending_ = false;
  bool rejoining_;
  /// What this server served, reported with its traffic report: the summary's server_load, and
  /// load_.bytes_in its bytes_to_servers.
  ServerLoad load_;
};

}  // namespace pstwin
