#include "runtime/roles/shard.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "runtime/errors.h"
#include "runtime/count_text.h"

namespace pstwin {

namespace {
// Cost of touching n float32 parameters once for reading and once for writing (copies, zeroing).
Cost copy_cost(std::size_t n) { return Cost{0.0, 8.0 * static_cast<double>(n)}; }
}  // namespace

Shard::Shard(Env& env, const JobSpec& spec, KernelBackend& kernels, std::uint32_t range,
             KeyRange keys, std::vector<float> params)
    : env_(env),
      spec_(spec),
      kernels_(kernels),
      range_(range),
      keys_(keys),
      synthetic_(spec.synthetic.has_value()),
      width_(spec.values_per_key()),
      controller_(spec.consistency, spec.pushers()),
      buffered_(spec.pushers()),
      buffered_rows_(spec.pushers()),
      buffered_version_(spec.pushers(), 0),
      arrived_(spec.pushers(), false),
      last_request_(spec.pushers(), 0) {
  const std::size_t floats = synthetic_ ? 0 : keys_.size() * width_;
  if (!synthetic_) {
    if (params.size() != floats)
      throw ProtocolError(where() + ": " + std::to_string(params.size()) +
                          " initial values for a range of " + std::to_string(keys_.size()) +
                          " keys of " + std::to_string(width_));
    params_ = std::move(params);
    aggregate_.assign(floats, 0.0f);
    if (spec_.sparse()) touched_.assign(keys_.size(), false);
  }
  optimizer_ = std::make_unique<ServerOptimizer>(spec_.optimizer, spec_.learning_rate,
                                                 spec_.momentum, floats);
}

std::string Shard::where() const {
  return std::string("key range ").append(std::to_string(range_));
}

std::vector<std::uint32_t> Shard::local_rows(const Message& m) const {
  if (!spec_.sparse())
    throw ProtocolError(where() + ": keyed " + std::string(msg_type_name(m.header.type)) +
                        " for a dense model");
  std::vector<std::uint32_t> rows(m.keys.size());
  for (std::size_t j = 0; j < m.keys.size(); ++j) {
    if (!keys_.contains(m.keys[j]) || (j > 0 && m.keys[j] <= m.keys[j - 1]))
      throw ProtocolError(where() + ": keyed " + std::string(msg_type_name(m.header.type)) +
                          " from node " + std::to_string(m.header.sender) + " has key " +
                          std::to_string(m.keys[j]) + " out of order or outside [" +
                          std::to_string(keys_.begin) + ", " + std::to_string(keys_.end) + ")");
    rows[j] = static_cast<std::uint32_t>(m.keys[j] - keys_.begin);
  }
  return rows;
}

bool Shard::is_duplicate(std::uint32_t w, std::uint64_t request_id) const {
  return request_id != 0 && request_id <= last_request_.at(w);
}

void Shard::push(Message m, std::uint32_t w, std::vector<std::uint32_t>* rows_out) {
  const bool keyed = (m.header.flags & msg_flags::kKeyed) != 0;
  std::vector<std::uint32_t> rows;
  if (keyed) rows = local_rows(m);
  else if (spec_.sparse())
    throw ProtocolError(where() + ": whole-range push from worker " + std::to_string(w) +
                        " for a sparse model");
  // Timing-only pushes carry virtual values; over a real wire they arrive as zeros to ignore.
  if (synthetic_ && m.values.size() + m.virtual_values == keys_.size()) m.values.clear();
  const std::size_t expected = synthetic_ ? 0 : (keyed ? rows.size() : keys_.size()) * width_;
  if (m.values.size() != expected)
    throw ProtocolError(where() + ": push from worker " + std::to_string(w) + " has " +
                        count_text(m.values.size(), "value") + ", expected " +
                        std::to_string(expected));
  if (rows_out && keyed) *rows_out = rows;
  const std::int64_t clock = m.header.clock;
  const std::int64_t version = m.header.version;
  // Staleness is measured against the range's clock before this push counts toward it.
  const std::int64_t shard_clock = controller_.clock();
  const PushAction action = controller_.on_push(w, clock);
  last_request_[w] = m.header.request_id;
  switch (action) {
    case PushAction::kApply:
      // ASP/SSP: each worker's gradient is one W-th of a synchronous step (under hybrid, each
      // host's mean gradient one H-th, H hosts).
      apply_one(m, rows, shard_clock - version, 1.0 / spec_.pushers());
      break;
    case PushAction::kBuffer:
    case PushAction::kBarrierReached:
      buffered_[w] = std::move(m.values);
      buffered_rows_[w] = std::move(rows);
      buffered_version_[w] = version;
      arrived_[w] = true;
      if (action == PushAction::kBarrierReached) apply_barrier();
      break;
    case PushAction::kDrop:
      if (reporting_)
        env_.metrics().event(env_.now(), "gradient_dropped",
                             {{"range", range_}, {"worker", w}, {"clock", clock}});
      break;
  }
  env_.recycle_values(std::move(m.values));  // empty when buffered; else the next push lands here
}

void Shard::set_live(std::uint32_t w, bool live) {
  if (controller_.set_live(w, live)) apply_barrier();
}

void Shard::rejoin(std::uint32_t w, std::int64_t clock) {
  last_request_.at(w) = 0;  // a restarted worker numbers its requests from 1 again
  // The range may have moved on since the worker asked every range for its clock; BSP ranges
  // differ by at most one clock, so this only trims a request that raced a barrier.
  if (spec_.consistency.mode == ConsistencyMode::kBsp)
    clock = std::min(clock, controller_.clock() + 1);
  if (controller_.rejoin(w, clock)) apply_barrier();
}

void Shard::apply_one(const Message& m, const std::vector<std::uint32_t>& rows,
                      std::int64_t staleness, double scale) {
  record_staleness(staleness);
  if (synthetic_) {
    // Timing-only: charge what the SGD update of this range would cost (w -= a*g: 2 flops, and
    // 12 bytes moved, per key).
    const double n = static_cast<double>(keys_.size());
    env_.account(Cost{2.0 * n, 12.0 * n});
    return;
  }
  if (m.header.flags & msg_flags::kKeyed)
    env_.account(optimizer_->apply_rows(kernels_, params_.data(), m.values.data(), rows.data(),
                                        rows.size(), width_, scale));
  else
    env_.account(optimizer_->apply(kernels_, params_.data(), m.values.data(), scale));
}

void Shard::apply_barrier() {
  // The controller has advanced past the barrier's clock; staleness is measured against it.
  const std::int64_t barrier_clock = controller_.clock() - 1;
  std::uint32_t count = 0;
  Cost cost;
  for (std::uint32_t w = 0; w < arrived_.size(); ++w)
    if (arrived_[w]) ++count;
  for (std::uint32_t w = 0; w < arrived_.size(); ++w)
    if (arrived_[w]) record_staleness(barrier_clock - buffered_version_[w]);
  if (count == 0) {
    // A barrier completed by membership alone (every arrival was a rejoin): nothing to apply.
  } else if (synthetic_) {
    // Timing-only: what summing `count` gradients and one SGD step would cost.
    const double n = static_cast<double>(keys_.size());
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

void Shard::apply_keyed_barrier(std::uint32_t count, Cost& cost) {
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

void Shard::record_staleness(std::int64_t staleness) {
  const auto s = static_cast<std::size_t>(staleness < 0 ? 0 : staleness);
  if (staleness_counts_.size() <= s) staleness_counts_.resize(s + 1, 0);
  ++staleness_counts_[s];
}

bool Shard::all_pushes_in() const {
  for (std::uint32_t w = 0; w < spec_.pushers(); ++w)
    if (controller_.live(w) && controller_.pushes(w) < static_cast<std::int64_t>(spec_.iterations))
      return false;
  return true;
}

Message Shard::pull_reply(bool keyed, const std::vector<std::uint32_t>& rows, std::int64_t clock,
                          std::uint64_t request_id) {
  Message reply;
  reply.header.type = MsgType::kPullReply;
  reply.header.flags = keyed ? msg_flags::kKeyed : msg_flags::kWholeRange;
  reply.header.request_id = request_id;
  reply.header.range = range_;
  reply.header.clock = clock;
  reply.header.version = controller_.clock();
  if (synthetic_) {
    reply.virtual_values = keys_.size();
  } else if (keyed) {
    reply.values.resize(rows.size() * width_);
    for (std::size_t j = 0; j < rows.size(); ++j)
      std::copy_n(params_.begin() + static_cast<long>(rows[j] * width_), width_,
                  reply.values.begin() + static_cast<long>(j * width_));
    env_.account(copy_cost(reply.values.size()));
  } else {
    reply.values = env_.reusable_values(params_.size());
    reply.values.assign(params_.begin(), params_.end());
    env_.account(copy_cost(params_.size()));
  }
  return reply;
}

Message Shard::clock_reply(std::uint64_t request_id) const {
  Message reply;
  reply.header.type = MsgType::kPullReply;
  reply.header.flags = msg_flags::kRejoin;
  reply.header.range = range_;
  reply.header.clock = -1;
  reply.header.version = controller_.clock();
  reply.header.request_id = request_id;
  return reply;
}

Message Shard::push_ack(std::int64_t clock, std::uint64_t request_id) const {
  Message ack;
  ack.header.type = MsgType::kPushAck;
  ack.header.range = range_;
  ack.header.clock = clock;
  ack.header.request_id = request_id;
  return ack;
}

Message Shard::snapshot(bool final) {
  Message snap;
  snap.header.type = MsgType::kSnapshot;
  snap.header.flags = msg_flags::kWholeRange | (final ? msg_flags::kFinal : 0u);
  snap.header.range = range_;
  snap.header.clock = controller_.clock();
  snap.header.version = controller_.clock();
  // When the range reached this clock: the evaluation's time, however late the scheduler gets
  // to it.
  snap.header.time_us = static_cast<std::int64_t>(std::max(0.0, env_.now()) * 1e6);
  if (!synthetic_) snap.values = params_;
  // The scheduler turns these into the run's staleness and update counts, in every environment.
  for (std::size_t s = 0; s < staleness_counts_.size(); ++s) {
    if (staleness_counts_[s] == 0) continue;
    snap.keys.push_back(s);
    snap.lengths.push_back(staleness_counts_[s]);
  }
  staleness_counts_.clear();
  return snap;
}

ShardState Shard::state() const {
  ShardState s;
  s.clock = controller_.clock();
  s.params = params_;
  s.optimizer = optimizer_->state();
  s.consistency = controller_.state();
  s.last_request = last_request_;
  for (std::uint32_t w = 0; w < arrived_.size(); ++w)
    if (arrived_[w])
      s.buffered.push_back({w, buffered_version_[w], buffered_[w], buffered_rows_[w]});
  s.staleness_counts = staleness_counts_;
  return s;
}

void Shard::restore(ShardState s) {
  if (s.params.size() != params_.size())
    throw ProtocolError(where() + ": state has " + std::to_string(s.params.size()) +
                        " parameters, the range holds " + std::to_string(params_.size()));
  if (s.last_request.size() != last_request_.size())
    throw ProtocolError(where() + ": state for another number of workers");
  for (const BufferedGradient& b : s.buffered)
    if (b.worker >= arrived_.size())
      throw ProtocolError(where() + ": state buffers unknown worker " + std::to_string(b.worker));
  try {
    optimizer_->restore(std::move(s.optimizer));
    controller_.restore(s.consistency);
  } catch (const std::invalid_argument& e) {
    throw ProtocolError(where() + ": state does not fit: " + e.what());
  }
  params_ = std::move(s.params);
  last_request_ = std::move(s.last_request);
  std::fill(arrived_.begin(), arrived_.end(), false);
  for (auto& b : buffered_) b.clear();
  for (auto& r : buffered_rows_) r.clear();
  for (BufferedGradient& b : s.buffered) {
    buffered_[b.worker] = std::move(b.values);
    buffered_rows_[b.worker] = std::move(b.rows);
    buffered_version_[b.worker] = b.version;
    arrived_[b.worker] = true;
  }
  // What the old holder applied since its last snapshot is reported by whoever leads next.
  staleness_counts_ = std::move(s.staleness_counts);
}

ShardCheckpoint Shard::checkpoint() const {
  ShardCheckpoint c;
  c.range = range_;
  c.key_begin = keys_.begin;
  c.key_count = keys_.size();
  c.width = static_cast<std::uint32_t>(width_);
  c.clock = controller_.clock();
  c.params = params_;
  c.optimizer = optimizer_->state();
  return c;
}

void Shard::resume(std::int64_t clock, OptimizerState optimizer) {
  try {
    optimizer_->restore(std::move(optimizer));
  } catch (const std::invalid_argument& e) {
    throw ProtocolError(where() + ": checkpoint does not fit: " + e.what());
  }
  ConsistencyState cs;
  cs.pushes.assign(spec_.pushers(), clock);
  cs.live.assign(spec_.pushers(), true);
  cs.applied_clock = spec_.consistency.mode == ConsistencyMode::kBsp ? clock : 0;
  controller_.restore(cs);
}

}  // namespace pstwin
