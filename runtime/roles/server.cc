#include "runtime/roles/server.h"

#include <algorithm>
#include <deque>
#include <stdexcept>
#include <string>

#include "runtime/errors.h"

namespace pstwin {

namespace {
// Cost of touching n float32 parameters once for reading and once for writing (copies, zeroing).
Cost copy_cost(std::size_t n) { return Cost{0.0, 8.0 * static_cast<double>(n)}; }
}  // namespace

Server::Server(Env& env, const JobSpec& spec, std::uint32_t index, KernelBackend& kernels)
    : env_(env),
      spec_(spec),
      index_(index),
      kernels_(kernels),
      controller_(spec.consistency, spec.layout.workers),
      synthetic_(spec.synthetic.has_value()),
      width_(spec.values_per_key()),
      buffered_(spec.layout.workers),
      buffered_rows_(spec.layout.workers),
      buffered_version_(spec.layout.workers, 0),
      arrived_(spec.layout.workers, false) {}

void Server::run() {
  bool started = false;
  // Over a real network a worker's first pull can overtake the scheduler's start message (they
  // travel on different connections): such messages wait here until the start has arrived.
  std::deque<Message> early;
  const std::size_t max_early = 4 * static_cast<std::size_t>(spec_.layout.workers) + 16;
  for (;;) {
    std::optional<Message> msg;
    if (started && !early.empty()) {
      msg = std::move(early.front());
      early.pop_front();
    } else {
      msg = env_.recv(spec_.stall_timeout_s);
    }
    if (!msg)
      throw std::runtime_error("server " + std::to_string(index_) + ": nothing received for " +
                               std::to_string(spec_.stall_timeout_s) + " s");
    const auto type = msg->header.type;
    if (type == MsgType::kStart) {
      handle_start(*msg);
      started = true;
      continue;
    }
    if (!started) {
      if (early.size() >= max_early)
        throw ProtocolError("server " + std::to_string(index_) + ": " +
                            std::to_string(early.size()) + " messages before start");
      early.push_back(std::move(*msg));
      continue;
    }
    switch (type) {
      case MsgType::kPush:
        handle_push(std::move(*msg));
        if (stop_pending_ && all_pushes_in()) {
          send_snapshot(/*final=*/true);
          return;
        }
        break;
      case MsgType::kPull: {
        PendingPull p{msg->header.sender, msg->header.clock, msg->header.request_id, false, {}};
        if (msg->header.flags & msg_flags::kKeyed) {
          p.keyed = true;
          p.rows = local_rows(*msg);
        }
        queue_pull(std::move(p));
        break;
      }
      case MsgType::kStop:
        // After a normal finish a worker's last push may still be on its way: it travels on
        // another connection than the scheduler's stop. Wait for it; an abort stops at once.
        if (!(msg->header.flags & msg_flags::kDiverged) && !all_pushes_in()) {
          stop_pending_ = true;
          break;
        }
        send_snapshot(/*final=*/true);
        return;
      default:
        throw ProtocolError("server " + std::to_string(index_) + ": unexpected " +
                            std::string(msg_type_name(type)) + " from node " +
                            std::to_string(msg->header.sender));
    }
  }
}

void Server::handle_start(const Message& m) {
  if (m.keys.size() != 1 || m.lengths.size() != 1)
    throw ProtocolError("server start message must carry one key and one length");
  range_ = KeyRange{m.keys[0], m.keys[0] + m.lengths[0]};
  const std::size_t floats = synthetic_ ? 0 : range_.size() * width_;
  if (!synthetic_) {
    if (m.values.size() != floats)
      throw ProtocolError("server start message: " + std::to_string(m.values.size()) +
                          " initial values for a range of " + std::to_string(range_.size()) +
                          " keys of " + std::to_string(width_));
    params_ = m.values;
    aggregate_.assign(floats, 0.0f);
    if (spec_.sparse()) touched_.assign(range_.size(), false);
  }
  optimizer_ = std::make_unique<ServerOptimizer>(spec_.optimizer, spec_.learning_rate,
                                                 spec_.momentum, floats);
  maybe_snapshot();
}

std::vector<std::uint32_t> Server::local_rows(const Message& m) const {
  if (!spec_.sparse())
    throw ProtocolError("server " + std::to_string(index_) + ": keyed " +
                        std::string(msg_type_name(m.header.type)) + " for a dense model");
  std::vector<std::uint32_t> rows(m.keys.size());
  for (std::size_t j = 0; j < m.keys.size(); ++j) {
    if (!range_.contains(m.keys[j]) || (j > 0 && m.keys[j] <= m.keys[j - 1]))
      throw ProtocolError("server " + std::to_string(index_) + ": keyed " +
                          std::string(msg_type_name(m.header.type)) + " from node " +
                          std::to_string(m.header.sender) + " has key " +
                          std::to_string(m.keys[j]) + " out of order or outside the shard [" +
                          std::to_string(range_.begin) + ", " + std::to_string(range_.end) + ")");
    rows[j] = static_cast<std::uint32_t>(m.keys[j] - range_.begin);
  }
  return rows;
}

void Server::handle_push(Message m) {
  const NodeId sender = m.header.sender;
  if (!spec_.layout.is_worker(sender))
    throw ProtocolError("server " + std::to_string(index_) + ": push from non-worker node " +
                        std::to_string(sender));
  const std::uint32_t w = spec_.layout.worker_index(sender);
  const bool keyed = (m.header.flags & msg_flags::kKeyed) != 0;
  std::vector<std::uint32_t> rows;
  if (keyed) rows = local_rows(m);
  else if (spec_.sparse())
    throw ProtocolError("server " + std::to_string(index_) + ": whole-shard push from worker " +
                        std::to_string(w) + " for a sparse model");
  // Timing-only pushes carry virtual values; over a real wire they arrive as zeros to ignore.
  if (synthetic_ && m.values.size() + m.virtual_values == range_.size()) m.values.clear();
  const std::size_t expected = synthetic_ ? 0 : (keyed ? rows.size() : range_.size()) * width_;
  if (m.values.size() != expected)
    throw ProtocolError("server " + std::to_string(index_) + ": push from worker " +
                        std::to_string(w) + " has " + std::to_string(m.values.size()) +
                        " values, expected " + std::to_string(expected));
  const std::int64_t clock = m.header.clock;
  const std::int64_t version = m.header.version;
  // Staleness is measured against the shard's clock before this push counts toward it.
  const std::int64_t shard_clock = controller_.clock();
  const PushAction action = controller_.on_push(w, clock);
  switch (action) {
    case PushAction::kApply:
      // ASP/SSP: each worker's gradient is one W-th of a synchronous step.
      apply_one(m, rows, shard_clock - version, 1.0 / spec_.layout.workers);
      break;
    case PushAction::kBuffer:
    case PushAction::kBarrierReached:
      buffered_[w] = std::move(m.values);
      buffered_rows_[w] = rows;
      buffered_version_[w] = version;
      arrived_[w] = true;
      if (action == PushAction::kBarrierReached) apply_barrier();
      break;
    case PushAction::kDrop:
      env_.metrics().event(env_.now(), "gradient_dropped",
                           {{"server", index_}, {"worker", w}, {"clock", clock}});
      break;
  }
  // A keyed push-pull asks for the rows it pushed (the worker normally sends a kPull instead).
  maybe_snapshot();
  serve_ready_pulls();
  if (m.header.flags & msg_flags::kPullAfter)
    queue_pull({sender, clock + 1, m.header.request_id, keyed, std::move(rows)});
}

void Server::apply_one(const Message& m, const std::vector<std::uint32_t>& rows,
                       std::int64_t staleness, double scale) {
  record_staleness(staleness);
  if (synthetic_) {
    // Timing-only: charge what the SGD update of this shard would cost (w -= a*g: 2 flops, and
    // 12 bytes moved, per key).
    const double n = static_cast<double>(range_.size());
    env_.account(Cost{2.0 * n, 12.0 * n});
    return;
  }
  if (m.header.flags & msg_flags::kKeyed)
    env_.account(optimizer_->apply_rows(kernels_, params_.data(), m.values.data(), rows.data(),
                                        rows.size(), width_, scale));
  else
    env_.account(optimizer_->apply(kernels_, params_.data(), m.values.data(), scale));
}

void Server::apply_barrier() {
  // The controller has advanced past the barrier's clock; staleness is measured against it.
  const std::int64_t barrier_clock = controller_.clock() - 1;
  std::uint32_t count = 0;
  Cost cost;
  for (std::uint32_t w = 0; w < arrived_.size(); ++w)
    if (arrived_[w]) ++count;
  for (std::uint32_t w = 0; w < arrived_.size(); ++w)
    if (arrived_[w]) record_staleness(barrier_clock - buffered_version_[w]);
  if (synthetic_) {
    // Timing-only: what summing `count` gradients and one SGD step would cost.
    const double n = static_cast<double>(range_.size());
    for (std::uint32_t i = 0; i <= count; ++i) cost += Cost{2.0 * n, 12.0 * n};
  } else if (spec_.sparse()) {
    apply_keyed_barrier(count, cost);
  } else {
    std::fill(aggregate_.begin(), aggregate_.end(), 0.0f);
    cost += copy_cost(aggregate_.size());
    // Sum in worker-index order, whatever the arrival order, so the result is reproducible.
    for (std::uint32_t w = 0; w < arrived_.size(); ++w)
      if (arrived_[w])
        cost += kernels_.axpy(aggregate_.data(), buffered_[w].data(), aggregate_.size(),
                              1.0f / static_cast<float>(count));
    cost += optimizer_->apply(kernels_, params_.data(), aggregate_.data(), 1.0);
  }
  for (std::uint32_t w = 0; w < arrived_.size(); ++w) {
    if (!arrived_[w]) continue;
    buffered_[w].clear();
    buffered_rows_[w].clear();
    arrived_[w] = false;
  }
  env_.account(cost);
}

void Server::apply_keyed_barrier(std::uint32_t count, Cost& cost) {
  // Each key's rows summed over workers in worker-index order into aggregate_ (all zeros between
  // barriers), then one optimizer step on the rows any worker touched.
  std::vector<std::uint32_t> rows;
  for (std::uint32_t w = 0; w < arrived_.size(); ++w) {
    if (!arrived_[w]) continue;
    const auto& wrows = buffered_rows_[w];
    for (std::size_t j = 0; j < wrows.size(); ++j) {
      const std::uint32_t r = wrows[j];
      if (!touched_[r]) {
        touched_[r] = true;
        rows.push_back(r);
      }
      cost += kernels_.axpy(aggregate_.data() + r * width_, buffered_[w].data() + j * width_,
                            width_, 1.0f / static_cast<float>(count));
    }
  }
  std::sort(rows.begin(), rows.end());
  std::vector<float> grad(rows.size() * width_);
  for (std::size_t j = 0; j < rows.size(); ++j) {
    float* agg = aggregate_.data() + rows[j] * width_;
    std::copy(agg, agg + width_, grad.begin() + static_cast<long>(j * width_));
    std::fill(agg, agg + width_, 0.0f);
    touched_[rows[j]] = false;
  }
  cost += copy_cost(2 * grad.size());  // gather the sums, and zero them for the next barrier
  cost += optimizer_->apply_rows(kernels_, params_.data(), grad.data(), rows.data(), rows.size(),
                                 width_, 1.0);
}

void Server::record_staleness(std::int64_t staleness) {
  const auto s = static_cast<std::size_t>(staleness < 0 ? 0 : staleness);
  if (staleness_counts_.size() <= s) staleness_counts_.resize(s + 1, 0);
  ++staleness_counts_[s];
}

bool Server::all_pushes_in() const {
  for (std::uint32_t w = 0; w < spec_.layout.workers; ++w)
    if (controller_.pushes(w) < static_cast<std::int64_t>(spec_.iterations)) return false;
  return true;
}

void Server::queue_pull(PendingPull p) {
  if (controller_.can_serve_pull(spec_.layout.worker_index(p.worker), p.clock))
    send_pull_reply(p);
  else
    pending_.push_back(std::move(p));
}

void Server::serve_ready_pulls() {
  // Whether a queued pull may be answered depends only on the shard clock (see
  // ConsistencyController::can_serve_pull), so the queue needs a look only when that clock
  // moved. Scanning on every push would cost W^2 per clock under BSP.
  if (pending_.empty() || controller_.clock() == scanned_clock_) return;
  scanned_clock_ = controller_.clock();
  std::size_t kept = 0;
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    if (controller_.can_serve_pull(spec_.layout.worker_index(pending_[i].worker), pending_[i].clock))
      send_pull_reply(pending_[i]);
    else if (kept++ != i)  // never self-move: it would empty the pull's key list
      pending_[kept - 1] = std::move(pending_[i]);
  }
  pending_.resize(kept);
}

void Server::send_pull_reply(const PendingPull& p) {
  Message reply;
  reply.header.type = MsgType::kPullReply;
  reply.header.flags = p.keyed ? msg_flags::kKeyed : msg_flags::kWholeShard;
  reply.header.request_id = p.request_id;
  reply.header.shard = index_;
  reply.header.clock = p.clock;
  reply.header.version = controller_.clock();
  if (synthetic_) {
    reply.virtual_values = range_.size();
  } else if (p.keyed) {
    reply.values.resize(p.rows.size() * width_);
    for (std::size_t j = 0; j < p.rows.size(); ++j)
      std::copy_n(params_.begin() + static_cast<long>(p.rows[j] * width_), width_,
                  reply.values.begin() + static_cast<long>(j * width_));
    env_.account(copy_cost(reply.values.size()));
  } else {
    reply.values = params_;
    env_.account(copy_cost(params_.size()));
  }
  env_.send(p.worker, std::move(reply));
}

void Server::maybe_snapshot() {
  const std::int64_t clock = controller_.clock();
  if (clock == last_snapshot_clock_ || spec_.eval_every == 0) return;
  if (clock % static_cast<std::int64_t>(spec_.eval_every) != 0) return;
  last_snapshot_clock_ = clock;
  send_snapshot(/*final=*/false);
}

void Server::send_snapshot(bool final) {
  Message snap;
  snap.header.type = MsgType::kSnapshot;
  snap.header.flags = msg_flags::kWholeShard | (final ? msg_flags::kFinal : 0u);
  snap.header.shard = index_;
  snap.header.clock = controller_.clock();
  snap.header.version = controller_.clock();
  // When the shard reached this clock: the evaluation's time, however late the scheduler gets
  // to it.
  snap.header.request_id = static_cast<std::uint64_t>(std::max(0.0, env_.now()) * 1e6);
  if (!synthetic_) snap.values = params_;
  // The scheduler turns these into the run's staleness and update counts, in every environment.
  for (std::size_t s = 0; s < staleness_counts_.size(); ++s) {
    if (staleness_counts_[s] == 0) continue;
    snap.keys.push_back(s);
    snap.lengths.push_back(staleness_counts_[s]);
  }
  staleness_counts_.clear();
  // The last message a server sends: its traffic report, where nodes count their own.
  if (final)
    if (const auto sent = env_.bytes_sent()) snap.data = nlohmann::json{{"bytes_sent", sent}}.dump();
  env_.send(JobLayout::scheduler(), std::move(snap));
}

}  // namespace pstwin
