// NIC windows: a daemon actor per node sends its queued messages, `window` at a time; receivers
// keep `window` receives posted on a mailbox without a permanent receiver.
#include "sim/nic_window.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>
#include <xbt/config.hpp>

namespace sg4 = simgrid::s4u;

namespace pstwin {

namespace {

// What a kick or a doorbell's ring carries: nothing; it only wakes the NIC actor.
int kick_token = 0;

/// Drops from `comms` those that failed or were cancelled (a receiver that finished cancels
/// the transfer it had matched); what is left is still under way.
void drop_failed(std::vector<sg4::CommPtr>& comms) {
  std::erase_if(comms, [](const sg4::CommPtr& c) {
    const auto state = c->get_state();
    return state == sg4::Activity::State::FAILED || state == sg4::Activity::State::CANCELED;
  });
}

/// SimGrid's network/bandwidth-factor (LV08's default: 0.97), by which a lone flow's rate falls
/// short of its link's bandwidth: with it, a slot frees when SimGrid's flow has sent its last byte.
/// SimGrid 3.32 holds the option as a number (a string there crashes).
double configured_bandwidth_factor() {
  const double factor = simgrid::config::get_value<double>("network/bandwidth-factor");
  return factor > 0 ? factor : 1.0;
}

}  // namespace

struct NicSenders::Nic {
  using Outgoing = NicSenders::Outgoing;
  NodeId node = 0;
  std::deque<Outgoing> queue;            // not yet started
  // nic_send_window: the rest of a message whose part is on the wire, and when that part's last
  // byte leaves (then the rest joins the queue, as TCP refills its share of the NIC's queue).
  std::deque<std::pair<double, Outgoing>> refills;
  std::size_t rests = 0;                 // nic_send_window: queued messages that are rests
  std::size_t ordered = 0;               // queue[0, ordered) is in the order it leaves in
  std::size_t rotation = 0;              // where this NIC's rotation of receivers starts
  std::vector<sg4::CommPtr> in_flight;   // put on a receiver's mailbox
  // nic_send_window: parts of longer messages under way (release_part), and their receivers.
  std::vector<std::pair<sg4::CommPtr, NodeId>> parts;
  std::uint32_t backlogged = 0;          // in a receiver's backlog or started by the receiver
  sg4::Mailbox* kick = nullptr;          // receivers acknowledge backlogged transfers through it
  bool kicked = false;                   // an acknowledgement is on its way: no need for another
  // The role wakes its NIC actor through its doorbell, a receive the actor keeps posted on a
  // mailbox of its own and waits on with its transfers (see NicSenders::wake).
  sg4::Mailbox* doorbell = nullptr;
  sg4::CommPtr bell;                     // the posted receive; null until the actor first waits
  int* bell_payload = nullptr;           // never written: a ring fails the receive
  bool rung = false;                     // bell failed; the actor has not yet posted another
  bool awake = true;                     // not blocked in its wait: it will see the queue anyway
  sg4::ActorPtr actor;
  // nic_send_window: when each slot frees (simulated s), the end of its message's serialisation;
  // in_flight then holds no slot. See SerialisingSlots.
  SerialisingSlots serialising;
  bool fifo = false;                     // nic_send_window: no rotation, slots held by `serialising`
  std::size_t busy() const { return fifo ? serialising.held() : in_flight.size() + backlogged; }
};

NicSenders::NicSenders(std::uint32_t window, const std::vector<sg4::Mailbox*>& mailboxes,
                       const std::vector<sg4::Host*>& hosts, bool receivers_take_all, std::uint64_t part_bytes)
    : window_(window), part_bytes_(part_bytes), mailboxes_(mailboxes), hosts_(hosts), receivers_(hosts.size()) {
  if (receivers_take_all)
    for (auto& r : receivers_) r.state = Receiver::State::kTakesAll;
  if (receivers_take_all) bandwidth_factor_ = configured_bandwidth_factor();
  for (std::size_t n = 0; n < hosts.size(); ++n) {
    auto nic = std::make_unique<Nic>();
    nic->node = static_cast<NodeId>(n);
    const std::string name = "nic-" + hosts[n]->get_name() + "-" + std::to_string(n);
    nic->kick = sg4::Mailbox::by_name(name);
    nic->doorbell = sg4::Mailbox::by_name(name + "-doorbell");
    // Golden-ratio spacing: consecutive senders start their rotations far apart, evenly.
    const double golden = 0.6180339887498949 * static_cast<double>(n);
    nic->rotation = static_cast<std::size_t>((golden - std::floor(golden)) * static_cast<double>(hosts.size()));
    nic->fifo = receivers_take_all;
    Nic* self = nic.get();
    nic->actor = sg4::Actor::create(name, hosts[n], [this, self] { run_nic(*self); });
    nic->actor->daemonize();
    nics_.push_back(std::move(nic));
  }
}

NicSenders::~NicSenders() {
  for (auto& nic : nics_) {
    for (auto& out : nic->queue) delete out.msg;
    for (auto& [at, out] : nic->refills) delete out.msg;
  }
  for (auto& r : receivers_)
    for (auto& b : r.backlog) delete b.msg;
}

void NicSenders::send(NodeId from, NodeId to, Message msg, std::uint64_t bytes) {
  Nic& nic = *nics_.at(from);
  nic.queue.push_back({to, new Message(std::move(msg)), bytes});
  wake(nic);
}

void NicSenders::wake(Nic& nic) {
  // A NIC with every slot taken starts the next message when one frees; one with a free slot is
  // waiting and must be woken, in no simulated time. SimGrid 3.32 has no condition variable an
  // actor can wait on beside its transfers, and a message to the node's own host costs two link
  // latencies in a star (up and down the host's link). So the role matches the doorbell's posted
  // receive and cancels that transfer at once: it fails at the current time, still in its
  // latency, and the actor's wait_any ends with an exception. An actor that is awake looks at
  // the queue before it waits. See docs/DESIGN.md, "NIC windows", for what else was tried.
  if (nic.awake || nic.rung || nic.queue.empty() || nic.busy() >= window_) return;
  nic.rung = true;
  nic.doorbell->put_async(&kick_token, 0)->cancel();
}

void NicSenders::acknowledge(Nic& nic) {
  // A 0-byte message from the receiver's host: one network latency, as a TCP acknowledgement.
  if (nic.kicked || nic.queue.empty() || nic.busy() >= window_) return;
  nic.kicked = true;
  nic.kick->put_init(&kick_token, 0)->detach();
}

void NicSenders::release(NodeId from, NodeId to, Message* msg, std::uint64_t bytes) {
  Nic& nic = *nics_[from];
  Receiver& r = receivers_[to];
  const bool takes_all = r.state == Receiver::State::kClosed || r.state == Receiver::State::kTakesAll;
  if (takes_all || (r.unclaimed > 0 && r.backlog.empty())) {
    // A receive is posted (or the receiver, or the finished node's NIC, takes everything): the
    // flow starts now.
    if (!takes_all) --r.unclaimed;
    nic.in_flight.push_back(mailboxes_[to]->put_async(msg, bytes));
    if (nic.fifo) nic.serialising.hold(sg4::Engine::get_clock(), bytes, sender_bandwidth(from, to));
    return;
  }
  r.backlog.push_back({from, msg, bytes});
  ++nic.backlogged;
}

double NicSenders::sender_bandwidth(NodeId from, NodeId to) const {
  // In a star of separate machines (the only layout windows accept) the route's first link is
  // the sender's own: its NIC's line rate.
  std::vector<sg4::Link*> links;
  double latency = 0;
  hosts_[from]->route_to(hosts_[to], links, &latency);
  return links.empty() ? 0.0 : links.front()->get_bandwidth() * bandwidth_factor_;
}

void NicSenders::release_part(Nic& nic, Outgoing out) {
  // The part loads the same links as the message would (a transfer between the hosts, with no
  // mailbox: only the last part carries the message); the rest rejoins the queue when the part's
  // last byte has left, behind what was queued meanwhile (see kNicPartBytes).
  nic.parts.emplace_back(sg4::Comm::sendto_async(hosts_[nic.node], hosts_[out.to], part_bytes_), out.to);
  const double left_at =
      nic.serialising.hold(sg4::Engine::get_clock(), part_bytes_, sender_bandwidth(nic.node, out.to));
  out.bytes -= part_bytes_;
  out.rest = true;
  nic.refills.emplace_back(left_at, out);
}

void NicSenders::take_refills(Nic& nic) {
  const double now = sg4::Engine::get_clock();
  while (!nic.refills.empty() && nic.refills.front().first <= now + 1e-12) {
    // Behind everything queued meanwhile, as TCP Small Queues lets the connection hand over its
    // next part only once the last has left; next_ready keeps its connection's later messages
    // behind it.
    nic.queue.push_back(nic.refills.front().second);
    nic.refills.pop_front();
    ++nic.ordered;
    ++nic.rests;
  }
}

bool NicSenders::behind_in_stream(const Nic& nic, const Outgoing& next) const {
  // A TCP connection delivers in order: a message cannot arrive before the one sent ahead of it
  // to the same receiver, which SimGrid's flows (each on its own, a short one faster) would let
  // it. So it waits for that one to arrive. Only nic_send_window frees slots before arrival.
  if (!nic.fifo) return false;
  const NodeId to_node = next.to;
  // A message's parts go one after another; its last part, which delivers it, waits until the
  // others have arrived, so that the message arrives whole.
  if (std::any_of(nic.refills.begin(), nic.refills.end(), [&](const auto& r) { return r.second.to == to_node; }))
    return true;
  if (next.bytes <= part_bytes_ &&
      std::any_of(nic.parts.begin(), nic.parts.end(), [&](const auto& p) {
        return p.second == to_node && p.first->get_state() != sg4::Activity::State::FINISHED;
      }))
    return true;
  sg4::Mailbox* to = mailboxes_[to_node];
  return std::any_of(nic.in_flight.begin(), nic.in_flight.end(),
                     [&](const sg4::CommPtr& c) { return c->get_mailbox() == to; });
}

std::size_t NicSenders::next_ready(const Nic& nic) const {
  const std::size_t n = nic.queue.size();
  if (!nic.fifo || n == 0) return 0;
  // Receivers whose connection is held up, so that a later message to them may not pass an
  // earlier one: the rest of a message (which rejoined at the queue's end, behind messages its
  // connection sent later) and any message that must wait (behind_in_stream). Few messages queue
  // at a NIC: linear scans.
  std::vector<NodeId> held;
  if (nic.rests > 0)  // a server's queue can hold a reply to every worker: scan only if needed
    for (const Outgoing& out : nic.queue)
      if (out.rest) held.push_back(out.to);
  for (std::size_t i = 0; i < n; ++i) {
    const Outgoing& out = nic.queue[i];
    if (!out.rest && std::find(held.begin(), held.end(), out.to) != held.end()) continue;
    if (!behind_in_stream(nic, out)) return i;
    held.push_back(out.to);
  }
  return n;
}

sg4::ActorPtr NicSenders::nic_actor(NodeId node) const { return nics_.at(node)->actor; }

void NicSenders::backlogged_done(NodeId from) {
  Nic& nic = *nics_[from];
  --nic.backlogged;
  acknowledge(nic);
}

void NicSenders::run_nic(Nic& nic) {
  int* kick_payload = nullptr;
  sg4::CommPtr kick = nic.kick->get_async<int>(&kick_payload);
  std::vector<sg4::CommPtr> waiting;
  const std::size_t nodes = mailboxes_.size();
  for (;;) {
    nic.awake = true;
    nic.serialising.release_until(sg4::Engine::get_clock());
    if (!nic.bell || nic.rung) {
      nic.bell = nic.doorbell->get_async<int>(&nic.bell_payload);
      nic.rung = false;
    }
    // What the role sent since the NIC last looked is one burst (roles send without yielding).
    // Its receivers are served in a rotation that starts at a place of this sender's own, so
    // that senders do not all serve the same receiver first; see docs/DESIGN.md, "NIC windows".
    // nic_send_window leaves them first in, first out, as a process's writes to its sockets pass
    // its qdisc.
    if (nic.fifo) nic.ordered = nic.queue.size();
    if (nic.ordered < nic.queue.size()) {
      const auto key = [&](const Nic::Outgoing& o) { return (o.to + nodes - nic.rotation) % nodes; };
      std::stable_sort(nic.queue.begin() + static_cast<long>(nic.ordered), nic.queue.end(),
                       [&](const Nic::Outgoing& a, const Nic::Outgoing& b) { return key(a) < key(b); });
      nic.ordered = nic.queue.size();
    }
    if (nic.fifo) take_refills(nic);
    for (std::size_t i; nic.busy() < window_ && (i = next_ready(nic)) < nic.queue.size();) {
      const Nic::Outgoing out = nic.queue[i];
      nic.queue.erase(nic.queue.begin() + static_cast<long>(i));
      --nic.ordered;
      if (out.rest) --nic.rests;
      if (nic.fifo && out.bytes > part_bytes_) release_part(nic, out);
      else release(nic.node, out.to, out.msg, out.bytes);
    }
    // Posting and releasing yield to other actors: a role that sent meanwhile did not ring, as
    // the actor was awake. From this check to the wait nothing yields.
    if (nic.busy() < window_ && next_ready(nic) < nic.queue.size()) continue;
    waiting = nic.in_flight;
    for (const auto& part : nic.parts) waiting.push_back(part.first);
    waiting.push_back(kick);
    waiting.push_back(nic.bell);
    ssize_t done = -1;
    nic.awake = false;
    try {
      // A held serialisation slot wakes the actor when it frees (wait_any_for returns -1).
      const double now = sg4::Engine::get_clock();
      done = nic.serialising.held() > 0 ? sg4::Comm::wait_any_for(waiting, nic.serialising.next_free_s() - now)
                                        : sg4::Comm::wait_any(waiting);
    } catch (const simgrid::Exception&) {
      // The role rang (the loop posts a new receive), or a receiver finished while its transfer
      // was under way.
      drop_failed(nic.in_flight);
      std::erase_if(nic.parts, [](const auto& p) {
        const auto state = p.first->get_state();
        return state == sg4::Activity::State::FAILED || state == sg4::Activity::State::CANCELED;
      });
      // A ring wakes the NIC at once, before the role has queued the rest of its burst, which
      // the rotation above must see whole. An execution of 0 flops ends at the same simulated
      // time, but only once every actor has run as far as it can, the role included.
      if (nic.rung) sg4::this_actor::execute(0);
      continue;
    }
    if (done < 0) {
      nic.serialising.release_until(sg4::Engine::get_clock());
    } else if (done == static_cast<ssize_t>(waiting.size()) - 2) {
      nic.kicked = false;
      kick = nic.kick->get_async<int>(&kick_payload);
    } else if (static_cast<std::size_t>(done) < nic.in_flight.size()) {
      nic.in_flight.erase(nic.in_flight.begin() + done);
    } else {
      nic.parts.erase(nic.parts.begin() + (done - static_cast<ssize_t>(nic.in_flight.size())));
    }
  }
}

WindowedInbox::WindowedInbox(NicSenders& nics, NodeId self)
    : nics_(nics),
      self_(self),
      mailbox_(nics.mailboxes_.at(self)),
      slots_(nics.window_),
      payloads_(nics.window_, nullptr),
      backlogged_(nics.window_, kNoSender) {
  nics_.receivers_[self_].state = NicSenders::Receiver::State::kOpen;
  for (std::size_t slot = 0; slot < slots_.size(); ++slot) fill(slot);
}

void WindowedInbox::fill(std::size_t slot) {
  auto& r = nics_.receivers_[self_];
  if (!r.backlog.empty()) {
    // The oldest waiting message becomes a flow from its sender's host, as if its sender had
    // put it on the mailbox now: the transfer SimGrid would have matched first.
    const NicSenders::Backlogged b = r.backlog.front();
    r.backlog.pop_front();
    payloads_[slot] = b.msg;
    backlogged_[slot] = b.from;
    slots_[slot] = sg4::Comm::sendto_async(nics_.hosts_[b.from], nics_.hosts_[self_], b.bytes);
    return;
  }
  payloads_[slot] = nullptr;
  backlogged_[slot] = kNoSender;
  // Counted before posting: get_async yields to the other actors, and a NIC that ran then and
  // saw no room would backlog its message beside a receive that no one would ever claim.
  ++r.unclaimed;
  slots_[slot] = mailbox_->get_async<Message>(&payloads_[slot]);
}

std::optional<Message> WindowedInbox::recv(double timeout_s) {
  const double deadline = sg4::Engine::get_clock() + timeout_s;
  for (;;) {
    ssize_t slot = -1;
    try {
      slot = sg4::Comm::wait_any_for(slots_, std::max(0.0, deadline - sg4::Engine::get_clock()));
    } catch (const simgrid::Exception&) {
      // A sender's host failed during the transfer: that message is lost; refill the slot.
      for (std::size_t s = 0; s < slots_.size(); ++s) {
        const auto state = slots_[s]->get_state();
        if (state != sg4::Activity::State::FAILED && state != sg4::Activity::State::CANCELED) continue;
        // A posted receive that failed had been claimed by a transfer: nothing to uncount.
        if (backlogged_[s] != kNoSender) {
          delete payloads_[s];
          nics_.backlogged_done(backlogged_[s]);
        }
        fill(s);
      }
      if (sg4::Engine::get_clock() >= deadline) return std::nullopt;
      continue;
    }
    if (slot < 0) return std::nullopt;
    const auto s = static_cast<std::size_t>(slot);
    std::unique_ptr<Message> m(payloads_[s]);
    if (backlogged_[s] != kNoSender) nics_.backlogged_done(backlogged_[s]);
    fill(s);  // the window stays full while the role handles m
    return std::move(*m);
  }
}

void WindowedInbox::close() {
  // Before anything that yields: what senders release from now on is put on the mailbox, whose
  // permanent receiver becomes the node's NIC actor (a transfer that matches one of the receives
  // still posted fails when it is cancelled below, and its sender's NIC drops it).
  auto& r = nics_.receivers_[self_];
  r.state = NicSenders::Receiver::State::kClosed;
  r.unclaimed = 0;
  mailbox_->set_receiver(nics_.nics_[self_]->actor);
  for (std::size_t slot = 0; slot < slots_.size(); ++slot) {
    const bool finished = slots_[slot]->get_state() == sg4::Activity::State::FINISHED;
    if (!finished) slots_[slot]->cancel();
    // A posted receive's payload exists only once it finished; a started transfer's always.
    if (finished || backlogged_[slot] != kNoSender) delete payloads_[slot];
    if (backlogged_[slot] != kNoSender) nics_.backlogged_done(backlogged_[slot]);
  }
  slots_.clear();
  // What still waits for the finished node is dropped (it would have been received by no one).
  std::deque<NicSenders::Backlogged> dropped;
  dropped.swap(r.backlog);
  for (auto& b : dropped) {
    delete b.msg;
    nics_.backlogged_done(b.from);
  }
}

WindowedInbox::~WindowedInbox() {
  // Not closed: the actor is being killed; SimGrid reclaims its transfers itself.
  for (auto& c : slots_) (void)c.detach();
}

}  // namespace pstwin
