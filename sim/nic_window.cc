// NIC windows: a daemon actor per node sends its queued messages, `window` at a time; receivers
// keep `window` receives posted on a mailbox without a permanent receiver.
#include "sim/nic_window.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>

namespace sg4 = simgrid::s4u;

namespace pstwin {

namespace {

// What a kick carries: nothing; its arrival wakes the NIC actor to start what was queued.
int kick_token = 0;

/// Drops from `comms` those that failed or were cancelled (a receiver that finished cancels
/// the transfer it had matched); what is left is still under way.
void drop_failed(std::vector<sg4::CommPtr>& comms) {
  std::erase_if(comms, [](const sg4::CommPtr& c) {
    const auto state = c->get_state();
    return state == sg4::Activity::State::FAILED || state == sg4::Activity::State::CANCELED;
  });
}

}  // namespace

struct NicSenders::Nic {
  struct Outgoing {
    NodeId to;
    Message* msg;
    std::uint64_t bytes;
  };
  std::deque<Outgoing> queue;            // not yet started
  std::size_t ordered = 0;               // queue[0, ordered) is in the order it leaves in
  std::size_t rotation = 0;              // where this NIC's rotation of receivers starts
  std::vector<sg4::CommPtr> in_flight;   // started, at most window_
  sg4::Mailbox* kick = nullptr;          // the role wakes its NIC actor through it
  bool kicked = false;                   // a kick is on its way: no need for another
  sg4::ActorPtr actor;
};

NicSenders::NicSenders(std::uint32_t window, const std::vector<sg4::Mailbox*>& mailboxes,
                       const std::vector<sg4::Host*>& hosts)
    : window_(window), mailboxes_(mailboxes) {
  for (std::size_t n = 0; n < hosts.size(); ++n) {
    auto nic = std::make_unique<Nic>();
    const std::string name = "nic-" + hosts[n]->get_name() + "-" + std::to_string(n);
    nic->kick = sg4::Mailbox::by_name(name);
    // Golden-ratio spacing: consecutive senders start their rotations far apart, evenly.
    const double golden = 0.6180339887498949 * static_cast<double>(n);
    nic->rotation = static_cast<std::size_t>((golden - std::floor(golden)) * static_cast<double>(hosts.size()));
    Nic* self = nic.get();
    nic->actor = sg4::Actor::create(name, hosts[n], [this, self] { run_nic(*self); });
    nic->actor->daemonize();
    nics_.push_back(std::move(nic));
  }
}

NicSenders::~NicSenders() {
  for (auto& nic : nics_)
    for (auto& out : nic->queue) delete out.msg;
}

void NicSenders::send(NodeId from, NodeId to, Message msg, std::uint64_t bytes) {
  Nic& nic = *nics_.at(from);
  nic.queue.push_back({to, new Message(std::move(msg)), bytes});
  // A NIC with every slot taken starts the next message when one completes; one with a free
  // slot is waiting and must be woken. The kick is a message of 0 bytes to itself (loopback,
  // no simulated time), because a SimGrid wait cannot also wait on a condition variable.
  if (nic.kicked || nic.in_flight.size() >= window_) return;
  nic.kicked = true;
  nic.kick->put_init(&kick_token, 0)->detach();
}

sg4::ActorPtr NicSenders::nic_actor(NodeId node) const { return nics_.at(node)->actor; }

void NicSenders::run_nic(Nic& nic) {
  int* kick_payload = nullptr;
  sg4::CommPtr kick = nic.kick->get_async<int>(&kick_payload);
  std::vector<sg4::CommPtr> waiting;
  const std::size_t nodes = mailboxes_.size();
  for (;;) {
    // What the role sent since the NIC last looked is one burst (roles send without yielding).
    // Its receivers are served in a rotation that starts at a place of this sender's own, so
    // that senders do not all serve the same receiver first; see docs/DESIGN.md, "NIC windows".
    if (nic.ordered < nic.queue.size()) {
      const auto key = [&](const Nic::Outgoing& o) { return (o.to + nodes - nic.rotation) % nodes; };
      std::stable_sort(nic.queue.begin() + static_cast<long>(nic.ordered), nic.queue.end(),
                       [&](const Nic::Outgoing& a, const Nic::Outgoing& b) { return key(a) < key(b); });
      nic.ordered = nic.queue.size();
    }
    while (nic.in_flight.size() < window_ && !nic.queue.empty()) {
      const Nic::Outgoing out = nic.queue.front();
      nic.queue.pop_front();
      --nic.ordered;
      nic.in_flight.push_back(mailboxes_[out.to]->put_async(out.msg, out.bytes));
    }
    waiting = nic.in_flight;
    waiting.push_back(kick);
    ssize_t done = -1;
    try {
      done = sg4::Comm::wait_any(waiting);
    } catch (const simgrid::Exception&) {
      drop_failed(nic.in_flight);  // the receiver finished while its transfer was under way
      continue;
    }
    if (done == static_cast<ssize_t>(waiting.size()) - 1) {
      nic.kicked = false;
      kick = nic.kick->get_async<int>(&kick_payload);
    } else {
      nic.in_flight.erase(nic.in_flight.begin() + done);
    }
  }
}

WindowedInbox::WindowedInbox(sg4::Mailbox* mailbox, std::uint32_t window)
    : mailbox_(mailbox), posted_(window), payloads_(window, nullptr) {
  for (std::size_t slot = 0; slot < posted_.size(); ++slot) post(slot);
}

void WindowedInbox::post(std::size_t slot) {
  payloads_[slot] = nullptr;
  posted_[slot] = mailbox_->get_async<Message>(&payloads_[slot]);
}

std::optional<Message> WindowedInbox::recv(double timeout_s) {
  const double deadline = sg4::Engine::get_clock() + timeout_s;
  for (;;) {
    ssize_t slot = -1;
    try {
      slot = sg4::Comm::wait_any_for(posted_, std::max(0.0, deadline - sg4::Engine::get_clock()));
    } catch (const simgrid::Exception&) {
      // A sender's host failed during the transfer: that message is lost; post again.
      for (std::size_t s = 0; s < posted_.size(); ++s) {
        const auto state = posted_[s]->get_state();
        if (state == sg4::Activity::State::FAILED || state == sg4::Activity::State::CANCELED) post(s);
      }
      if (sg4::Engine::get_clock() >= deadline) return std::nullopt;
      continue;
    }
    if (slot < 0) return std::nullopt;
    std::unique_ptr<Message> m(payloads_[static_cast<std::size_t>(slot)]);
    post(static_cast<std::size_t>(slot));  // the window stays full while the role handles m
    return std::move(*m);
  }
}

void WindowedInbox::close(const sg4::ActorPtr& heir) {
  for (std::size_t slot = 0; slot < posted_.size(); ++slot) {
    if (posted_[slot]->get_state() == sg4::Activity::State::FINISHED) delete payloads_[slot];
    else posted_[slot]->cancel();
  }
  posted_.clear();
  mailbox_->set_receiver(heir);
}

WindowedInbox::~WindowedInbox() {
  // Not closed: the actor is being killed; SimGrid reclaims its receives itself.
  for (auto& c : posted_) (void)c.detach();
}

}  // namespace pstwin
