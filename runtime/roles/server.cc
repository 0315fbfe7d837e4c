#include "runtime/roles/server.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/codec.h"
#include "runtime/errors.h"
#include "runtime/roles/gradient_compression.h"
#include "runtime/roles/shard_state.h"
#include "runtime/roles/stall_wait.h"
#include "runtime/seconds_text.h"
#include "runtime/span_scope.h"

namespace pstwin {

Server::Server(Env& env, const JobSpec& spec, std::uint32_t index, KernelBackend& kernels,
               bool rejoining)
    : env_(env),
      spec_(spec),
      index_(index),
      name_("server " + std::to_string(index)),
      kernels_(kernels),
      ranges_(spec.key_ranges()),
      membership_(initial_membership(spec)),
      rejoining_(rejoining) {
  if (rejoining_) {
    // What this server held died with its former process.
    for (auto& set : membership_.replicas) std::erase(set, env_.self());
    return;
  }
  for (std::uint32_t r = 0; r < ranges_.size(); ++r)
    if (membership_.holds(env_.self(), r)) ++starts_expected_;
}

void Server::run() {
  if (rejoining_) {
    Message hello;
    hello.header.type = MsgType::kRejoin;
    hello.data = nlohmann::json{{"role", "server"}, {"index", index_}}.dump();
    env_.send(JobLayout::scheduler(), std::move(hello));
  }
  // Requests held for a newer epoch or until the starts: a few per worker and range.
  const std::size_t max_held =
      8 * static_cast<std::size_t>(spec_.layout.workers) * ranges_.size() + 64;
  for (;;) {
    auto msg = recv_unless_stalled(env_, spec_.stall_timeout_s);
    if (!msg)
      throw std::runtime_error(name_ + ": nothing received for " + seconds_text(spec_.stall_timeout_s) +
                               " s (its stall timeout) while no worker computed; a node it waits for "
                               "is stuck or gone");
    const std::uint32_t epoch_before = membership_.epoch;
    const bool started_before = started();
    const double handling_since = env_.now();
    const bool done = handle(std::move(*msg));
    load_.busy_s += env_.now() - handling_since;
    if (done) return;
    // What was held may be deliverable now.
    if (membership_.epoch != epoch_before || (!started_before && started())) {
      std::deque<Message> retry;
      retry.swap(held_);
      for (Message& m : retry)
        if (handle(std::move(m))) return;
    }
    if (held_.size() > max_held)
      throw ProtocolError(name_ + ": " + std::to_string(held_.size()) +
                          " messages held for a start or a membership that never came");
  }
}

bool Server::handle(Message m) {
  const auto type = m.header.type;
  if (type == MsgType::kStart) {
    handle_start(m);
    return false;
  }
  const bool immediate_stop = type == MsgType::kStop && (m.header.flags & msg_flags::kStopNow);
  if (!started() && !immediate_stop) {
    held_.push_back(std::move(m));
    return false;
  }
  if (type == MsgType::kStop) {
    stop_pending_ = true;
    return try_finish(immediate_stop || !started());
  }
  const NodeId sender = m.header.sender;
  switch (type) {
    case MsgType::kMembership: {
      SpanScope failover(env_, "failover");
      handle_membership(m);
      break;
    }
    case MsgType::kPush:
    case MsgType::kPull: {
      if (!spec_.layout.is_worker(sender))
        throw ProtocolError(name_ + ": " + std::string(msg_type_name(type)) +
                            " from non-worker node " + std::to_string(sender));
      const std::uint32_t w = spec_.layout.worker_index(sender);
      if (!spec_.is_pusher(w))
        throw ProtocolError(name_ + ": " + std::string(msg_type_name(type)) + " from worker " +
                            std::to_string(w) + ", which under hybrid synchronisation reaches the "
                            "servers through its host's leader, worker " +
                            std::to_string(spec_.leader_of(w)));
      // Fencing: a worker declared dead is heard again only through a rejoin.
      if (membership_.dead_workers[w] && !(m.header.flags & msg_flags::kRejoin)) break;
      if (!routed_here(m, /*as_primary=*/true)) break;
      ++load_.requests;
      load_.bytes_in += encoded_size(m);  // as it travelled, packed or not
      // A compressed push: the shard and the replicas see floats.
      if (m.value_format != ValueFormat::kFloat32) env_.account(unpack_values(m));
      // The shard and the consistency model count pushers: workers, or hosts under hybrid.
      if (type == MsgType::kPush) {
        SpanScope applying(env_, "apply_push");
        handle_push(std::move(m), spec_.pusher_slot(w));
      } else {
        SpanScope serving(env_, "serve_pull");
        handle_pull(m, spec_.pusher_slot(w));
      }
      break;
    }
    case MsgType::kReplicate:
      if (routed_here(m, /*as_primary=*/false)) {
        SpanScope replicating(env_, "replicate");
        handle_replicate(std::move(m));
      }
      break;
    case MsgType::kShardState:
      if (routed_here(m, /*as_primary=*/false)) handle_state(m);
      break;
    case MsgType::kReplicaAck:
      handle_ack(m);
      break;
    default:
      throw ProtocolError(name_ + ": unexpected " + std::string(msg_type_name(type)) +
                          " from node " + std::to_string(sender));
  }
  return stop_pending_ && try_finish(false);
}

bool Server::routed_here(Message& m, bool as_primary) {
  const std::uint32_t r = m.header.range;
  if (r >= ranges_.size())
    throw ProtocolError(name_ + ": " + std::string(msg_type_name(m.header.type)) +
                        " for key range " + std::to_string(r) + "; the job has " +
                        std::to_string(ranges_.size()));
  if (as_primary ? leads(r)
                 : (m.header.epoch <= membership_.epoch && !membership_.replicas[r].empty() &&
                    m.header.sender == membership_.primary(r) && membership_.holds(env_.self(), r) &&
                    !leads(r) && (shards_.count(r) || m.header.type == MsgType::kShardState)))
    return true;
  // Sent under a membership this server has not seen yet: keep it until that arrives. Otherwise
  // it is for a former primary; the sender learns the new routes and resends.
  if (m.header.epoch > membership_.epoch) held_.push_back(std::move(m));
  return false;
}

void Server::handle_start(const Message& m) {
  const std::uint32_t r = m.header.range;
  if (r >= ranges_.size() || !membership_.holds(env_.self(), r) || shards_.count(r))
    throw ProtocolError(name_ + ": unexpected start for key range " + std::to_string(r));
  RangeStart start = read_range_start(m, ranges_[r], range_floats(spec_, ranges_[r]));
  auto shard =
      std::make_unique<Shard>(env_, spec_, kernels_, r, ranges_[r], std::move(start.params));
  if (start.resume) shard->resume(start.resume->clock, std::move(start.resume->optimizer));
  shards_[r] = std::move(shard);
  ++starts_seen_;
  if (membership_.primary(r) == env_.self()) lead(r, /*promoted=*/false);
  else {
    shards_[r]->set_reporting(false);
    backed_up_[r] = ReplicaReplay(0);
  }
}

void Server::lead(std::uint32_t range, bool promoted) {
  // A promoted backup continues the log from what it applied; at the start the log is empty.
  const std::uint64_t log_end = promoted ? backed_up_[range].applied() : 0;
  backed_up_.erase(range);
  Shard& s = *shards_.at(range);
  Lead& l = leads_.try_emplace(range, log_end, ReportSchedule(spec_, s.clock(), env_.now()))
                .first->second;
  s.set_reporting(true);
  const auto& set = membership_.replicas[range];
  // At the start every replica began from the same values; after a promotion the backups may
  // differ in how much of the old primary's log they got, so each takes the new primary's state.
  for (std::size_t i = 1; i < set.size(); ++i)
    if (promoted) send_state(range, set[i]);
    else l.log.add_backup(set[i]);
  l.promoted_awaiting_push = promoted;
  if (promoted)
    env_.metrics().event(env_.now(), "failover",
                         {{"range", range}, {"server", "server:" + std::to_string(index_)},
                          {"epoch", membership_.epoch}, {"clock", s.clock()}});
  maybe_snapshot(range);
}

void Server::send_state(std::uint32_t range, NodeId node) {
  ReplicaLog& log = leads_.at(range).log;
  Message state = shard_state_message(range, log.end(), shards_.at(range)->state());
  state.header.epoch = membership_.epoch;
  log.add_rebuilt_backup(node);
  env_.send(node, std::move(state));
}

void Server::replicate(std::uint32_t range, Message entry) {
  ReplicaLog& log = leads_.at(range).log;
  entry.header.seq = log.append();
  if (!log.has_backups()) return;
  entry.header.type = MsgType::kReplicate;
  entry.header.range = range;
  entry.header.epoch = membership_.epoch;
  std::size_t left = log.backups().size();
  for (const auto& [backup, acked] : log.backups()) {
    (void)acked;
    if (--left == 0) env_.send(backup, std::move(entry));
    else env_.send(backup, entry);
  }
}

void Server::handle_push(Message m, std::uint32_t w) {
  const std::uint32_t r = m.header.range;
  Shard& s = *shards_.at(r);
  Lead& l = leads_.at(r);
  const std::uint32_t flags = m.header.flags;
  const std::int64_t clock = m.header.clock;
  const std::uint64_t request = m.header.request_id;
  const NodeId sender = m.header.sender;
  const bool keyed = (flags & msg_flags::kKeyed) != 0;
  const bool pull_after = (flags & msg_flags::kPullAfter) != 0;
  std::vector<std::uint32_t> rows;  // a keyed push's rows, for the pull after it
  if (s.is_duplicate(w, request)) {
    // A worker resent a push this range applied already (before a failover): exactly once.
    env_.metrics().event(env_.now(), "duplicate_push_ignored",
                         {{"range", r}, {"worker", w}, {"clock", clock}});
    if (keyed && pull_after) rows = s.local_rows(m);
  } else {
    Message entry;  // the push as it arrived, for the backups: copied only when there are some
    if (l.log.has_backups()) entry = m;
    s.push(std::move(m), w, keyed && pull_after ? &rows : nullptr);
    entry.header.op = ReplicaOp::kPush;
    entry.header.subject = sender;
    replicate(r, std::move(entry));
    if (l.promoted_awaiting_push) {
      // The end of a failover as a worker sees it: the new primary applies pushes again.
      l.promoted_awaiting_push = false;
      env_.metrics().event(env_.now(), "failover_first_push",
                           {{"range", r}, {"server", "server:" + std::to_string(index_)},
                            {"worker", w}, {"clock", clock}});
    }
  }
  after_change(r);
  if (pull_after)
    owe({.kind = PendingReply::Kind::kPullReply, .worker = sender, .worker_index = w, .range = r,
         .clock = clock + 1, .request_id = request, .keyed = keyed, .rows = std::move(rows)});
  if (flags & msg_flags::kAckRequested)
    owe({.kind = PendingReply::Kind::kPushAck, .worker = sender, .worker_index = w, .range = r,
         .clock = clock, .request_id = request});
}

void Server::handle_pull(const Message& m, std::uint32_t w) {
  const std::uint32_t r = m.header.range;
  Shard& s = *shards_.at(r);
  PendingReply p{.kind = PendingReply::Kind::kPullReply, .worker = m.header.sender,
                 .worker_index = w, .range = r, .clock = m.header.clock,
                 .request_id = m.header.request_id,
                 .keyed = (m.header.flags & msg_flags::kKeyed) != 0};
  if (m.header.flags & msg_flags::kRejoin) {
    // A restarted worker counts again from this clock on, on every replica (through the log).
    // Its clock probe (clock -1) already does so under BSP, at the range's own clock: the barrier
    // waits for it from then on, so the clock it learns is still open when its first gradient
    // comes, instead of the others completing clocks meanwhile and its gradients arriving late.
    const bool probe = m.header.clock < 0;
    const std::int64_t clock = probe ? s.clock() : m.header.clock;
    if (!probe || spec_.consistency.mode == ConsistencyMode::kBsp) {
      membership_.dead_workers[w] = false;
      s.rejoin(w, clock);
      replicate(r, log_entry(ReplicaOp::kWorkerRejoin, m.header.sender, clock));
      if (!probe)
        env_.metrics().event(env_.now(), "worker_rejoined_range",
                             {{"range", r}, {"worker", w}, {"clock", clock}});
      after_change(r);
    }
    if (probe) {
      p.kind = PendingReply::Kind::kClockProbe;
      p.clock = -1;
      p.keyed = false;
      owe(std::move(p));
      return;
    }
  }
  if (p.keyed) p.rows = s.local_rows(m);
  owe(std::move(p));
}

void Server::handle_replicate(Message m) {
  const std::uint32_t r = m.header.range;
  const NodeId primary = m.header.sender;
  const std::uint64_t applied = backed_up_[r].take(*shards_.at(r), std::move(m), spec_.layout);
  env_.send(primary, replica_ack(r, applied, membership_.epoch));
}

void Server::handle_state(const Message& m) {
  const std::uint32_t r = m.header.range;
  auto& shard = shards_[r];
  if (!shard) {
    // A new backup: rebuilt from the primary's state.
    shard = std::make_unique<Shard>(env_, spec_, kernels_, r, ranges_[r],
                                    std::vector<float>(range_floats(spec_, ranges_[r])));
    env_.metrics().event(env_.now(), "replica_rebuilt",
                         {{"range", r}, {"server", "server:" + std::to_string(index_)},
                          {"from", m.header.sender}});
  }
  shard->set_reporting(false);
  shard->restore(read_shard_state(m));
  backed_up_[r] = ReplicaReplay(m.header.seq);
  env_.send(m.header.sender, replica_ack(r, m.header.seq, membership_.epoch));
}

void Server::handle_ack(const Message& m) {
  const std::uint32_t r = m.header.range;
  if (!leads(r)) return;  // from before this server lost or gave up the range
  switch (leads_.at(r).log.on_ack(m.header.sender, m.header.seq)) {
    case ReplicaLog::Ack::kIgnored:
      return;  // a backup that has since left the range
    case ReplicaLog::Ack::kRecorded:
      break;
    case ReplicaLog::Ack::kSynced:
      // The backup holds the range now: the scheduler may promote it from here on.
      tell_scheduler(backup_synced(r, m.header.sender));
      break;
  }
  serve_ready(r, false);
}

void Server::handle_membership(const Message& m) {
  Membership next = Membership::from_message(m, spec_);
  if (next.epoch <= membership_.epoch) return;  // an older view, overtaken
  const Membership before = membership_;
  membership_ = next;
  const NodeId self = env_.self();
  for (std::uint32_t r = 0; r < ranges_.size(); ++r) {
    if (!membership_.holds(self, r)) {
      shards_.erase(r);
      leads_.erase(r);
      backed_up_.erase(r);
      continue;
    }
    const bool primary = membership_.primary(r) == self;
    if (primary && !leads(r)) {
      if (!shards_.count(r))
        throw std::runtime_error(name_ + ": promoted to lead key range " +
                                 std::to_string(r) + " before it received the range's state");
      lead(r, /*promoted=*/true);
    } else if (primary) {
      // Still the primary: forget backups that left, rebuild the ones that joined.
      const auto& set = membership_.replicas[r];
      for (NodeId joined : leads_.at(r).log.retain({set.begin() + 1, set.end()}))
        send_state(r, joined);
    } else if (leads(r)) {
      leads_.erase(r);  // demoted: another server leads it now
      shards_.at(r)->set_reporting(false);
      backed_up_[r] = ReplicaReplay(0);
    }
  }
  for (std::uint32_t w = 0; w < spec_.layout.workers; ++w) {
    if (!membership_.dead_workers[w] || before.dead_workers[w]) continue;
    // A dead worker leaves the barriers of every led range, at the same point on every replica.
    for (const auto& lead : leads_) {
      shards_.at(lead.first)->set_live(w, false);
      replicate(lead.first, log_entry(ReplicaOp::kWorkerDead, spec_.layout.worker(w)));
    }
  }
  for (const auto& lead : leads_) {
    after_change(lead.first);
    serve_ready(lead.first, true);
  }
}

void Server::after_change(std::uint32_t range) {
  maybe_snapshot(range);
  maybe_checkpoint(range);
  serve_ready(range, false);
}

void Server::owe(PendingReply p) {
  const std::uint32_t r = p.range;
  Lead& l = leads_.at(r);
  l.gate.add(std::move(p), shards_.at(r)->controller(), l.log.end(), l.log.durable(), ready_);
  send_ready();
}

void Server::serve_ready(std::uint32_t range, bool force) {
  Lead& l = leads_.at(range);
  l.gate.release(shards_.at(range)->controller(), l.log.end(), l.log.durable(), force, ready_);
  send_ready();
}

void Server::send_ready() {
  for (const PendingReply& p : ready_) {
    Shard& s = *shards_.at(p.range);
    Message reply = p.kind == PendingReply::Kind::kPullReply
                        ? s.pull_reply(p.keyed, p.rows, p.clock, p.request_id)
                    : p.kind == PendingReply::Kind::kPushAck ? s.push_ack(p.clock, p.request_id)
                                                             : s.clock_reply(p.request_id);
    reply.header.epoch = membership_.epoch;
    if (p.kind == PendingReply::Kind::kPullReply && spec_.compression.pull.format != ValueFormat::kFloat32)
      env_.account(pack_values(reply, spec_.compression.pull,
                               packing_seed(spec_.compression.seed, p.worker, p.clock, p.range, true)));
    load_.bytes_out += encoded_size(reply);
    env_.send(p.worker, std::move(reply));
  }
  ready_.clear();
}

}  // namespace pstwin
