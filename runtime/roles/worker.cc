#include "runtime/roles/worker.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "runtime/errors.h"
#include "runtime/roles/batch_order.h"
#include "runtime/roles/cpu_report.h"
#include "runtime/roles/stall_wait.h"
#include "runtime/seconds_text.h"
#include "runtime/span_scope.h"
#include "runtime/count_text.h"

namespace pstwin {

Cost Worker::take_deferred() {
  const Cost c = deferred_;
  deferred_ = Cost{};
  return c;
}

Worker::Worker(Env& env, const JobSpec& spec, std::uint32_t index, KernelBackend& kernels,
               bool rejoining)
    : env_(env),
      spec_(spec),
      index_(index),
      kernels_(kernels),
      rejoining_(rejoining),
      router_(env, spec),
      compressor_(spec.compression, env.self()) {
  if (spec.hybrid()) chain_.emplace(env, spec, kernels, index);
}

std::optional<Message> Worker::receive() {
  if (chain_)
    if (auto early = chain_->take_early()) return early;
  const double since = env_.now();
  double deadline = stall_deadline(env_, since, spec_.stall_timeout_s);
  // A safety net, not the failover path (a new membership triggers the resends): it covers an
  // answer lost on its way (sent to a restarted node's old address). It waits four detection
  // timeouts, and twice as long after each resend, so slow barriers are not flooded with copies.
  double patience = 4 * spec_.fault.heartbeat_timeout_s;
  for (;;) {
    double wait = deadline - env_.now();
    if (spec_.fault.enabled) wait = std::min(wait, patience);
    if (wait <= 0) return std::nullopt;
    if (auto m = env_.recv(wait)) return m;
    // Another worker's long compute (a straggler at a barrier) is not a stall: it moves the
    // deadline, and only then is it worth waiting again without fault tolerance.
    const double later = stall_deadline(env_, since, spec_.stall_timeout_s);
    const bool moved = later > deadline;
    deadline = std::max(deadline, later);
    if (!spec_.fault.enabled) {
      if (!moved) return std::nullopt;
      continue;
    }
    patience *= 2;
    router_.resend_all();
  }
}

std::optional<std::int64_t> Worker::rejoin_job() {
  Message hello;
  hello.header.type = MsgType::kRejoin;
  hello.data = nlohmann::json{{"role", "worker"}, {"index", index_}}.dump();
  env_.send(JobLayout::scheduler(), std::move(hello));
  if (!await_start()) return std::nullopt;
  // Every range's clock; the worker rejoins at the newest, so that no range waits for clocks it
  // will never push.
  for (std::uint32_t r = 0; r < ranges_.size(); ++r) {
    Message probe;
    probe.header.type = MsgType::kPull;
    probe.header.flags = msg_flags::kRejoin;
    probe.header.range = r;
    probe.header.clock = -1;
    probe.header.request_id = next_request_++;
    router_.send(std::move(probe));
  }
  std::vector<bool> got(ranges_.size(), false);
  std::size_t left = ranges_.size();
  std::int64_t join = 0;
  while (left > 0) {
    auto m = receive();
    if (!m)
      throw std::runtime_error("worker " + std::to_string(index_) +
                               ": no key range answered its rejoin within " +
                               seconds_text(spec_.stall_timeout_s) + " s");
    if (m->header.type == MsgType::kStop) return std::nullopt;
    if (m->header.type == MsgType::kMembership) {
      router_.update(*m);
      continue;
    }
    const std::uint32_t r = m->header.range;
    if (m->header.type != MsgType::kPullReply || !(m->header.flags & msg_flags::kRejoin) ||
        r >= ranges_.size() || got[r])
      continue;  // a late reply of this node's former life
    got[r] = true;
    router_.answered(r);
    join = std::max(join, m->header.version);
    --left;
  }
  env_.metrics().event(env_.now(), "worker_rejoined", {{"worker", index_}, {"clock", join}});
  return join;
}

bool Worker::await_acks() {
  std::uint32_t left = router_.unacknowledged_pushes();
  while (left > 0) {
    auto m = receive();
    if (!m)
      throw std::runtime_error("worker " + std::to_string(index_) +
                               ": its last pushes were not acknowledged within " +
                               seconds_text(spec_.stall_timeout_s) + " s");
    if (m->header.type == MsgType::kStop) return false;
    if (m->header.type == MsgType::kMembership) {
      router_.update(*m);
      continue;
    }
    if (m->header.type != MsgType::kPushAck || !router_.take_push_ack(*m))
      continue;  // a duplicate or late reply
    --left;
  }
  return true;
}

void Worker::run() {
  std::int64_t first_clock = spec_.resume ? spec_.resume->clock : 0;
  if (rejoining_) {
    const auto join = rejoin_job();
    if (!join) return;
    first_clock = *join;
  } else if (!await_start()) {
    return;
  }
  const bool sparse = spec_.sparse();
  if (!spec_.synthetic) {
    if (!sparse) {
      params_.assign(spec_.num_parameters(), 0.0f);
      grad_.assign(spec_.num_parameters(), 0.0f);
    }
    order_ = spec_.worker_rows.at(index_);
  }
  const auto iterations = static_cast<std::int64_t>(spec_.iterations);
  if (spec_.resume && !spec_.synthetic) {
    // The mini-batches of the clocks before the checkpoint, drawn and dropped: the data order
    // (and so the result) is the uninterrupted run's.
    for (std::int64_t c = 0; c < first_clock; ++c) next_batch();
  }
  if (sparse) {
    batch_ = next_keyed_batch();
    send_keyed_pulls(batch_, first_clock);
  } else if (spec_.is_pusher(index_)) {
    send_pulls(first_clock);  // under hybrid, the host's leader pulls for all its workers
  }
  rejoining_ = false;  // the pulls above rejoined every range
  for (std::int64_t clock = first_clock; clock < iterations; ++clock) {
    {
      SpanScope waiting(env_, "wait_pull");
      if (!await_parameters(clock)) return;
    }
    double loss = 0.0;
    {
      SpanScope computing(env_, "compute");
      loss = compute_gradient();
    }
    if (!std::isfinite(loss)) {
      abort_diverged(clock, loss);
      return;
    }
    if (!spec_.synthetic) deferred_ += compressor_.clip(grad_);
    const bool more = clock + 1 < iterations;
    SpanScope pushing(env_, "push");
    if (sparse) {
      KeyedBatch next;
      if (more) next = next_keyed_batch();
      push_keyed(clock, loss);
      if (more) send_keyed_pulls(next, clock + 1);
      batch_ = std::move(next);
    } else if (!push(clock, loss, more)) {
      return;
    }
  }
  // The last clock's packing, which no later compute step carries.
  if (deferred_.flops > 0 || deferred_.bytes > 0) env_.account(take_deferred());
  if (spec_.fault.enabled && !await_acks()) return;
  Message done;
  done.header.type = MsgType::kWorkerDone;
  done.header.clock = iterations;
  // Where each node counts its own traffic and compute time (a real job), the scheduler adds up
  // the reports. Nothing where the environment counts them (the message keeps its simulated size).
  nlohmann::json report = nlohmann::json::object();
  if (const auto sent = env_.bytes_sent()) report["bytes_sent"] = sent;
  if (const auto computed = env_.compute_s(); computed > 0) report["compute_s"] = computed;
  add_cpu_use(report, env_);
  if (!report.empty()) done.data = report.dump();
  env_.send(JobLayout::scheduler(), std::move(done));
}

void Worker::abort_diverged(std::int64_t clock, double loss) {
  Message abort;
  abort.header.type = MsgType::kAbort;
  abort.header.flags = msg_flags::kDiverged;
  abort.header.clock = clock;
  abort.header.loss = static_cast<float>(loss);
  env_.send(JobLayout::scheduler(), std::move(abort));
  // Wait for the scheduler's stop so the job ends in order.
  while (auto m = recv_unless_stalled(env_, spec_.stall_timeout_s))
    if (m->header.type == MsgType::kStop) return;
}

bool Worker::await_start() {
  for (;;) {
    auto m = recv_unless_stalled(env_, spec_.stall_timeout_s);
    if (!m)
      throw std::runtime_error("worker " + std::to_string(index_) + ": no start message within " +
                               seconds_text(spec_.stall_timeout_s) + " s");
    if (m->header.type == MsgType::kStop) return false;
    if (m->header.type == MsgType::kMembership) {
      router_.update(*m);
      continue;
    }
    // Under hybrid sync a host peer that started first may already hand down parameters or a
    // partial sum: kept for after the start (seen over ZeroMQ on a loaded machine).
    if (chain_ && (m->header.type == MsgType::kPullReply || m->header.type == MsgType::kHostReduce)) {
      chain_->keep_early(std::move(*m));
      continue;
    }
    if (m->header.type != MsgType::kStart)
      throw ProtocolError("worker " + std::to_string(index_) + ": expected start, got " +
                          std::string(msg_type_name(m->header.type)));
    if (m->lengths.size() != spec_.key_ranges().size())
      throw ProtocolError("worker start message: " + std::to_string(m->lengths.size()) +
                          " key ranges; the job's partition has " +
                          std::to_string(spec_.key_ranges().size()));
    Key begin = 0;
    for (auto len : m->lengths) {
      ranges_.push_back(KeyRange{begin, begin + len});
      begin += len;
    }
    if (begin != spec_.num_keys())
      throw ProtocolError("worker start message: ranges cover " + std::to_string(begin) +
                          " keys, the model has " + std::to_string(spec_.num_keys()));
    return true;
  }
}

void Worker::send_pulls(std::int64_t clock) {
  for (std::uint32_t r = 0; r < ranges_.size(); ++r) {
    if (ranges_[r].size() == 0) continue;
    Message pull;
    pull.header.type = MsgType::kPull;
    pull.header.flags = rejoining_ ? msg_flags::kRejoin : 0u;
    pull.header.range = r;
    pull.header.clock = clock;
    pull.header.request_id = next_request_++;
    router_.send(std::move(pull));
  }
}

void Worker::send_keyed_pulls(const KeyedBatch& b, std::int64_t clock) {
  for (std::uint32_t r = 0; r < ranges_.size(); ++r) {
    if (ranges_[r].size() == 0) continue;
    Message pull;
    pull.header.type = MsgType::kPull;
    pull.header.flags = msg_flags::kKeyed | (rejoining_ ? msg_flags::kRejoin : 0u);
    pull.header.range = r;
    pull.header.clock = clock;
    pull.header.request_id = next_request_++;
    pull.keys.assign(b.keys.begin() + static_cast<long>(b.range_begin[r]),
                     b.keys.begin() + static_cast<long>(b.range_begin[r + 1]));
    router_.send(std::move(pull));
  }
}

bool Worker::await_parameters(std::int64_t clock) {
  const bool sparse = spec_.sparse();
  const std::size_t width = spec_.values_per_key();
  if (sparse) params_.resize(batch_.keys.size() * width);
  std::vector<bool> waiting(ranges_.size(), false);
  std::uint32_t expected = 0;
  for (std::uint32_t r = 0; r < ranges_.size(); ++r)
    if (ranges_[r].size() > 0) {
      waiting[r] = true;
      ++expected;
    }
  read_version_ = std::numeric_limits<std::int64_t>::max();
  while (expected > 0) {
    auto m = receive();
    if (!m)
      throw std::runtime_error("worker " + std::to_string(index_) + ": no parameters for clock " +
                               std::to_string(clock) + " within " +
                               seconds_text(spec_.stall_timeout_s) + " s");
    const MsgType type = m->header.type;
    if (type == MsgType::kStop) return false;
    if (type == MsgType::kMembership) {
      router_.update(*m);
      continue;
    }
    const std::uint32_t r = m->header.range;
    const bool from_source =
        chain_ ? chain_->parameters_from(m->header.sender) : spec_.layout.is_server(m->header.sender);
    if (!from_source || r >= ranges_.size() ||
        (type != MsgType::kPullReply && type != MsgType::kPushAck))
      throw ProtocolError("worker " + std::to_string(index_) + ": unexpected " +
                          std::string(msg_type_name(type)) + " for clock " +
                          std::to_string(m->header.clock) + " from node " +
                          std::to_string(m->header.sender) + " while waiting for clock " +
                          std::to_string(clock));
    // After a failover a range may answer a resent request twice, or a former primary late.
    if (type == MsgType::kPushAck || m->header.clock != clock || !waiting[r]) {
      if (!spec_.fault.enabled)
        throw ProtocolError("worker " + std::to_string(index_) + ": unexpected " +
                            std::string(msg_type_name(type)) + " for clock " +
                            std::to_string(m->header.clock) + " of key range " +
                            std::to_string(r) + " while waiting for clock " + std::to_string(clock));
      continue;
    }
    if (chain_) chain_->forward_parameters(*m);  // pipelined down the host, range by range
    deferred_ += unpack_values(*m);
    const KeyRange& kr = ranges_.at(r);
    if (!spec_.synthetic) {
      // Dense: the whole range lands at its place; sparse: this range's keys of the batch.
      const std::size_t first = sparse ? batch_.range_begin[r] : kr.begin;
      const std::size_t keys = sparse ? batch_.range_begin[r + 1] - first : kr.size();
      if (m->values.size() != keys * width || sparse != ((m->header.flags & msg_flags::kKeyed) != 0))
        throw ProtocolError("worker " + std::to_string(index_) + ": pull reply with " +
                            count_text(m->values.size(), "value") + " for " +
                            count_text(keys, "key") + " of " + std::to_string(width) +
                            (sparse ? " (keyed)" : " (whole shard)"));
      std::copy(m->values.begin(), m->values.end(), params_.begin() + static_cast<long>(first * width));
    }
    env_.recycle_values(std::move(m->values));  // the next push or pull reply reuses its memory
    // The answer to this clock's pull acknowledges the range's push of the clock before.
    router_.answered(r);
    read_version_ = std::min(read_version_, m->header.version);
    waiting[r] = false;
    --expected;
  }
  return true;
}

std::vector<std::uint32_t> Worker::next_batch() {
  return next_shuffled_batch(order_, cursor_, spec_.batch_size, env_.rng());
}

Worker::KeyedBatch Worker::next_keyed_batch() {
  KeyedBatch b;
  b.rows = next_batch();
  b.keys = spec_.model->batch_keys(*spec_.train, RowSelection{b.rows.data(), b.rows.size()});
  b.range_begin.resize(ranges_.size() + 1);
  for (std::size_t r = 0; r < ranges_.size(); ++r)
    b.range_begin[r] = static_cast<std::size_t>(
        std::lower_bound(b.keys.begin(), b.keys.end(), ranges_[r].begin) - b.keys.begin());
  b.range_begin[ranges_.size()] = b.keys.size();
  return b;
}

double Worker::compute_gradient() {
  if (spec_.synthetic) {
    env_.account(Cost{spec_.synthetic->flops_per_iteration, spec_.synthetic->bytes_per_iteration});
    return 0.0;
  }
  LossStats stats;
  if (spec_.sparse()) {
    // The data term alone: a sparse model's regulariser is per rating, inside the kernel's
    // gradient, and the worker holds only the touched rows.
    grad_.resize(params_.size());
    const Cost cost = spec_.model->sparse_gradient(
        kernels_, *spec_.train, RowSelection{batch_.rows.data(), batch_.rows.size()}, batch_.keys,
        params_.data(), grad_.data(), &stats);
    env_.account(cost + take_deferred());
    return stats.count ? stats.loss_sum / static_cast<double>(stats.count) : 0.0;
  }
  const auto batch = next_batch();
  const Cost cost = spec_.model->gradient(kernels_, *spec_.train,
                                          RowSelection{batch.data(), batch.size()},
                                          params_.data(), grad_.data(), &stats);
  env_.account(cost + take_deferred());
  if (stats.count == 0) return 0.0;
  return stats.loss_sum / static_cast<double>(stats.count) + spec_.model->regularizer(params_.data());
}

bool Worker::push(std::int64_t clock, double loss, bool pull_after) {
  for (std::uint32_t r = 0; r < ranges_.size(); ++r) {
    const KeyRange& keys = ranges_[r];
    if (keys.size() == 0) continue;
    std::optional<std::vector<float>> host_sum;
    if (chain_) {
      host_sum = chain_->add_share(r, clock, keys, grad_.data(), read_version_);
      if (!host_sum) return false;
      if (!chain_->leader()) continue;
    }
    Message m;
    m.header.type = MsgType::kPush;
    m.header.flags = msg_flags::kWholeRange | (pull_after ? msg_flags::kPullAfter : 0u);
    m.header.range = r;
    m.header.clock = clock;
    m.header.version = read_version_;
    m.header.loss = static_cast<float>(loss);
    m.header.request_id = next_request_++;
    // The last push of a fault-tolerant job is acknowledged on its own (no pull follows it).
    if (!pull_after && spec_.fault.enabled) m.header.flags |= msg_flags::kAckRequested;
    if (spec_.synthetic)
      m.virtual_values = keys.size();
    else if (host_sum)
      m.values = std::move(*host_sum);
    else {
      m.values = env_.reusable_values(keys.size());
      m.values.assign(grad_.begin() + static_cast<long>(keys.begin),
                      grad_.begin() + static_cast<long>(keys.end));
    }
    deferred_ += compressor_.pack_push(m, 1);
    router_.send(std::move(m));
  }
  return true;
}

void Worker::push_keyed(std::int64_t clock, double loss) {
  const std::size_t width = spec_.values_per_key();
  for (std::uint32_t r = 0; r < ranges_.size(); ++r) {
    if (ranges_[r].size() == 0) continue;
    const std::size_t first = batch_.range_begin[r], last = batch_.range_begin[r + 1];
    Message m;
    m.header.type = MsgType::kPush;
    m.header.flags = msg_flags::kKeyed;
    m.header.range = r;
    m.header.clock = clock;
    m.header.version = read_version_;
    m.header.loss = static_cast<float>(loss);
    m.header.request_id = next_request_++;
    m.keys.assign(batch_.keys.begin() + static_cast<long>(first),
                  batch_.keys.begin() + static_cast<long>(last));
    m.values.assign(grad_.begin() + static_cast<long>(first * width),
                    grad_.begin() + static_cast<long>(last * width));
    if (spec_.fault.enabled && clock + 1 == static_cast<std::int64_t>(spec_.iterations))
      m.header.flags |= msg_flags::kAckRequested;
    deferred_ += compressor_.pack_push(m, width);
    router_.send(std::move(m));
  }
}

}  // namespace pstwin
