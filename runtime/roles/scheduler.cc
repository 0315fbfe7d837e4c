#include "runtime/roles/scheduler.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include <openssl/evp.h>

#include "runtime/errors.h"

namespace pstwin {

Scheduler::Scheduler(Env& env, const JobSpec& spec, KernelBackend& kernels)
    : env_(env), spec_(spec), kernels_(kernels) {}

std::string Scheduler::params_sha256(const std::vector<float>& params) {
  // Little-endian float32 bytes in key order; this machine's order is little-endian, asserted
  // at compile time below rather than converted at run time.
  static_assert(sizeof(float) == 4);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(params.data(), params.size() * sizeof(float), digest, &len, EVP_sha256(), nullptr);
  std::string hex;
  char buf[3];
  for (unsigned int i = 0; i < len; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", digest[i]);
    hex += buf;
  }
  return hex;
}

void Scheduler::start_job() {
  const std::uint64_t n = spec_.num_parameters();
  const std::uint64_t w = spec_.values_per_key();  // floats per key: ranges count keys
  ranges_ = range_partition(spec_.num_keys(), spec_.layout.servers);
  std::vector<float> init;
  if (!spec_.synthetic && !spec_.resume) {
    init.assign(n, 0.0f);
    spec_.model->init(init.data(), env_.rng());
  }
  // Every replica of a range starts from the same values (or the same checkpoint).
  for (std::uint32_t r = 0; r < ranges_.size(); ++r) {
    for (NodeId server : membership_.replicas[r]) {
      Message m;
      m.header.type = MsgType::kStart;
      m.header.range = r;
      m.keys = {ranges_[r].begin};
      m.lengths = {static_cast<std::uint32_t>(ranges_[r].size())};
      if (spec_.resume) {
        const ResumePoint& rp = *spec_.resume;
        m.values = rp.params.at(r);
        m.values.insert(m.values.end(), rp.optimizer_first.at(r).begin(), rp.optimizer_first.at(r).end());
        m.values.insert(m.values.end(), rp.optimizer_second.at(r).begin(), rp.optimizer_second.at(r).end());
        m.data = nlohmann::json{{"clock", rp.clock},
                                {"opt_first", rp.optimizer_first.at(r).size()},
                                {"opt_second", rp.optimizer_second.at(r).size()},
                                {"opt_steps", rp.optimizer_steps.at(r)}}.dump();
      } else if (spec_.synthetic) {
        m.virtual_values = ranges_[r].size();
      } else {
        m.values.assign(init.begin() + static_cast<long>(ranges_[r].begin * w),
                        init.begin() + static_cast<long>(ranges_[r].end * w));
      }
      env_.send(server, std::move(m));
    }
  }
  for (std::uint32_t wi = 0; wi < spec_.layout.workers; ++wi)
    env_.send(spec_.layout.worker(wi), worker_start());
}

Message Scheduler::worker_start() const {
  Message m;
  m.header.type = MsgType::kStart;
  for (std::uint32_t r = 0; r < ranges_.size(); ++r) {
    m.keys.push_back(r);
    m.lengths.push_back(static_cast<std::uint32_t>(ranges_[r].size()));
  }
  return m;
}

void Scheduler::stop_now(NodeId node) {
  Message stop;
  stop.header.type = MsgType::kStop;
  stop.header.flags = msg_flags::kStopNow;
  env_.send(node, std::move(stop));
}

std::string Scheduler::node_name(NodeId n) const {
  if (n == JobLayout::scheduler()) return "scheduler";
  if (spec_.layout.is_server(n)) return "server:" + std::to_string(spec_.layout.server_index(n));
  return "worker:" + std::to_string(spec_.layout.worker_index(n));
}

bool Scheduler::all_workers_finished() const {
  return std::all_of(worker_finished_.begin(), worker_finished_.end(), [](bool f) { return f; });
}

void Scheduler::run() {
  const JobLayout& layout = spec_.layout;
  worker_finished_.assign(layout.workers, false);
  worker_done_.assign(layout.workers, false);
  membership_ = initial_membership(spec_);
  last_seen_.assign(layout.nodes(), env_.now());
  dead_.assign(layout.nodes(), false);
  stop_sent_.assign(layout.nodes(), false);
  final_got_.assign(layout.servers, false);
  unsynced_.assign(layout.servers, {});
  for (const auto& r : range_partition(spec_.num_keys(), layout.servers))
    if (r.size() > 0xffffffffULL)
      throw std::invalid_argument("a server's key range exceeds 2^32 keys; add servers");
  start_job();
  final_.params.assign(spec_.synthetic ? 0 : spec_.num_parameters(), 0.0f);
  last_activity_ = env_.now();
  while (finals_ < layout.servers) {
    // With heartbeats, wake up in time to notice the first node that falls silent.
    double wait = spec_.stall_timeout_s - (env_.now() - last_activity_);
    if (spec_.fault.enabled) wait = std::min(wait, spec_.fault.heartbeat_interval_s);
    auto m = wait > 0 ? env_.recv(wait) : std::nullopt;
    if (m && m->header.sender < layout.nodes()) last_seen_[m->header.sender] = env_.now();
    if (m && m->header.type != MsgType::kHeartbeat) last_activity_ = env_.now();
    if (all_workers_dead_since_ && env_.now() - *all_workers_dead_since_ >= spec_.stall_timeout_s) {
      reason_ = "all " + std::to_string(layout.workers) + " workers failed before any finished, and none came back within " +
                std::to_string(spec_.stall_timeout_s) + " s; training stopped after clock " +
                std::to_string(std::max<std::int64_t>(last_eval_clock_, 0)) + " of " +
                std::to_string(spec_.iterations);
      env_.metrics().event(env_.now(), "job_lost", {{"reason", reason_}});
      stop_all(true);
      throw std::runtime_error(reason_);
    }
    if (!m && !all_workers_dead_since_ && env_.now() - last_activity_ >= spec_.stall_timeout_s)
      throw std::runtime_error("scheduler: nothing received for " +
                               std::to_string(spec_.stall_timeout_s) +
                               " s; a role is stuck or gone");
    if (spec_.fault.enabled) check_heartbeats();
    if (!m) continue;
    // A node declared dead is fenced: what it still sends (it was only cut off) is ignored,
    // until it rejoins as a new process.
    if (m->header.sender < layout.nodes() && dead_[m->header.sender] &&
        m->header.type != MsgType::kRejoin)
      continue;
    switch (m->header.type) {
      case MsgType::kHeartbeat:
        break;
      case MsgType::kSnapshot:
        absorb_staleness(*m);
        if (m->header.flags & msg_flags::kFinal) handle_final(*m);
        else if (!diverged_) handle_snapshot(*m);  // ones in flight when workers finished count too
        break;
      case MsgType::kWorkerDone:
        absorb_traffic_report(*m);
        worker_finished_.at(layout.worker_index(m->header.sender)) = true;
        worker_done_.at(layout.worker_index(m->header.sender)) = true;
        if (all_workers_finished() && !stopping_) stop_all(false);
        break;
      case MsgType::kAbort:
        if (!stopping_) {
          diverged_ = true;
          reason_ = "training diverged: worker " +
                    std::to_string(layout.worker_index(m->header.sender)) +
                    " saw a non-finite mini-batch loss at clock " +
                    std::to_string(m->header.clock);
          env_.metrics().event(env_.now(), "diverged",
                               {{"worker", layout.worker_index(m->header.sender)},
                                {"clock", m->header.clock}});
          stop_all(true);
        }
        break;
      case MsgType::kRejoin:
        handle_rejoin(*m);
        break;
      case MsgType::kCheckpointDone:
        handle_checkpoint_done(*m);
        break;
      case MsgType::kReplicaAck:
        // A primary confirms that a new backup holds its range.
        if (m->header.range < unsynced_.size())
          std::erase(unsynced_[m->header.range], m->header.subject);
        break;
      default:
        throw ProtocolError("scheduler: unexpected " +
                            std::string(msg_type_name(m->header.type)) + " from node " +
                            std::to_string(m->header.sender));
    }
  }
  if (!diverged_ && final_clock_ != last_eval_clock_ &&
      !evaluate(final_clock_, final_.params, final_.time_s)) {
    diverged_ = true;
    reason_ = "training diverged: non-finite loss at the final clock " + std::to_string(final_clock_);
    env_.metrics().event(env_.now(), "diverged", {{"clock", final_clock_}});
  }
  env_.metrics().finish(params_sha256(final_.params), diverged_, reason_);
}

void Scheduler::handle_final(const Message& m) {
  absorb_traffic_report(m);
  const std::uint32_t r = m.header.range;
  if (r >= ranges_.size())
    throw ProtocolError("scheduler: final snapshot of unknown key range " + std::to_string(r));
  if (final_got_[r]) return;  // a promoted primary's second final
  const KeyRange& kr = ranges_[r];
  if (!spec_.synthetic) {
    if (m.values.size() != kr.size() * spec_.values_per_key())
      throw ProtocolError("scheduler: final snapshot size does not match its range");
    std::copy(m.values.begin(), m.values.end(),
              final_.params.begin() + static_cast<long>(kr.begin * spec_.values_per_key()));
  }
  final_clock_ = finals_ == 0 ? m.header.clock : std::min(final_clock_, m.header.clock);
  final_.time_s = std::max(final_.time_s, snapshot_time(m));
  final_got_[r] = true;
  ++finals_;
}

void Scheduler::check_heartbeats() {
  const double now = env_.now();
  for (NodeId n = 1; n < spec_.layout.nodes(); ++n) {
    if (dead_[n]) continue;
    if (spec_.layout.is_worker(n) && worker_finished_[spec_.layout.worker_index(n)]) continue;
    if (spec_.layout.is_server(n) && stop_sent_[n]) {
      // A stopped server exits once its finals are out; only a primary still owing one counts.
      bool owes = false;
      for (std::uint32_t r = 0; r < membership_.replicas.size(); ++r)
        owes = owes || (!final_got_[r] && membership_.primary(r) == n);
      if (!owes) continue;
    }
    if (now - last_seen_[n] > spec_.fault.heartbeat_timeout_s) declare_dead(n);
  }
}

void Scheduler::declare_dead(NodeId node, bool tell_it) {
  const JobLayout& layout = spec_.layout;
  dead_[node] = true;
  env_.metrics().event(env_.now(), "node_dead",
                       {{"node", node_name(node)},
                        {"silent_s", env_.now() - last_seen_[node]},
                        {"why", tell_it ? "heartbeat timeout" : "restarted"}});
  // If it is only cut off rather than gone, it must not act on its own any more.
  if (tell_it) stop_now(node);
  if (layout.is_worker(node)) {
    const std::uint32_t w = layout.worker_index(node);
    worker_finished_[w] = true;
    membership_.dead_workers[w] = true;
    ++membership_.epoch;
    broadcast_membership();
    after_worker_death();
    return;
  }
  stop_sent_[node] = true;
  std::vector<std::uint32_t> lost;
  for (std::uint32_t r = 0; r < membership_.replicas.size(); ++r) {
    auto& set = membership_.replicas[r];
    const auto it = std::find(set.begin(), set.end(), node);
    if (it == set.end()) continue;
    const bool was_primary = it == set.begin();
    set.erase(it);
    std::erase(unsynced_[r], node);
    if (was_primary) {
      // Only a backup that holds the state can lead; one still being rebuilt cannot.
      const auto synced = std::find_if(set.begin(), set.end(), [&](NodeId n) {
        return std::find(unsynced_[r].begin(), unsynced_[r].end(), n) == unsynced_[r].end();
      });
      if (synced == set.end()) {
        lost.push_back(r);
        continue;
      }
      std::rotate(set.begin(), synced, synced + 1);
    }
    if (set.empty()) {
      lost.push_back(r);
      continue;
    }
    if (was_primary)
      env_.metrics().event(env_.now(), "promoted",
                           {{"range", r}, {"server", node_name(set.front())}});
  }
  if (!lost.empty()) {
    std::string ranges;
    for (auto r : lost) {
      if (!ranges.empty()) ranges += ", ";
      ranges.append("range ").append(std::to_string(r)).append(" (keys [")
          .append(std::to_string(ranges_[r].begin)).append(", ")
          .append(std::to_string(ranges_[r].end)).append("))");
    }
    reason_ = node_name(node) + " failed and no live replica holds " + ranges +
              " (replication " + std::to_string(spec_.fault.replication) +
              "): their parameters are lost";
    env_.metrics().event(env_.now(), "job_lost", {{"reason", reason_}, {"ranges", lost}});
    stop_all(true);
    throw std::runtime_error(reason_);
  }
  refill_replicas();
  ++membership_.epoch;
  broadcast_membership();
  // Stopping already: a newly promoted primary owes the final snapshot of its new range.
  if (servers_stopped_)
    for (const auto& set : membership_.replicas) stop_server(set.front(), diverged_);
}

void Scheduler::after_worker_death() {
  if (!all_workers_finished() || stopping_) return;
  if (std::find(worker_done_.begin(), worker_done_.end(), true) != worker_done_.end()) {
    stop_all(false);  // the survivors did all their clocks
    return;
  }
  all_workers_dead_since_ = env_.now();
  last_activity_ = env_.now();  // the wait for a rejoin starts now
  env_.metrics().event(env_.now(), "all_workers_dead", {{"clock", last_eval_clock_}});
}

void Scheduler::refill_replicas() {
  const JobLayout& layout = spec_.layout;
  std::vector<std::uint32_t> load(layout.nodes(), 0);
  for (const auto& set : membership_.replicas)
    for (NodeId n : set) ++load[n];
  for (std::uint32_t r = 0; r < membership_.replicas.size(); ++r) {
    auto& set = membership_.replicas[r];
    while (set.size() < spec_.fault.replication) {
      NodeId best = 0;
      for (std::uint32_t s = 0; s < layout.servers; ++s) {
        const NodeId n = layout.server(s);
        if (dead_[n] || stop_sent_[n] || std::find(set.begin(), set.end(), n) != set.end()) continue;
        if (best == 0 || load[n] < load[best]) best = n;
      }
      if (best == 0) break;  // no spare server now; a restarted one will fill the gap
      set.push_back(best);
      unsynced_[r].push_back(best);
      ++load[best];
      env_.metrics().event(env_.now(), "backup_assigned", {{"range", r}, {"server", node_name(best)}});
    }
  }
}

void Scheduler::broadcast_membership() {
  const Message m = membership_.to_message();
  for (NodeId n = 1; n < spec_.layout.nodes(); ++n) {
    if (dead_[n]) continue;
    if (spec_.layout.is_worker(n) && worker_finished_[spec_.layout.worker_index(n)]) continue;
    if (spec_.layout.is_server(n) && stop_sent_[n]) continue;
    env_.send(n, m);
  }
}

void Scheduler::handle_rejoin(const Message& m) {
  const NodeId node = m.header.sender;
  const JobLayout& layout = spec_.layout;
  if (!spec_.fault.enabled || stopping_ || node == 0 || node >= layout.nodes()) {
    stop_now(node);
    return;
  }
  // Restarted before its silence gave it away: its former process is dead all the same, and a
  // server's ranges must fail over before it comes back empty.
  if (!dead_[node] && layout.is_server(node)) declare_dead(node, /*tell_it=*/false);
  dead_[node] = false;
  last_seen_[node] = env_.now();
  env_.metrics().event(env_.now(), "node_rejoined", {{"node", node_name(node)}});
  if (layout.is_worker(node)) {
    const std::uint32_t w = layout.worker_index(node);
    worker_finished_[w] = false;
    all_workers_dead_since_.reset();
    membership_.dead_workers[w] = false;
    ++membership_.epoch;
    broadcast_membership();  // the rejoining worker included: it routes by it
    env_.send(node, worker_start());
    return;
  }
  // A restarted server holds nothing: it becomes a backup where one is missing.
  stop_sent_[node] = false;
  refill_replicas();
  ++membership_.epoch;
  broadcast_membership();
}

void Scheduler::handle_checkpoint_done(const Message& m) {
  auto& got = checkpoint_ranges_[m.header.clock];
  if (got.empty()) got.assign(ranges_.size(), false);
  if (m.header.range >= got.size())
    throw ProtocolError("scheduler: checkpoint of unknown key range " + std::to_string(m.header.range));
  got[m.header.range] = true;
  if (!std::all_of(got.begin(), got.end(), [](bool b) { return b; })) return;
  checkpoint_ranges_.erase(m.header.clock);
  if (CheckpointStore* store = env_.checkpoints())
    store->complete(m.header.clock, static_cast<std::uint32_t>(ranges_.size()), env_.now());
  env_.metrics().event(env_.now(), "checkpoint", {{"clock", m.header.clock}});
}

void Scheduler::absorb_traffic_report(const Message& m) {
  if (m.data.empty()) return;
  try {
    reported_bytes_sent_ += nlohmann::json::parse(m.data).at("bytes_sent").get<std::uint64_t>();
  } catch (const nlohmann::json::exception& e) {
    throw ProtocolError("scheduler: bad traffic report from node " +
                        std::to_string(m.header.sender) + ": " + e.what());
  }
}

double Scheduler::snapshot_time(const Message& m) {
  return static_cast<double>(m.header.time_us) * 1e-6;
}

void Scheduler::absorb_staleness(const Message& m) {
  if (m.keys.size() != m.lengths.size())
    throw ProtocolError("scheduler: snapshot staleness histogram has " +
                        std::to_string(m.keys.size()) + " values but " +
                        std::to_string(m.lengths.size()) + " counts");
  std::uint64_t applied = 0;
  for (std::size_t i = 0; i < m.keys.size(); ++i) {
    env_.metrics().staleness(static_cast<std::int64_t>(m.keys[i]), m.lengths[i]);
    applied += m.lengths[i];
  }
  // Every shard applies every gradient; shard 0's count is the job's count of updates.
  if (m.header.range == 0) env_.metrics().updates_applied(applied);
}

void Scheduler::handle_snapshot(const Message& m) {
  const std::int64_t clock = m.header.clock;
  if (clock <= last_eval_clock_) return;  // a promoted primary's repeat of an evaluated clock
  Assembly& a = assemblies_[clock];
  if (a.seen.empty()) a.seen.assign(ranges_.size(), false);
  if (m.header.range >= a.seen.size())
    throw ProtocolError("scheduler: snapshot of unknown key range " + std::to_string(m.header.range));
  if (a.seen[m.header.range]) return;
  a.seen[m.header.range] = true;
  if (!spec_.synthetic) {
    if (a.params.empty()) a.params.assign(spec_.num_parameters(), 0.0f);
    const KeyRange& r = ranges_.at(m.header.range);
    const std::uint64_t w = spec_.values_per_key();
    if (m.values.size() != r.size() * w)
      throw ProtocolError("scheduler: snapshot size does not match its range");
    std::copy(m.values.begin(), m.values.end(), a.params.begin() + static_cast<long>(r.begin * w));
  }
  a.time_s = std::max(a.time_s, snapshot_time(m));
  if (++a.shards < spec_.layout.servers) return;
  std::vector<float> params = std::move(a.params);
  const double time_s = a.time_s;
  assemblies_.erase(clock);
  if (!evaluate(clock, params, time_s)) {
    diverged_ = true;
    reason_ = "training diverged: non-finite loss at global clock " + std::to_string(clock);
    env_.metrics().event(env_.now(), "diverged", {{"clock", clock}});
    stop_all(true);
  }
}

bool Scheduler::evaluate(std::int64_t clock, const std::vector<float>& params, double time_s) {
  last_eval_clock_ = clock;
  EvalRow row;
  row.time_s = time_s;
  row.clock = clock;
  if (spec_.synthetic) {
    row.train_loss = row.test_loss = row.test_metric = std::nan("");
    env_.metrics().eval(row);
    return true;
  }
  const double reg = spec_.model->regularizer(params.data());
  LossStats train;
  spec_.model->evaluate(kernels_, *spec_.train,
                        RowSelection{spec_.train_eval_rows.data(), spec_.train_eval_rows.size()},
                        params.data(), &train);
  std::vector<std::uint32_t> all(spec_.test->rows);
  for (std::uint32_t i = 0; i < all.size(); ++i) all[i] = i;
  LossStats test;
  spec_.model->evaluate(kernels_, *spec_.test, RowSelection{all.data(), all.size()},
                        params.data(), &test);
  row.train_loss = train.count ? train.loss_sum / static_cast<double>(train.count) + reg : reg;
  row.test_loss = test.count ? test.loss_sum / static_cast<double>(test.count) + reg : reg;
  row.test_metric = spec_.model->metric(test);  // accuracy, or RMSE for mf
  const bool finite = std::isfinite(row.train_loss) && std::isfinite(row.test_loss);
  if (finite) env_.metrics().eval(row);
  return finite;
}

void Scheduler::stop_server(NodeId node, bool immediate) {
  if (stop_sent_[node] || dead_[node]) return;
  stop_sent_[node] = true;
  Message m;
  m.header.type = MsgType::kStop;
  // A normal stop lets each server first take the pushes still in flight to it; a stop for
  // divergence (or any abort) is immediate.
  if (immediate) m.header.flags = msg_flags::kStopNow;
  env_.send(node, std::move(m));
}

void Scheduler::stop_all(bool include_workers) {
  stopping_ = true;
  if (include_workers) assemblies_.clear();  // diverged: nothing more is worth evaluating
  // Each node is told once: a node that already stopped, or a worker that finished, is gone,
  // and on a real network a send to it would wait out the send timeout.
  if (!servers_stopped_) {
    servers_stopped_ = true;
    for (std::uint32_t s = 0; s < spec_.layout.servers; ++s)
      stop_server(spec_.layout.server(s), include_workers);
  }
  if (!include_workers) return;
  for (std::uint32_t w = 0; w < spec_.layout.workers; ++w) {
    if (worker_finished_[w]) continue;
    worker_finished_[w] = true;
    Message m;
    m.header.type = MsgType::kStop;
    env_.send(spec_.layout.worker(w), std::move(m));
  }
}

}  // namespace pstwin
