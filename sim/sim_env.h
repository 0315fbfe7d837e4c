// SimEnv: the Env of a node inside the SimGrid simulation.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/device_spec.h"
#include "runtime/env.h"
#include "runtime/roles/job.h"
#include "sim/stragglers.h"

namespace simgrid::s4u {
class Host;
class Mailbox;
}  // namespace simgrid::s4u

namespace pstwin {

/// What all nodes of one simulated run share. Single-threaded (SimGrid runs actors one at a time).
struct SimWorld {
  JobLayout layout;
  std::vector<simgrid::s4u::Mailbox*> mailboxes;  ///< by NodeId
  std::vector<DeviceSpec> devices;                ///< by NodeId
  StragglerModel* stragglers = nullptr;
  MetricsSink* metrics = nullptr;
  std::uint64_t seed = 0;
  std::uint64_t bytes_sent = 0;     ///< encoded bytes of every message sent
  std::uint64_t messages_sent = 0;
};

/// A node's view of the simulation:
/// - send: the message's encoded size (codec.h) travels on the simulated network; the object
///   itself is handed over in memory. Mailboxes have their node as permanent receiver
///   (set_receiver), so transfers start when sent, as a NIC receives while the CPU is busy.
/// - account: the cost is priced by the roofline rule on the node's device, times the worker's
///   straggler factor (drawn once per call on a worker: workers account once per iteration),
///   and spent with this_actor::execute on the node's host.
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
  Rng& rng() override { return rng_; }
  MetricsSink& metrics() override { return *world_.metrics; }

 private:
  SimWorld& world_;
  NodeId self_;
  Rng rng_;
};

}  // namespace pstwin
