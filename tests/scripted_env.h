// ScriptedEnv: an Env for testing one role alone, without a simulation or sockets. The test
// fills the inbox, runs the role, and reads what it sent and the events it reported.
#pragma once

#include <algorithm>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/env.h"

namespace pstwin::testing_support {

/// A MetricsSink that keeps the events (type and fields) and the job's outcome, and ignores
/// everything else.
class RecordingSink : public MetricsSink {
 public:
  void staleness(std::int64_t, std::uint64_t) override {}
  void updates_applied(std::uint64_t) override {}
  void bytes_to_servers(std::uint64_t) override {}
  void eval(EvalRow) override {}
  void event(double, const std::string& type, nlohmann::json fields) override {
    events.emplace_back(type, std::move(fields));
  }
  void finish(const std::string& sha256, bool diverged_run, const std::string& why) override {
    params_sha256 = sha256;
    diverged = diverged_run;
    reason = why;
  }

  /// How many events of `type` were reported.
  std::size_t count(const std::string& type) const {
    std::size_t n = 0;
    for (const auto& e : events) n += e.first == type;
    return n;
  }

  /// Event `i`'s fields with its type under "type", to compare with one JSON literal.
  nlohmann::json event_json(std::size_t i) const {
    nlohmann::json j = events.at(i).second;
    j["type"] = events.at(i).first;
    return j;
  }

  std::vector<std::pair<std::string, nlohmann::json>> events;
  std::string params_sha256, reason;  ///< from finish()
  bool diverged = false;
};

/// recv() pops `inbox` (nullopt once it is empty: the role sees a timeout); send() stamps sender
/// and receiver, calls `on_send` if set (a stand-in for peers: it may push replies to the inbox)
/// and appends to `sent`. now() is `now_s`, which sleep() advances; account() does nothing.
/// Timed mode (the second constructor): messages arrive at scripted times instead, and time
/// passes only in recv(), up to the next arrival or by the whole timeout when none comes (or to
/// the end of a scripted stall).
class ScriptedEnv : public Env {
 public:
  explicit ScriptedEnv(NodeId self, std::uint64_t seed = 7) : self_(self), rng_(seed) {}
  /// Timed mode: `arrivals` are (time in s, message) in time order.
  ScriptedEnv(NodeId self, std::vector<std::pair<double, Message>> arrivals, std::uint64_t seed = 7)
      : arrivals_(arrivals.begin(), arrivals.end()), timed_(true), self_(self), rng_(seed) {}

  NodeId self() const override { return self_; }
  void send(NodeId to, Message msg) override {
    msg.header.sender = self_;
    msg.header.receiver = to;
    if (on_send) on_send(msg);
    sent.push_back(std::move(msg));
  }
  std::optional<Message> recv(double timeout_s) override {
    if (!inbox.empty()) {
      Message m = std::move(inbox.front());
      inbox.pop_front();
      return m;
    }
    if (!timed_) return std::nullopt;
    if (!stalls.empty() && stalls.front().first <= now_s + timeout_s &&
        (arrivals_.empty() || arrivals_.front().first > stalls.front().first)) {
      // The role was not scheduled: it wakes `seconds` after the stall began, late.
      now_s = stalls.front().first + stalls.front().second;
      stalls.pop_front();
      if (!arrivals_.empty() && arrivals_.front().first <= now_s) {
        Message m = std::move(arrivals_.front().second);
        arrivals_.pop_front();
        return m;
      }
      return std::nullopt;
    }
    if (!arrivals_.empty() && arrivals_.front().first <= now_s + timeout_s) {
      now_s = std::max(now_s, arrivals_.front().first);
      Message m = std::move(arrivals_.front().second);
      arrivals_.pop_front();
      return m;
    }
    now_s += timeout_s;
    return std::nullopt;
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
  /// Timed mode: (time in s, seconds) in time order: the receive that would wait past `time`
  /// returns only `seconds` after it (the role's process was not scheduled, as on an overloaded
  /// machine), with the first message due by then if any.
  std::deque<std::pair<double, double>> stalls;

 private:
  std::deque<std::pair<double, Message>> arrivals_;
  bool timed_ = false;
  NodeId self_;
  Rng rng_;
};

}  // namespace pstwin::testing_support
