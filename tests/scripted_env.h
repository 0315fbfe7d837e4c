// ScriptedEnv: an Env for testing one role alone, without a simulation or sockets. The test
// fills the inbox, runs the role, and reads what it sent and the events it reported.
#pragma once

#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/env.h"

namespace pstwin::testing_support {

/// A MetricsSink that keeps the events (type and fields) and ignores everything else.
class RecordingSink : public MetricsSink {
 public:
  void staleness(std::int64_t, std::uint64_t) override {}
  void updates_applied(std::uint64_t) override {}
  void eval(EvalRow) override {}
  void event(double, const std::string& type, nlohmann::json fields) override {
    events.emplace_back(type, std::move(fields));
  }
  void finish(const std::string&, bool, const std::string&) override {}

  /// How many events of `type` were reported.
  std::size_t count(const std::string& type) const {
    std::size_t n = 0;
    for (const auto& e : events) n += e.first == type;
    return n;
  }

  std::vector<std::pair<std::string, nlohmann::json>> events;
};

/// recv() pops `inbox` (nullopt once it is empty: the role sees a timeout); send() stamps sender
/// and receiver, calls `on_send` if set (a stand-in for peers: it may push replies to the inbox)
/// and appends to `sent`. now() is `now_s`, which sleep() advances; account() does nothing.
class ScriptedEnv : public Env {
 public:
  explicit ScriptedEnv(NodeId self, std::uint64_t seed = 7) : self_(self), rng_(seed) {}

  NodeId self() const override { return self_; }
  void send(NodeId to, Message msg) override {
    msg.header.sender = self_;
    msg.header.receiver = to;
    if (on_send) on_send(msg);
    sent.push_back(std::move(msg));
  }
  std::optional<Message> recv(double) override {
    if (inbox.empty()) return std::nullopt;
    Message m = std::move(inbox.front());
    inbox.pop_front();
    return m;
  }
  double now() const override { return now_s; }
  void sleep(double seconds) override { now_s += seconds; }
  void account(const Cost&) override {}
  Rng& rng() override { return rng_; }
  MetricsSink& metrics() override { return sink; }
  CheckpointStore* checkpoints() override { return checkpoint_store; }

  /// The messages sent of type `type`, in send order.
  std::vector<Message> sent_of(MsgType type) const {
    std::vector<Message> out;
    for (const Message& m : sent)
      if (m.header.type == type) out.push_back(m);
    return out;
  }

  std::deque<Message> inbox;
  std::vector<Message> sent;
  double now_s = 0.0;
  std::function<void(const Message&)> on_send;
  RecordingSink sink;
  CheckpointStore* checkpoint_store = nullptr;

 private:
  NodeId self_;
  Rng rng_;
};

}  // namespace pstwin::testing_support
