// Env: everything a role may use of the world (DESIGN.md, "Env: the swappable layer").
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "kernels/cost.h"
#include "runtime/checkpoint/checkpoint_store.h"
#include "runtime/message.h"
#include "runtime/metrics.h"
#include "runtime/rng.h"

namespace pstwin {

/// CPU a node's process spent on the job since its role started, as the node itself measures it
/// (a process of a real job: net/cpu_meter.h).
/// Seconds; role_thread_s <= process_s for a real node (the process's other threads are ZeroMQ's
/// I/O threads, heartbeats, progress lines, the live metrics' server).
struct CpuUse {
  double role_thread_s = 0.0;  ///< CPU seconds of the thread that runs the role
  double process_s = 0.0;      ///< CPU seconds of the whole process, the role's thread included
  double wall_s = 0.0;         ///< seconds (wall, or simulated) over which both were measured
};

/// The environment a role runs in: the SimGrid simulation, or a real network. Roles reach time,
/// randomness and other nodes only through it (DESIGN.md, rules 1 and 2).
class Env {
 public:
  virtual ~Env() = default;
  /// This node's id.
  virtual NodeId self() const = 0;
  /// Sends `msg` to node `to` asynchronously; messages between one pair arrive in send order.
  /// Sets msg.header.sender and receiver.
  virtual void send(NodeId to, Message msg) = 0;
  /// The next message for this node, or nullopt when none arrived within timeout_s seconds.
  virtual std::optional<Message> recv(double timeout_s) = 0;
  /// Seconds since the job started: simulated, or a steady clock.
  virtual double now() const = 0;
  /// Lets `seconds` pass.
  virtual void sleep(double seconds) = 0;
  /// Reports work this node just did. Simulated: time advances by the cost priced on this host's
  /// device (and any straggler slowdown). Real: the work took its time already; a straggling
  /// worker is held for the extra time its slowdown adds (net/straggler_hold.h).
  virtual void account(const Cost& cost) = 0;
  /// Seconds (of now()) until which some worker of the job is known to be computing: the end of
  /// the latest iteration any worker has started to compute, which may lie ahead of now(). A sign
  /// of life the roles' stall timeouts count as activity (runtime/roles/stall_wait.h), as a real
  /// node's heartbeat thread keeps beating while it computes. 0 where a node knows only what it
  /// receives itself (a real job: there, --stall-timeout must exceed the longest step).
  virtual double busy_until() const { return 0.0; }
  /// This node's random stream, seeded from the scenario seed and the node id.
  virtual Rng& rng() = 0;
  /// Where measurements go.
  virtual MetricsSink& metrics() = 0;
  /// Encoded bytes this node has sent so far, where only the node itself can count them (a
  /// process of a real job); 0 where the environment counts every node's traffic itself.
  virtual std::uint64_t bytes_sent() const { return 0; }
  /// Seconds this worker has spent computing so far, straggler holds included, where only the
  /// node itself can measure them (a worker of a real job); 0 where the environment accounts
  /// compute itself (the simulation) and on other nodes.
  virtual double compute_s() const { return 0.0; }
  /// The CPU this node has used since its role started, where only the node itself can measure
  /// it (a process of a real job); nullopt elsewhere: nodes sharing one process, and the
  /// simulation, which counts every node's host work itself. Call from the role's thread.
  virtual std::optional<CpuUse> cpu_use() const { return std::nullopt; }
  /// Where checkpoints go; null when the job keeps none (the default).
  virtual CheckpointStore* checkpoints() { return nullptr; }
  /// An empty vector whose memory a message of n values may reuse (capacity >= n when the
  /// environment holds one that large): fill it rather than a fresh vector, sparing a large
  /// allocation and its page faults. The default, for environments that move no bytes: a new one.
  virtual std::vector<float> reusable_values(std::size_t /*n*/) { return {}; }
  /// Takes back the values of a received message the role is done with, for reusable_values()
  /// and for the next message to decode into (DESIGN.md, "The hot path"). The default drops them.
  /// A message given to send() is taken back by the environment itself.
  virtual void recycle_values(std::vector<float> /*values*/) {}
  /// Once recv threw JobStopped (a stop from outside, runtime/errors.h): what the other nodes
  /// still send as they stop (a server's final snapshot, a worker's last spans), for the
  /// scheduler's bounded wind-down. The next message within timeout_s seconds; nullopt when none
  /// came in time or when nothing more is coming (every other node said its last word). Never
  /// throws JobStopped. The default, for environments whose nodes end with the scheduler (the
  /// simulation, threads of one process): nullopt at once.
  virtual std::optional<Message> recv_after_stop(double /*timeout_s*/) { return std::nullopt; }
};

}  // namespace pstwin
