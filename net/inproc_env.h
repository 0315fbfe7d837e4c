// InprocEnv: the Env of a node running as a thread beside the other nodes of its job, for fast
// tests and single-machine jobs (DESIGN.md, "The real environments").
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "net/spare_values.h"
#include "net/straggler_hold.h"
#include "runtime/env.h"
#include "runtime/job_layout.h"

namespace pstwin::net {

/// The queues between the nodes of one in-process job. A message is handed over as it is, moved
/// from its sender to its receiver as in the simulation (no encoding: in one process's memory
/// there is nothing to guard against that a frame would), but sized by the codec
/// (encoded_size), which also runs the encoder's checks, so traffic counts and bad messages are
/// as on a network. Thread-safe.
class InprocNetwork {
 public:
  explicit InprocNetwork(std::uint32_t nodes);

  /// Queues `msg` (sender and receiver already stamped) for node `to`, counting encoded_size(msg)
  /// bytes. Throws std::invalid_argument for an unknown node, ProtocolError for a message the
  /// codec would refuse to encode (unsorted keys, lengths not one per key, ...).
  void deliver(NodeId to, Message msg);
  /// The next message for `self`, waiting at most timeout_s; empty optional on timeout, and at
  /// once after abort(). For the scheduler (node 0), throws JobStopped(reason) once stop() was
  /// called, as ZmqEnv's recv does once its StopRequest is.
  std::optional<Message> take(NodeId self, double timeout_s);
  /// Stops the job from outside (a signal, `reason` e.g. "stopped by SIGINT"): the scheduler's
  /// next take() throws JobStopped, and the scheduler writes what it has and tells every node to
  /// stop. The first reason counts. Thread-safe; not for a signal handler (it locks).
  void stop(const std::string& reason);
  /// Ends the job: every waiting and future take() returns empty at once, so the roles stop
  /// (with their "nothing received" error) instead of waiting out their stall timeouts. For when
  /// one role has failed and the job cannot finish.
  void abort();

  std::uint32_t nodes() const { return static_cast<std::uint32_t>(queues_.size()); }
  /// Encoded bytes and messages delivered so far (heartbeats included).
  std::uint64_t bytes_sent() const { return bytes_sent_.load(); }
  std::uint64_t messages_sent() const { return messages_sent_.load(); }

 private:
  struct Queue {
    std::mutex mutex;
    std::condition_variable ready;
    std::deque<Message> messages;
  };
  std::vector<Queue> queues_;
  std::atomic<bool> aborted_{false};
  std::atomic<bool> stopped_{false};
  std::string stop_reason_;  ///< set once, before stopped_
  std::atomic<std::uint64_t> bytes_sent_{0};
  std::atomic<std::uint64_t> messages_sent_{0};
};

/// A node of an in-process job. Time is a steady clock from `start`; account() does nothing (the
/// work already took its time) unless the node is a worker given a StragglerHold, which measures
/// its compute and holds it under the scenario's stragglers; rng() is seeded as in every
/// environment, with role_stream_seed(seed, layout, self) (runtime/job_layout.h).
class InprocEnv : public Env {
 public:
  /// Node `self` of a job laid out as `layout` (REQUIRES: self < layout.nodes()), under scenario
  /// seed `seed`.
  InprocEnv(InprocNetwork& network, const JobLayout& layout, NodeId self, std::uint64_t seed,
            MetricsSink& metrics, std::chrono::steady_clock::time_point start);

  NodeId self() const override { return self_; }
  void send(NodeId to, Message msg) override;
  std::optional<Message> recv(double timeout_s) override;
  double now() const override;
  void sleep(double seconds) override;
  void account(const Cost&) override;
  Rng& rng() override { return rng_; }
  MetricsSink& metrics() override { return metrics_; }
  CheckpointStore* checkpoints() override { return checkpoints_; }
  double compute_s() const override { return hold_ ? hold_->compute_s() : 0.0; }
  std::vector<float> reusable_values(std::size_t n) override { return spare_.take(n); }
  void recycle_values(std::vector<float> values) override { spare_.give(std::move(values)); }
  /// Where this node's checkpoints go (null: none kept). Not owned.
  void set_checkpoints(CheckpointStore* store) { checkpoints_ = store; }
  /// For a worker: measures its compute and applies the scenario's stragglers (events to
  /// metrics()). Call before the role runs.
  void set_straggler_hold(std::unique_ptr<StragglerHold> hold) { hold_ = std::move(hold); }

 private:
  /// The role came back from this Env: what it does next, until account(), is compute.
  void mark() {
    if (hold_) hold_->mark(now());
  }

  std::unique_ptr<StragglerHold> hold_;
  CheckpointStore* checkpoints_ = nullptr;
  InprocNetwork& network_;
  // Values of received messages the role is done with, for it to fill again (a received
  // message's vectors are its sender's, moved).
  SpareValues spare_;
  NodeId self_;
  Rng rng_;
  MetricsSink& metrics_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace pstwin::net
