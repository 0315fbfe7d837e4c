#include "runtime/roles/host_chain.h"

#include <stdexcept>
#include <string>

#include "runtime/errors.h"
#include "runtime/roles/stall_wait.h"
#include "runtime/seconds_text.h"

namespace pstwin {

HostChain::HostChain(Env& env, const JobSpec& spec, KernelBackend& kernels, std::uint32_t worker)
    : env_(env),
      spec_(spec),
      kernels_(kernels),
      worker_(worker),
      rank_(worker % spec.workers_per_host) {}

bool HostChain::parameters_from(NodeId sender) const {
  return leader() ? spec_.layout.is_server(sender) : sender == spec_.layout.worker(worker_ + 1);
}

void HostChain::forward_parameters(const Message& reply) {
  if (rank_ == 0) return;
  Message copy = reply;
  env_.send(spec_.layout.worker(worker_ - 1), std::move(copy));
}

std::optional<Message> HostChain::take_early() {
  for (auto it = early_.begin(); it != early_.end(); ++it)
    if (it->header.type != MsgType::kHostReduce) {
      Message m = std::move(*it);
      early_.erase(it);
      return m;
    }
  return std::nullopt;
}

std::optional<Message> HostChain::await_partial(std::uint32_t r, std::int64_t clock) {
  const NodeId previous = spec_.layout.worker(worker_ - 1);
  const double since = env_.now();
  double deadline = stall_deadline(env_, since, spec_.stall_timeout_s);
  for (;;) {
    const double wait = deadline - env_.now();
    // A partial sum that came before this worker's start (keep_early) is taken first, in order.
    std::optional<Message> m;
    for (auto it = early_.begin(); it != early_.end(); ++it)
      if (it->header.type == MsgType::kHostReduce) {
        m = std::move(*it);
        early_.erase(it);
        break;
      }
    if (!m && wait > 0) m = env_.recv(wait);
    // The previous worker computing for hours is not a stall: its compute moved the deadline.
    if (!m) {
      const double later = stall_deadline(env_, since, spec_.stall_timeout_s);
      if (later > deadline) {
        deadline = later;
        continue;
      }
    }
    if (!m)
      throw std::runtime_error("worker " + std::to_string(worker_) + ": no partial sum of key range " +
                               std::to_string(r) + " for clock " + std::to_string(clock) + " from worker " +
                               std::to_string(worker_ - 1) + " within " +
                               seconds_text(spec_.stall_timeout_s) + " s");
    const MsgType type = m->header.type;
    if (type == MsgType::kStop) return std::nullopt;
    // The leader may push range 0, get its reply and hand it down before range 1 is summed here.
    if (type == MsgType::kPullReply && parameters_from(m->header.sender)) {
      early_.push_back(std::move(*m));
      continue;
    }
    // Messages between two nodes keep their order, so the partial sums come range by range.
    if (type != MsgType::kHostReduce || m->header.sender != previous || m->header.range != r ||
        m->header.clock != clock)
      throw ProtocolError("worker " + std::to_string(worker_) + ": unexpected " +
                          std::string(msg_type_name(type)) + " for range " +
                          std::to_string(m->header.range) + ", clock " + std::to_string(m->header.clock) +
                          " from node " + std::to_string(m->header.sender) +
                          " while waiting for worker " + std::to_string(worker_ - 1) +
                          "'s partial sum of range " + std::to_string(r) + " for clock " +
                          std::to_string(clock));
    return m;
  }
}

std::optional<std::vector<float>> HostChain::add_share(std::uint32_t r, std::int64_t clock,
                                                       KeyRange keys, const float* grad,
                                                       std::int64_t version) {
  const std::size_t n = keys.size();
  std::vector<float> sum;
  if (rank_ == 0) {
    // From zeros, as the servers' sum starts, so one host's sum is bit for bit theirs.
    if (!spec_.synthetic) sum.assign(n, 0.0f);
  } else {
    auto partial = await_partial(r, clock);
    if (!partial) return std::nullopt;
    if (!spec_.synthetic && partial->values.size() != n)
      throw ProtocolError("worker " + std::to_string(worker_) + ": partial sum of range " +
                          std::to_string(r) + " has " + std::to_string(partial->values.size()) +
                          " values, the range " + std::to_string(n));
    sum = std::move(partial->values);
  }
  if (spec_.synthetic) {
    // Timing-only: what adding one scaled slice costs (2 flops and 12 bytes per key).
    env_.account(Cost{2.0 * static_cast<double>(n), 12.0 * static_cast<double>(n)});
  } else {
    env_.account(kernels_.axpy(sum.data(), grad + keys.begin, n,
                               1.0f / static_cast<float>(spec_.workers_per_host)));
  }
  if (!leader()) {
    Message m;
    m.header.type = MsgType::kHostReduce;
    m.header.flags = msg_flags::kWholeRange;
    m.header.range = r;
    m.header.clock = clock;
    m.header.version = version;
    if (spec_.synthetic) m.virtual_values = n;
    else m.values = std::move(sum);
    env_.send(spec_.layout.worker(worker_ + 1), std::move(m));
    return std::vector<float>{};
  }
  return sum;
}

}  // namespace pstwin
