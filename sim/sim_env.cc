#include "sim/sim_env.h"

#include <algorithm>
#include <exception>
#include <map>
#include <memory>
#include <stdexcept>

#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>

#include "runtime/codec.h"
#include "sim/host_cpus.h"
#include "sim/io_thread.h"
#include "sim/nic_window.h"

namespace sg4 = simgrid::s4u;

namespace pstwin {

void sim_send(SimWorld& world, NodeId from, NodeId to, Message msg) {
  if (to >= world.mailboxes.size())
    throw std::invalid_argument("send to unknown node " + std::to_string(to));
  msg.header.sender = from;
  msg.header.receiver = to;
  if (!world.link_down.empty() && (world.link_down[from] || world.link_down[to])) {
    world.parked.push_back({from, to, std::move(msg)});
    return;
  }
  const auto size = static_cast<std::uint64_t>(encoded_size(msg));
  world.bytes_sent += size;
  ++world.messages_sent;
  if (world.nic_senders) return world.nic_senders->send(from, to, std::move(msg), size);
  auto* payload = new Message(std::move(msg));
  // If the receiver is gone the transfer never completes; SimGrid then frees the payload.
  world.mailboxes[to]->put_init(payload, size)->detach(
      [](void* p) { delete static_cast<Message*>(p); });
}

void release_parked(SimWorld& world, const std::vector<sg4::Host*>& hosts) {
  std::vector<SimWorld::Parked> waiting;
  waiting.swap(world.parked);
  // One short-lived actor per sender, on its host, sends its messages in their order.
  std::map<NodeId, std::shared_ptr<std::vector<SimWorld::Parked>>> by_sender;
  for (auto& p : waiting) {
    auto& queue = by_sender[p.from];
    if (!queue) queue = std::make_shared<std::vector<SimWorld::Parked>>();
    queue->push_back(std::move(p));
  }
  for (auto& [from, queue] : by_sender) {
    sg4::Host* host = hosts.at(from);
    if (!host->is_on()) continue;
    sg4::Actor::create("resend-" + host->get_name(), host, [&world, queue = queue] {
      for (auto& p : *queue) sim_send(world, p.from, p.to, std::move(p.msg));  // re-parks what must wait
    })->daemonize();
  }
}

SimEnv::SimEnv(SimWorld& world, NodeId self)
    : world_(world),
      self_(self),
      mailbox_(world.mailboxes.at(self)),
      rng_(role_stream_seed(world.seed, world.layout, self)),
      store_(world.checkpoint_bandwidth_Bps) {
  if (world.nic_senders && world.nic_window > 0)
    windowed_ = std::make_unique<WindowedInbox>(*world.nic_senders, self);
  else if (!world.messaging.empty() && world.messaging[self].io_share > 0)
    io_ = IoThread::start(world, self, mailbox_, cores());  // its receiver takes the mailbox
  else mailbox_->set_receiver(sg4::Actor::self());
}

SimEnv::~SimEnv() {
  // Lets SimGrid reclaim the actor; messages still in flight to this node are discarded. Not
  // while the actor is being killed (its host failed): it may not call into SimGrid then.
  if (windowed_ && std::uncaught_exceptions() == 0)
    windowed_->close();
  if (windowed_) return;
  if (io_ && std::uncaught_exceptions() == 0) io_->close();  // its sends still leave
  if (std::uncaught_exceptions() > 0) {
    (void)pending_.detach();  // not released: that would call into SimGrid
    return;
  }
  if (pending_) {
    // The role is done: what still arrives for this incarnation is not for anyone.
    pending_->cancel();
    pending_ = nullptr;
    delete pending_payload_;
  }
  // With a send window, transfers still addressed to this node would hold their senders' slots
  // for ever: its NIC actor receives (and drops) them instead, as WindowedInbox::close does.
  if (world_.mailboxes[self_] == mailbox_)
    mailbox_->set_receiver(world_.nic_senders ? world_.nic_senders->nic_actor(self_) : nullptr);
}

sg4::Host* SimEnv::cores() const { return world_.cpu_hosts.empty() ? nullptr : world_.cpu_hosts[self_]; }

void SimEnv::send(NodeId to, Message msg) {
  // Encoding, checksum and encryption come before the message leaves (encoded_size only when
  // they cost something: it is not free on a large simulation's hot path).
  // With an I/O thread the role pays its part and the I/O thread the rest, before the message leaves.
  double io_s = 0.0;
  if (!world_.messaging.empty() && !world_.messaging[self_].free()) {
    const MessagingSpec& m = world_.messaging[self_];
    const double cost = m.send_s(static_cast<double>(encoded_size(msg)));
    charge(m.role_part(cost));
    io_s = m.io_part(cost);
  }
  if (io_) return io_->send(to, std::move(msg), io_s);
  sim_send(world_, self_, to, std::move(msg));
}

Message SimEnv::received(std::unique_ptr<Message> m) {
  // The role's part only: with an I/O thread, its part was spent before the message got here.
  if (!world_.messaging.empty() && !world_.messaging[self_].free()) {
    const MessagingSpec& spec = world_.messaging[self_];
    charge(spec.role_part(spec.receive_s(static_cast<double>(encoded_size(*m)))));
  }
  return std::move(*m);
}

CheckpointStore* SimEnv::checkpoints() {
  return world_.checkpoint_bandwidth_Bps > 0 ? &store_ : nullptr;
}

void SimEnv::ModelledStore::store(const ShardCheckpoint& checkpoint) {
  // The size of the file a real job would write: the encoding is the measure.
  const auto bytes = encode_checkpoint(checkpoint).size();
  sg4::this_actor::sleep_for(static_cast<double>(bytes) / bandwidth_Bps_);
}

std::optional<Message> SimEnv::recv(double timeout_s) {
  if (windowed_) {
    // Under a NIC window the message arrives the same way; its receiving costs the same.
    std::optional<Message> m = windowed_->recv(timeout_s);
    if (!m) return m;
    return received(std::make_unique<Message>(std::move(*m)));
  }
  if (io_) {
    std::optional<Message> m = io_->recv(timeout_s);
    if (!m) return m;
    return received(std::make_unique<Message>(std::move(*m)));
  }
  const double deadline = now() + timeout_s;
  for (;;) {
    // One receive stays posted across calls: Mailbox::get(timeout) would cancel a transfer that
    // is still under way when the timeout passes, and its message would be lost.
    try {
      if (!pending_) {
        // A message whose transfer is over is taken at once: nothing can be lost, and this is
        // much cheaper than a posted receive and a wait on it (most messages to a busy node).
        if (mailbox_->ready()) return received(std::unique_ptr<Message>(mailbox_->get<Message>()));
        pending_ = mailbox_->get_async<Message>(&pending_payload_);
      }
      if (sg4::Comm::wait_any_for({pending_}, std::max(0.0, deadline - now())) < 0)
        return std::nullopt;  // timed out; the receive stays posted for the next call
      pending_ = nullptr;
      std::unique_ptr<Message> m(pending_payload_);
      pending_payload_ = nullptr;
      return received(std::move(m));
    } catch (const simgrid::NetworkFailureException&) {
      // The sender's host or a link on the way failed during the transfer: that message is lost,
      // as on a real network. Wait on for the next one.
      pending_ = nullptr;
      if (now() >= deadline) return std::nullopt;
    }
  }
}

void SimEnv::charge(double seconds) {
  if (self_ < world_.host_work_s.size()) world_.host_work_s[self_] += seconds;
  spend_host_work(cores(), seconds);
}

double SimEnv::now() const { return sg4::Engine::get_clock(); }

double SimEnv::busy_until() const {
  // Shared cores may stretch a compute past its priced end: it still counts while it runs.
  return world_.workers_computing > 0 ? std::max(world_.compute_until_s, now()) : world_.compute_until_s;
}

void SimEnv::sleep(double seconds) { sg4::this_actor::sleep_for(seconds); }

void SimEnv::account(const Cost& cost) {
  // The scheduler's only cost is its evaluation: a measurement that takes no simulated time
  // unless it shares cores with the roles ("cpu").
  if (self_ == JobLayout::scheduler() && world_.cpu_hosts.empty()) return;
  const DeviceSpec& device = world_.devices.at(self_);
  double seconds = device.seconds(cost);
  if (world_.layout.is_worker(self_)) {
    const auto w = world_.layout.worker_index(self_);
    if (world_.stragglers) seconds *= world_.stragglers->next_factor(w, now(), *world_.metrics);
    if (w < world_.worker_compute_s.size()) world_.worker_compute_s[w] += seconds;
  }
  if (seconds <= 0.0) return;
  // A worker's compute is a sign of life for every role's stall timeout (busy_until).
  const bool worker = world_.layout.is_worker(self_);
  if (worker) {
    world_.compute_until_s = std::max(world_.compute_until_s, now() + seconds);
    ++world_.workers_computing;
  }
  struct Done {
    SimWorld& world;
    bool worker;
    ~Done() {
      if (!worker) return;
      --world.workers_computing;
      world.compute_until_s = std::max(world.compute_until_s, sg4::Engine::get_clock());
    }
  } done{world_, worker};
  // A GPU's kernels run on the GPU; everything else a node computes shares its machine's cores.
  if (!world_.cpu_hosts.empty() && !device.gpu) {
    charge(seconds);
    return;
  }
  // execute() takes flops at the host's speed; the host's speed is the device's peak, so this
  // spends exactly `seconds` while letting host speed profiles act on it.
  sg4::this_actor::execute(seconds * sg4::this_actor::get_host()->get_speed());
}

}  // namespace pstwin
