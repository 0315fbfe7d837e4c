// SimEnv: the Env of a node inside the SimGrid simulation.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <simgrid/s4u/Comm.hpp>

#include "kernels/device_spec.h"
#include "runtime/env.h"
#include "runtime/job_layout.h"
#include "runtime/scenario/scenario.h"
#include "sim/stragglers.h"

namespace simgrid::s4u {
class Host;
class Mailbox;
}  // namespace simgrid::s4u

namespace pstwin {

class IoThread;
class NicSenders;
class WindowedInbox;

/// What all nodes of one simulated run share. Single-threaded (SimGrid runs actors one at a time).
struct SimWorld {
  JobLayout layout;
  std::vector<simgrid::s4u::Mailbox*> mailboxes;  ///< by NodeId
  std::vector<DeviceSpec> devices;                ///< by NodeId
  /// By NodeId: the host CPU time its messages cost to send and receive (scenario "messaging");
  /// empty, or all free, when messages cost only the network.
  std::vector<MessagingSpec> messaging;
  /// By NodeId: the host whose cores run the node's host work (scenario "cpu", sim/host_cpus.h);
  /// empty without "cpu", when each node's work runs alone on its own host.
  std::vector<simgrid::s4u::Host*> cpu_hosts;
  StragglerModel* stragglers = nullptr;
  MetricsSink* metrics = nullptr;
  std::uint64_t seed = 0;
  std::uint64_t bytes_sent = 0;     ///< encoded bytes of every message sent
  std::uint64_t messages_sent = 0;
  std::vector<double> worker_compute_s;  ///< by worker: simulated seconds of compute so far
  /// The latest end of an iteration a worker has computed or is computing (its priced length
  /// from its start), and how many workers compute now: SimEnv::busy_until's sign of life.
  double compute_until_s = 0.0;
  std::uint32_t workers_computing = 0;
  /// By NodeId: host work charged so far (one core's seconds as priced: messaging and what the
  /// node accounts), which the run reports as each node's "node_cpu" under "cpu". The environment
  /// counts it, not the nodes' reports, so no message changes size.
  std::vector<double> host_work_s;
  /// Checkpoints: storage write speed in bytes/s (writing costs bytes / this of simulated time);
  /// 0 when the job keeps no checkpoints.
  double checkpoint_bandwidth_Bps = 0.0;
  /// By node: its network link is down (a scenario "link" failure). Messages from or to it wait
  /// in `parked`, in send order, until the link is back, as TCP holds and retransmits them.
  std::vector<bool> link_down;
  struct Parked {
    NodeId from;
    NodeId to;
    Message msg;
  };
  std::vector<Parked> parked;
  /// "simulation.nic_window" or "nic_send_window": the nodes' NIC senders (sim/nic_window.h), or
  /// null when no window applies and every message is a flow from the moment it is sent.
  NicSenders* nic_senders = nullptr;
  /// The receive window (WindowedInbox) of "nic_window"; 0 with "nic_send_window", whose nodes
  /// receive as in the exact model, every arriving transfer a flow at once.
  std::uint32_t nic_window = 0;
};

/// Sends the parked messages whose endpoints both have their links up again, in send order,
/// each from its sender's host in `hosts` (by NodeId) as it would have left: the caller, the
/// failure injector, runs on the scheduler's host, and a transfer starts at its actor's host.
/// A message whose sender's host is off (the node failed since) is dropped, as its TCP
/// connection would be.
void release_parked(SimWorld& world, const std::vector<simgrid::s4u::Host*>& hosts);

/// Sends `msg` from node `from` to node `to` inside the simulation: its encoded size travels on
/// the simulated network to `to`'s current mailbox; a message to a node whose host is off, or
/// that is restarted meanwhile, is lost. Sets sender and receiver. Throws std::invalid_argument
/// for an unknown node.
void sim_send(SimWorld& world, NodeId from, NodeId to, Message msg);

/// A node's view of the simulation:
/// - send: the message's encoded size (codec.h) travels on the simulated network; the object
///   itself is handed over in memory. Mailboxes have their node as permanent receiver
///   (set_receiver), so transfers start when sent, as a NIC receives while the CPU is busy.
/// - account: the cost is priced by the roofline rule on the node's device, times the worker's
///   straggler factor (drawn once per call on a worker: workers account once per iteration),
///   and spent with this_actor::execute on the node's host; with "cpu", unless the device is a
///   GPU, on its machine's cores instead (host_cpus.h). The scheduler accounts its evaluation,
///   which costs time only with "cpu" (it then takes cores from the roles).
/// - busy_until: while any worker computes, or until the latest iteration's priced end, the job
///   is alive however long the compute takes (a straggler's factor, a huge flops_per_iteration).
/// - messaging (scenario "messaging"): sending costs the sender send_s(encoded size) of host
///   work before the transfer starts; a received message costs receive_s(encoded size) before
///   recv returns it. Host work runs on the machine's cores with "cpu", else on the node's host.
///   With an io_share above 0, the node has an I/O thread (sim/io_thread.h): the role spends
///   role_part of each cost and the I/O thread io_part, concurrently, before the message leaves
///   or reaches the role. Heartbeats, which the environment sends on a node's behalf, cost
///   nothing to send.
/// Must be constructed inside the node's actor.
class SimEnv : public Env {
 public:
  SimEnv(SimWorld& world, NodeId self);
  ~SimEnv() override;

  NodeId self() const override { return self_; }
  void send(NodeId to, Message msg) override;
  std::optional<Message> recv(double timeout_s) override;
  double now() const override;
  void sleep(double seconds) override;
  void account(const Cost& cost) override;
  double busy_until() const override;
  Rng& rng() override { return rng_; }
  MetricsSink& metrics() override { return *world_.metrics; }
  CheckpointStore* checkpoints() override;

 private:
  /// Writing a checkpoint costs its size over the storage bandwidth; nothing is kept.
  class ModelledStore : public CheckpointStore {
   public:
    explicit ModelledStore(double bandwidth_Bps) : bandwidth_Bps_(bandwidth_Bps) {}
    void store(const ShardCheckpoint& checkpoint) override;
    void complete(std::int64_t, std::uint32_t, double) override {}

   private:
    double bandwidth_Bps_;
  };

  /// The host whose cores run this node's host work; null without "cpu".
  simgrid::s4u::Host* cores() const;
  /// Spends `seconds` of host work on this node's cores (spend_host_work) and counts them in
  /// world.host_work_s.
  void charge(double seconds);
  /// Returns `m` after charging its receive cost (messaging).
  Message received(std::unique_ptr<Message> m);

  SimWorld& world_;
  NodeId self_;
  /// The mailbox this incarnation of the node reads: world.mailboxes[self] when it started (a
  /// failure or a restart moves the node to a fresh one).
  simgrid::s4u::Mailbox* mailbox_;
  /// The receive posted on mailbox_ and not yet matched. It outlives a recv() that timed out, so
  /// a transfer still under way then is delivered to the next recv() instead of being cancelled
  /// with the wait (which would lose the message).
  simgrid::s4u::CommPtr pending_;
  Message* pending_payload_ = nullptr;
  /// With a NIC window, its receive slots instead of pending_ (sim/nic_window.h).
  std::unique_ptr<WindowedInbox> windowed_;
  /// With a messaging io_share above 0, the node's I/O thread, the mailbox's receiver instead of
  /// the role (shared: its actors keep it alive to finish the sends after the role ends).
  std::shared_ptr<IoThread> io_;
  Rng rng_;
  ModelledStore store_;
};

}  // namespace pstwin
