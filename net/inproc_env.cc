#include "net/inproc_env.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>

#include "runtime/codec.h"
#include "runtime/errors.h"

namespace pstwin::net {

InprocNetwork::InprocNetwork(std::uint32_t nodes) : queues_(nodes) {}

void InprocNetwork::deliver(NodeId to, Message msg) {
  if (to >= queues_.size()) throw std::invalid_argument("send to unknown node " + std::to_string(to));
  // Counted as it would travel; encoded_size also runs the encoder's checks on the message.
  bytes_sent_ += encoded_size(msg);
  ++messages_sent_;
  Queue& q = queues_[to];
  {
    std::lock_guard lock(q.mutex);
    q.messages.push_back(std::move(msg));
  }
  q.ready.notify_one();
}

std::optional<Message> InprocNetwork::take(NodeId self, double timeout_s) {
  Queue& q = queues_.at(self);
  std::unique_lock lock(q.mutex);
  const auto stopped = [&] { return self == JobLayout::scheduler() && stopped_.load(); };
  if (!q.ready.wait_for(lock, std::chrono::duration<double>(timeout_s),
                        [&] { return !q.messages.empty() || aborted_.load() || stopped(); }) ||
      aborted_.load())
    return std::nullopt;
  if (stopped()) throw JobStopped(stop_reason_);
  auto msg = std::move(q.messages.front());
  q.messages.pop_front();
  return msg;
}

void InprocNetwork::abort() {
  aborted_ = true;
  for (auto& q : queues_) {
    // Taking the lock orders the flag before any waiter's next check of it.
    std::lock_guard lock(q.mutex);
    q.ready.notify_all();
  }
}

void InprocNetwork::stop(const std::string& reason) {
  Queue& q = queues_.at(JobLayout::scheduler());
  {
    // Under the scheduler queue's lock: the reason is written once, before the flag, and the
    // flag is ordered before the scheduler's next check of it.
    std::lock_guard lock(q.mutex);
    if (stopped_.load()) return;
    stop_reason_ = reason;
    stopped_ = true;
  }
  q.ready.notify_all();
}

InprocEnv::InprocEnv(InprocNetwork& network, const JobLayout& layout, NodeId self, std::uint64_t seed,
                     MetricsSink& metrics, std::chrono::steady_clock::time_point start)
    : network_(network),
      self_(self),
      rng_(role_stream_seed(seed, layout, self)),
      metrics_(metrics),
      start_(start) {}

void InprocEnv::send(NodeId to, Message msg) {
  msg.header.sender = self_;
  msg.header.receiver = to;
  // Moved, not encoded: the receiver gets these very vectors, as in the simulation.
  network_.deliver(to, std::move(msg));
  mark();
}

std::optional<Message> InprocEnv::recv(double timeout_s) {
  auto m = network_.take(self_, timeout_s);
  mark();
  return m;
}

void InprocEnv::account(const Cost&) {
  if (!hold_) return;
  sleep(hold_->after_compute(now(), metrics_));  // sleep() marks the end of the hold
}

double InprocEnv::now() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void InprocEnv::sleep(double seconds) {
  if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  mark();
}

}  // namespace pstwin::net
