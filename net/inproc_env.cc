#include "net/inproc_env.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>

#include "runtime/codec.h"

namespace pstwin::net {

InprocNetwork::InprocNetwork(std::uint32_t nodes) : queues_(nodes) {}

void InprocNetwork::deliver_copy(NodeId to, const std::vector<std::uint8_t>& bytes) {
  Frame frame = pool_.acquire(bytes.size());
  std::copy(bytes.begin(), bytes.end(), frame.data());
  deliver(to, std::move(frame));
}

void InprocNetwork::deliver(NodeId to, Frame frame) {
  if (to >= queues_.size()) throw std::invalid_argument("send to unknown node " + std::to_string(to));
  bytes_sent_ += frame.size;
  ++messages_sent_;
  Queue& q = queues_[to];
  {
    std::lock_guard lock(q.mutex);
    q.frames.push_back(std::move(frame));
  }
  q.ready.notify_one();
}

std::optional<Frame> InprocNetwork::take(NodeId self, double timeout_s) {
  Queue& q = queues_.at(self);
  std::unique_lock lock(q.mutex);
  if (!q.ready.wait_for(lock, std::chrono::duration<double>(timeout_s),
                        [&] { return !q.frames.empty() || aborted_.load(); }) ||
      aborted_.load())
    return std::nullopt;
  auto frame = std::move(q.frames.front());
  q.frames.pop_front();
  return frame;
}

void InprocNetwork::abort() {
  aborted_ = true;
  for (auto& q : queues_) {
    // Taking the lock orders the flag before any waiter's next check of it.
    std::lock_guard lock(q.mutex);
    q.ready.notify_all();
  }
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
  Frame frame = network_.pool().acquire(encoded_size(msg));
  // No checksum: the frame stays in this process's memory (codec.h, FrameChecksum).
  encode_into(msg, frame.data(), frame.size, FrameChecksum::kSkip);
  network_.deliver(to, std::move(frame));
  spare_.give(std::move(msg.values));
  mark();
}

std::optional<Message> InprocEnv::recv(double timeout_s) {
  auto frame = network_.take(self_, timeout_s);
  if (!frame) {
    mark();
    return std::nullopt;
  }
  Message m;
  // The frame's size bounds its values: take spare memory only for a large one.
  m.values = spare_.take(frame->size / sizeof(float));
  try {
    decode_into(frame->data(), frame->size, m, kDefaultMaxMessageBytes,
                std::numeric_limits<std::uint64_t>::max(), FrameChecksum::kSkip);
  } catch (...) {
    network_.pool().release(std::move(*frame));
    throw;
  }
  network_.pool().release(std::move(*frame));
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
