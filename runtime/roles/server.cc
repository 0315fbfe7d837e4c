#include "runtime/roles/server.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/checkpoint/checkpoint_store.h"
#include "runtime/errors.h"

namespace pstwin {

Server::Server(Env& env, const JobSpec& spec, std::uint32_t index, KernelBackend& kernels,
               bool rejoining)
    : env_(env),
      spec_(spec),
      index_(index),
      kernels_(kernels),
      ranges_(range_partition(spec.num_keys(), spec.layout.servers)),
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
    auto msg = env_.recv(spec_.stall_timeout_s);
    if (!msg)
      throw std::runtime_error("server " + std::to_string(index_) + ": nothing received for " +
                               std::to_string(spec_.stall_timeout_s) + " s");
    const std::uint32_t epoch_before = membership_.epoch;
    const bool started_before = starts_seen_ == starts_expected_;
    if (handle(std::move(*msg))) return;
    // What was held may be deliverable now.
    if ((membership_.epoch != epoch_before || (!started_before && starts_seen_ == starts_expected_)) &&
        !held_.empty()) {
      std::deque<Message> retry;
      retry.swap(held_);
      while (!retry.empty()) {
        Message m = std::move(retry.front());
        retry.pop_front();
        if (handle(std::move(m))) return;
      }
    }
    if (held_.size() > max_held)
      throw ProtocolError("server " + std::to_string(index_) + ": " + std::to_string(held_.size()) +
                          " messages held for a start or a membership that never came");
  }
}

bool Server::handle(Message m) {
  const auto type = m.header.type;
  const bool started = starts_seen_ == starts_expected_;
  if (type == MsgType::kStart) {
    handle_start(m);
    return false;
  }
  if (type == MsgType::kStop) {
    const bool immediate = (m.header.flags & msg_flags::kStopNow) != 0;
    if (!started && !immediate) {
      held_.push_back(std::move(m));
      return false;
    }
    stop_pending_ = true;
    return try_finish(immediate || !started);
  }
  if (!started) {
    held_.push_back(std::move(m));
    return false;
  }
  const NodeId sender = m.header.sender;
  switch (type) {
    case MsgType::kMembership:
      handle_membership(m);
      break;
    case MsgType::kPush:
    case MsgType::kPull: {
      if (!spec_.layout.is_worker(sender))
        throw ProtocolError("server " + std::to_string(index_) + ": " +
                            std::string(msg_type_name(type)) + " from non-worker node " +
                            std::to_string(sender));
      const std::uint32_t w = spec_.layout.worker_index(sender);
      // Fencing: a worker declared dead is heard again only through a rejoin.
      if (membership_.dead_workers[w] && !(m.header.flags & msg_flags::kRejoin)) break;
      if (!routed_here(m, /*as_primary=*/true)) break;
      if (type == MsgType::kPush) handle_push(std::move(m), w);
      else handle_pull(m, w);
      break;
    }
    case MsgType::kReplicate:
      if (routed_here(m, /*as_primary=*/false)) handle_replicate(m);
      break;
    case MsgType::kShardState:
      if (routed_here(m, /*as_primary=*/false)) handle_state(m);
      break;
    case MsgType::kReplicaAck:
      handle_ack(m);
      break;
    default:
      throw ProtocolError("server " + std::to_string(index_) + ": unexpected " +
                          std::string(msg_type_name(type)) + " from node " + std::to_string(sender));
  }
  return stop_pending_ && try_finish(false);
}

bool Server::routed_here(Message& m, bool as_primary) {
  const std::uint32_t r = m.header.range;
  if (r >= ranges_.size())
    throw ProtocolError("server " + std::to_string(index_) + ": " +
                        std::string(msg_type_name(m.header.type)) + " for key range " +
                        std::to_string(r) + "; the job has " + std::to_string(ranges_.size()));
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
    throw ProtocolError("server " + std::to_string(index_) + ": unexpected start for key range " +
                        std::to_string(r));
  const KeyRange& keys = ranges_[r];
  if (m.keys.size() != 1 || m.lengths.size() != 1 || m.keys[0] != keys.begin ||
      m.lengths[0] != keys.size())
    throw ProtocolError("server " + std::to_string(index_) + ": start for key range " +
                        std::to_string(r) + " does not carry its keys [" +
                        std::to_string(keys.begin) + ", " + std::to_string(keys.end) + ")");
  const std::size_t floats = spec_.synthetic ? 0 : keys.size() * spec_.values_per_key();
  std::vector<float> params(m.values.begin(),
                            m.values.begin() + static_cast<long>(std::min(floats, m.values.size())));
  auto shard = std::make_unique<Shard>(env_, spec_, kernels_, r, keys, std::move(params));
  if (!m.data.empty()) {
    // Resuming: the values continue with the optimizer's state (see Scheduler::start_job).
    try {
      const auto j = nlohmann::json::parse(m.data);
      const auto first = j.at("opt_first").get<std::size_t>();
      const auto second = j.at("opt_second").get<std::size_t>();
      if (m.values.size() != floats + first + second)
        throw ProtocolError("server " + std::to_string(index_) + ": resume start for key range " +
                            std::to_string(r) + " carries the wrong number of values");
      OptimizerState opt;
      auto at = m.values.begin() + static_cast<long>(floats);
      opt.first.assign(at, at + static_cast<long>(first));
      opt.second.assign(at + static_cast<long>(first), at + static_cast<long>(first + second));
      opt.steps = j.at("opt_steps").get<std::uint64_t>();
      shard->resume(j.at("clock").get<std::int64_t>(),
                    std::vector<float>(m.values.begin(), m.values.begin() + static_cast<long>(floats)),
                    std::move(opt));
    } catch (const nlohmann::json::exception& e) {
      throw ProtocolError(std::string("server: bad resume start: ") + e.what());
    } catch (const std::invalid_argument& e) {
      throw ProtocolError(std::string("server: resume state does not fit: ") + e.what());
    }
  }
  shards_[r] = std::move(shard);
  ++starts_seen_;
  if (membership_.primary(r) == env_.self()) lead(r, /*promoted=*/false);
  else {
    shards_[r]->set_reporting(false);
    applied_seq_[r] = 0;
  }
}

void Server::lead(std::uint32_t range, bool promoted) {
  Lead& l = leads_[range];
  l.seq = promoted ? applied_seq_[range] : 0;
  applied_seq_.erase(range);
  Shard& s = *shards_.at(range);
  s.set_reporting(true);
  l.last_checkpoint_clock = s.clock();
  l.last_checkpoint_time = env_.now();
  const auto& set = membership_.replicas[range];
  for (std::size_t i = 1; i < set.size(); ++i) {
    l.acked[set[i]] = 0;
    // At the start every replica began from the same values; after a promotion the backups may
    // differ in how much of the old primary's log they got, so each takes the new primary's state.
    if (promoted) send_state(range, set[i]);
  }
  l.promoted_awaiting_push = promoted;
  if (promoted)
    env_.metrics().event(env_.now(), "failover",
                         {{"range", range}, {"server", "server:" + std::to_string(index_)}, {"epoch", membership_.epoch},
                          {"clock", s.clock()}});
  maybe_snapshot(range);
}

void Server::send_state(std::uint32_t range, NodeId node) {
  Lead& l = leads_.at(range);
  Message state = shards_.at(range)->state_message();
  state.header.seq = l.seq;
  state.header.epoch = membership_.epoch;
  l.acked[node] = 0;  // nothing counts as applied there until it acknowledges the state
  l.state_sent[node] = l.seq;
  env_.send(node, std::move(state));
}

void Server::log_op(std::uint32_t range, Message op) {
  Lead& l = leads_.at(range);
  ++l.seq;
  if (l.acked.empty()) return;
  op.header.type = MsgType::kReplicate;
  op.header.range = range;
  op.header.seq = l.seq;
  op.header.epoch = membership_.epoch;
  std::size_t left = l.acked.size();
  for (const auto& [backup, acked] : l.acked) {
    (void)acked;
    if (--left == 0) env_.send(backup, std::move(op));
    else env_.send(backup, op);
  }
}

std::uint64_t Server::durable_seq(std::uint32_t range) const {
  const Lead& l = leads_.at(range);
  std::uint64_t d = l.seq;
  for (const auto& [backup, acked] : l.acked) d = std::min(d, acked);
  return d;
}

void Server::handle_push(Message m, std::uint32_t w) {
  const std::uint32_t r = m.header.range;
  Shard& s = *shards_.at(r);
  const std::uint32_t flags = m.header.flags;
  const std::int64_t clock = m.header.clock;
  const std::uint64_t request = m.header.request_id;
  const NodeId sender = m.header.sender;
  const bool keyed = (flags & msg_flags::kKeyed) != 0;
  std::vector<std::uint32_t> rows;
  if (keyed && (flags & msg_flags::kPullAfter)) rows = s.local_rows(m);
  if (s.is_duplicate(w, request)) {
    // A worker resent a push this range applied already (before a failover): exactly once.
    env_.metrics().event(env_.now(), "duplicate_push_ignored",
                         {{"range", r}, {"worker", w}, {"clock", clock}});
  } else {
    Message op;
    const bool replicated = !leads_.at(r).acked.empty();
    if (replicated) {
      op = m;
      op.header.op = ReplicaOp::kPush;
      op.header.subject = sender;
    }
    s.push(std::move(m), w);
    log_op(r, std::move(op));
    Lead& l = leads_.at(r);
    if (l.promoted_awaiting_push) {
      // The end of a failover as a worker sees it: the new primary applies pushes again.
      l.promoted_awaiting_push = false;
      env_.metrics().event(env_.now(), "failover_first_push",
                           {{"range", r}, {"server", "server:" + std::to_string(index_)}, {"worker", w}, {"clock", clock}});
    }
  }
  after_change(r);
  if (flags & msg_flags::kPullAfter)
    queue_pull({sender, r, clock + 1, request, keyed, std::move(rows), 0, PendingPull::Kind::kPull});
  if (flags & msg_flags::kAckRequested)
    queue_pull({sender, r, clock, request, false, {}, 0, PendingPull::Kind::kAck});
}

void Server::handle_pull(const Message& m, std::uint32_t w) {
  const std::uint32_t r = m.header.range;
  Shard& s = *shards_.at(r);
  const bool keyed = (m.header.flags & msg_flags::kKeyed) != 0;
  if (m.header.flags & msg_flags::kRejoin) {
    if (m.header.clock < 0) {
      queue_pull({m.header.sender, r, -1, m.header.request_id, false, {}, 0,
                  PendingPull::Kind::kClockProbe});
      return;
    }
    // A restarted worker counts again from this clock on, on every replica (through the log).
    membership_.dead_workers[w] = false;
    s.rejoin(w, m.header.clock);
    Message op;
    op.header.op = ReplicaOp::kWorkerRejoin;
    op.header.subject = m.header.sender;
    op.header.clock = m.header.clock;
    log_op(r, std::move(op));
    env_.metrics().event(env_.now(), "worker_rejoined_range",
                         {{"range", r}, {"worker", w}, {"clock", m.header.clock}});
    after_change(r);
  }
  PendingPull p{m.header.sender, r, m.header.clock, m.header.request_id, keyed, {}, 0,
                PendingPull::Kind::kPull};
  if (keyed) p.rows = s.local_rows(m);
  queue_pull(std::move(p));
}

void Server::handle_replicate(const Message& m) {
  const std::uint32_t r = m.header.range;
  Shard& s = *shards_.at(r);
  std::uint64_t& applied = applied_seq_[r];
  const std::uint64_t seq = m.header.seq;
  if (seq > applied + 1)
    throw ProtocolError("server " + std::to_string(index_) + ": replication log of key range " +
                        std::to_string(r) + " jumps from operation " + std::to_string(applied) +
                        " to " + std::to_string(seq));
  if (seq == applied + 1) {
    const ReplicaOp op = m.header.op;
    const NodeId worker = m.header.subject;
    if (op != ReplicaOp::kSnapshotTaken && !spec_.layout.is_worker(worker))
      throw ProtocolError("server: replicated " + std::string(replica_op_name(op)) +
                          " for node " + std::to_string(worker) + ", which is not a worker");
    const std::uint32_t w = op == ReplicaOp::kSnapshotTaken ? 0 : spec_.layout.worker_index(worker);
    switch (op) {
      case ReplicaOp::kPush: {
        Message push = m;
        push.header.type = MsgType::kPush;
        push.header.op = ReplicaOp::kNone;
        push.header.sender = worker;
        s.push(std::move(push), w);
        break;
      }
      case ReplicaOp::kWorkerDead:
        s.set_live(w, false);
        break;
      case ReplicaOp::kWorkerRejoin:
        s.rejoin(w, m.header.clock);
        break;
      case ReplicaOp::kSnapshotTaken:
        (void)s.snapshot(false);  // the primary reported the histogram so far
        break;
      case ReplicaOp::kNone:
        throw ProtocolError("server: replicate of key range " + std::to_string(r) +
                            " without an operation");
    }
    applied = seq;
  }
  acknowledge(r, m.header.sender, applied);
}

void Server::handle_state(const Message& m) {
  const std::uint32_t r = m.header.range;
  auto& shard = shards_[r];
  if (!shard) {
    // A new backup: rebuilt from the primary's state.
    const std::size_t floats = spec_.synthetic ? 0 : ranges_[r].size() * spec_.values_per_key();
    shard = std::make_unique<Shard>(env_, spec_, kernels_, r, ranges_[r], std::vector<float>(floats));
    env_.metrics().event(env_.now(), "replica_rebuilt",
                         {{"range", r}, {"server", "server:" + std::to_string(index_)}, {"from", m.header.sender}});
  }
  shard->set_reporting(false);
  shard->restore_state(m);
  applied_seq_[r] = m.header.seq;
  acknowledge(r, m.header.sender, m.header.seq);
}

void Server::acknowledge(std::uint32_t range, NodeId primary, std::uint64_t seq) {
  Message ack;
  ack.header.type = MsgType::kReplicaAck;
  ack.header.range = range;
  ack.header.seq = seq;
  ack.header.epoch = membership_.epoch;
  env_.send(primary, std::move(ack));
}

void Server::handle_ack(const Message& m) {
  const std::uint32_t r = m.header.range;
  if (!leads(r)) return;  // from before this server lost or gave up the range
  Lead& l = leads_.at(r);
  auto it = l.acked.find(m.header.sender);
  if (it == l.acked.end()) return;  // a backup that has since left the range
  it->second = std::max(it->second, m.header.seq);
  const auto sent = l.state_sent.find(m.header.sender);
  if (sent != l.state_sent.end() && m.header.seq >= sent->second) {
    // The backup holds the range now: the scheduler may promote it from here on.
    l.state_sent.erase(sent);
    Message synced;
    synced.header.type = MsgType::kReplicaAck;
    synced.header.range = r;
    synced.header.subject = m.header.sender;
    synced.header.epoch = membership_.epoch;
    env_.send(JobLayout::scheduler(), std::move(synced));
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
      applied_seq_.erase(r);
      continue;
    }
    const bool primary = membership_.primary(r) == self;
    if (primary && !leads(r)) {
      if (!shards_.count(r))
        throw std::runtime_error("server " + std::to_string(index_) + ": promoted to lead key range " +
                                 std::to_string(r) + " before it received the range's state");
      lead(r, /*promoted=*/true);
    } else if (primary) {
      // Still the primary: forget backups that left, rebuild the ones that joined.
      Lead& l = leads_.at(r);
      const auto& set = membership_.replicas[r];
      for (auto it = l.acked.begin(); it != l.acked.end();)
        it = std::find(set.begin() + 1, set.end(), it->first) == set.end() ? l.acked.erase(it) : std::next(it);
      for (std::size_t i = 1; i < set.size(); ++i)
        if (!l.acked.count(set[i])) send_state(r, set[i]);
    } else if (leads(r)) {
      leads_.erase(r);  // demoted: another server leads it now
      shards_.at(r)->set_reporting(false);
      applied_seq_[r] = 0;
    }
  }
  for (std::uint32_t w = 0; w < spec_.layout.workers; ++w) {
    if (!membership_.dead_workers[w] || before.dead_workers[w]) continue;
    // A dead worker leaves the barriers of every led range, at the same point on every replica.
    for (auto& [r, l] : leads_) {
      (void)l;
      shards_.at(r)->set_live(w, false);
      Message op;
      op.header.op = ReplicaOp::kWorkerDead;
      op.header.subject = spec_.layout.worker(w);
      log_op(r, std::move(op));
    }
  }
  for (auto& [r, l] : leads_) {
    (void)l;
    after_change(r);
    serve_ready(r, true);
  }
}

void Server::after_change(std::uint32_t range) {
  maybe_snapshot(range);
  maybe_checkpoint(range);
  serve_ready(range, false);
}

void Server::queue_pull(PendingPull p) {
  Lead& l = leads_.at(p.range);
  const Shard& s = *shards_.at(p.range);
  if (p.kind != PendingPull::Kind::kPull ||
      s.controller().can_serve_pull(spec_.layout.worker_index(p.worker), p.clock))
    release(l, std::move(p));
  else
    l.waiting.push_back(std::move(p));
}

void Server::release(Lead& l, PendingPull p) {
  // A reply shows the range as it is now, so it waits until every backup has all of it.
  p.needs_seq = l.seq;
  if (durable_seq(p.range) >= p.needs_seq) answer(p);
  else l.gated.push_back(std::move(p));
}

void Server::answer(const PendingPull& p) {
  Shard& s = *shards_.at(p.range);
  Message reply;
  switch (p.kind) {
    case PendingPull::Kind::kPull:
      reply = s.pull_reply(p.keyed, p.rows, p.clock, p.request_id);
      break;
    case PendingPull::Kind::kAck:
      reply.header.type = MsgType::kPushAck;
      reply.header.range = p.range;
      reply.header.clock = p.clock;
      reply.header.request_id = p.request_id;
      break;
    case PendingPull::Kind::kClockProbe:
      reply.header.type = MsgType::kPullReply;
      reply.header.flags = msg_flags::kRejoin;
      reply.header.range = p.range;
      reply.header.clock = -1;
      reply.header.version = s.clock();
      reply.header.request_id = p.request_id;
      break;
  }
  reply.header.epoch = membership_.epoch;
  env_.send(p.worker, std::move(reply));
}

void Server::serve_ready(std::uint32_t range, bool force_scan) {
  Lead& l = leads_.at(range);
  const Shard& s = *shards_.at(range);
  // Whether a waiting pull may be answered depends only on the range's clock (see
  // ConsistencyController::can_serve_pull), so the queue needs a look only when that clock
  // moved. Scanning on every push would cost W^2 per clock under BSP.
  if (!l.waiting.empty() && (force_scan || s.clock() != l.scanned_clock)) {
    l.scanned_clock = s.clock();
    std::vector<PendingPull> ready;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < l.waiting.size(); ++i) {
      if (s.controller().can_serve_pull(spec_.layout.worker_index(l.waiting[i].worker),
                                        l.waiting[i].clock))
        ready.push_back(std::move(l.waiting[i]));
      else if (kept++ != i)  // never self-move: it would empty the pull's key list
        l.waiting[kept - 1] = std::move(l.waiting[i]);
    }
    l.waiting.resize(kept);
    for (auto& p : ready) release(l, std::move(p));
  }
  if (l.gated.empty()) return;
  const std::uint64_t durable = durable_seq(range);
  std::size_t kept = 0;
  for (std::size_t i = 0; i < l.gated.size(); ++i) {
    if (l.gated[i].needs_seq <= durable) answer(l.gated[i]);
    else if (kept++ != i) l.gated[kept - 1] = std::move(l.gated[i]);
  }
  l.gated.resize(kept);
}

void Server::maybe_snapshot(std::uint32_t range) {
  Lead& l = leads_.at(range);
  Shard& s = *shards_.at(range);
  const std::int64_t clock = s.clock();
  if (clock == l.last_snapshot_clock || spec_.eval_every == 0) return;
  if (clock % static_cast<std::int64_t>(spec_.eval_every) != 0) return;
  l.last_snapshot_clock = clock;
  Message snap = s.snapshot(/*final=*/false);
  snap.header.epoch = membership_.epoch;
  env_.send(JobLayout::scheduler(), std::move(snap));
  if (!l.acked.empty()) {
    Message op;  // backups drop the histogram just reported, at the same point of the log
    op.header.op = ReplicaOp::kSnapshotTaken;
    log_op(range, std::move(op));
  }
}

void Server::maybe_checkpoint(std::uint32_t range) {
  CheckpointStore* store = env_.checkpoints();
  if (!store) return;
  Lead& l = leads_.at(range);
  const Shard& s = *shards_.at(range);
  const std::int64_t clock = s.clock();
  if (clock == l.last_checkpoint_clock) return;
  const auto every = static_cast<std::int64_t>(spec_.fault.checkpoint_every_clocks);
  const bool by_clock = every > 0 && clock % every == 0;
  const bool by_time = spec_.fault.checkpoint_every_s > 0 &&
                       env_.now() - l.last_checkpoint_time >= spec_.fault.checkpoint_every_s;
  if (!by_clock && !by_time) return;
  l.last_checkpoint_clock = clock;
  l.last_checkpoint_time = env_.now();
  ShardCheckpoint c;
  c.range = range;
  c.key_begin = s.keys().begin;
  c.key_count = s.keys().size();
  c.width = static_cast<std::uint32_t>(spec_.values_per_key());
  c.clock = clock;
  c.params = s.params();
  c.optimizer = s.optimizer_state();
  store->store(c);
  Message done;
  done.header.type = MsgType::kCheckpointDone;
  done.header.range = range;
  done.header.clock = clock;
  done.header.epoch = membership_.epoch;
  env_.send(JobLayout::scheduler(), std::move(done));
}

bool Server::try_finish(bool immediate) {
  if (!immediate)
    for (const auto& [r, l] : leads_) {
      (void)l;
      // After a normal finish a worker's last push may still be on its way: it travels on
      // another connection than the scheduler's stop. Wait for it; an abort stops at once.
      if (!shards_.at(r)->all_pushes_in()) return false;
    }
  std::size_t left = leads_.size();
  for (const auto& [r, l] : leads_) {
    (void)l;
    Message snap = shards_.at(r)->snapshot(/*final=*/true);
    snap.header.epoch = membership_.epoch;
    // The last message a server sends: its traffic report, where nodes count their own.
    if (--left == 0)
      if (const auto sent = env_.bytes_sent()) snap.data = nlohmann::json{{"bytes_sent", sent}}.dump();
    env_.send(JobLayout::scheduler(), std::move(snap));
  }
  return true;
}

}  // namespace pstwin
