#include "sim/sim_env.h"

#include <memory>
#include <stdexcept>

#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>

#include "runtime/codec.h"

namespace sg4 = simgrid::s4u;

namespace pstwin {

namespace {
constexpr std::uint64_t kRoleStream = 0;
}

SimEnv::SimEnv(SimWorld& world, NodeId self)
    : world_(world), self_(self), rng_(Rng::derive_seed(world.seed, self, kRoleStream)) {
  world_.mailboxes.at(self_)->set_receiver(sg4::Actor::self());
}

SimEnv::~SimEnv() {
  // Lets SimGrid reclaim the actor; messages still in flight to this node are discarded.
  world_.mailboxes.at(self_)->set_receiver(nullptr);
}

void SimEnv::send(NodeId to, Message msg) {
  if (to >= world_.mailboxes.size())
    throw std::invalid_argument("send to unknown node " + std::to_string(to));
  msg.header.sender = self_;
  msg.header.receiver = to;
  const auto size = static_cast<std::uint64_t>(encoded_size(msg));
  world_.bytes_sent += size;
  ++world_.messages_sent;
  auto* payload = new Message(std::move(msg));
  // If the receiver is gone the transfer never completes; SimGrid then frees the payload.
  world_.mailboxes[to]->put_init(payload, size)->detach(
      [](void* p) { delete static_cast<Message*>(p); });
}

std::optional<Message> SimEnv::recv(double timeout_s) {
  try {
    std::unique_ptr<Message> m(world_.mailboxes[self_]->get<Message>(timeout_s));
    return std::move(*m);
  } catch (const simgrid::TimeoutException&) {
    return std::nullopt;
  }
}

double SimEnv::now() const { return sg4::Engine::get_clock(); }

void SimEnv::sleep(double seconds) { sg4::this_actor::sleep_for(seconds); }

void SimEnv::account(const Cost& cost) {
  double seconds = world_.devices.at(self_).seconds(cost);
  if (world_.layout.is_worker(self_) && world_.stragglers)
    seconds *= world_.stragglers->next_factor(world_.layout.worker_index(self_), now(),
                                              *world_.metrics);
  if (seconds <= 0.0) return;
  // execute() takes flops at the host's speed; the host's speed is the device's peak, so this
  // spends exactly `seconds` while letting host speed profiles act on it.
  sg4::this_actor::execute(seconds * sg4::this_actor::get_host()->get_speed());
}

}  // namespace pstwin
