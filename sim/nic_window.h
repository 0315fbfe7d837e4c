// NIC windows ("simulation": {"nic_window": K}): at most K transfers in flight out of each node's
// NIC and K into it; the rest wait in send order, as a TCP sender's window and an incast-limited
// receiver would hold them. Bounds the flows SimGrid shares bandwidth among to about K per NIC,
// which is what makes 10,000 workers affordable (docs/DESIGN.md, "NIC windows").
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include <simgrid/s4u/Comm.hpp>

#include "runtime/message.h"
#include "sim/serialising_slots.h"

namespace simgrid::s4u {
class Host;
class Mailbox;
}  // namespace simgrid::s4u

namespace pstwin {

/// Under "nic_send_window", the most of one message that enters a NIC's first-in-first-out queue
/// at once: 64 KiB, the largest packet Linux's TCP hands to the queue (a GSO packet is one IP
/// packet, at most 65,535 bytes, rounded here to 2^16). TCP Small Queues holds a connection's
/// further data back until what it queued has left, so a longer message leaves in parts with other
/// connections' messages between them, and a reply written after a 868 KB snapshot waits for one
/// part of it, not all of it (docs/DESIGN.md, "NIC windows").
inline constexpr std::uint64_t kNicPartBytes = 65536;

/// The sending half, one per node, and the receivers' backlogs: a queue of messages and a daemon
/// actor on the node's host (its "NIC") that keeps at most `window` of them in flight. A message
/// leaves its NIC's queue in send order when a slot is free; it then becomes a flow on the network
/// at once if its receiver's WindowedInbox has a receive posted that no other transfer has
/// claimed, else it waits in the receiver's backlog (here, not in SimGrid's mailbox, whose queue
/// SimGrid 3.32 scans and shifts on every match: W waiting pushes made a BSP round cost W^2) until
/// the receiver has room, when the receiver starts it from the sender's host. It holds its
/// sender's slot until it has arrived (a backlogged one: until the receiver's role takes it, as
/// only the receiver sees that transfer end), so that both windows bound the flows. Under
/// "nic_send_window" a NIC instead sends in the order its role sent (no rotation) and a slot
/// frees when its message's last byte has left the sender's link (SerialisingSlots), as a real
/// NIC's transmit queue does; propagation and reception overlap the next message. There, a message
/// longer than kNicPartBytes leaves in parts, taking turns with the messages queued behind it.
/// Single-threaded, as SimGrid runs actors one at a time.
class NicSenders {
 public:
  /// REQUIRES: window >= 1; `mailboxes` and `hosts` by NodeId, the same length; an engine whose
  /// platform is built. Starts one daemon actor per node (killed when the roles are all done).
  /// `receivers_take_all`: "simulation.nic_send_window", where receivers keep no window (no
  /// WindowedInbox; each mailbox has its role as permanent receiver) and a released message is a
  /// flow at once; false: "nic_window", both windows.
  /// `part_bytes`: under nic_send_window, the most of one message that enters the queue at once
  /// (kNicPartBytes unless the scenario's "nic_send_part" says otherwise). REQUIRES: > 0.
  NicSenders(std::uint32_t window, const std::vector<simgrid::s4u::Mailbox*>& mailboxes,
             const std::vector<simgrid::s4u::Host*>& hosts, bool receivers_take_all = false,
             std::uint64_t part_bytes = kNicPartBytes);
  ~NicSenders();
  NicSenders(const NicSenders&) = delete;
  NicSenders& operator=(const NicSenders&) = delete;

  /// Queues `msg` (its header's sender and receiver set) to travel `bytes` from node `from` to
  /// node `to`; it leaves when `from`'s NIC has a free slot, in the order sent. Never blocks.
  void send(NodeId from, NodeId to, Message msg, std::uint64_t bytes);

  /// The actor that holds a finished node's mailbox under "nic_send_window", so that transfers
  /// still addressed to it complete (and are dropped) instead of holding a sender's slot for ever.
  simgrid::s4u::ActorPtr nic_actor(NodeId node) const;

 private:
  friend class WindowedInbox;
  struct Nic;
  /// A message queued at its sender's NIC; `bytes` is what is still to leave.
  struct Outgoing {
    NodeId to;
    Message* msg;
    std::uint64_t bytes;
    bool rest = false;  // nic_send_window: a part of it has left already
  };
  /// A message that holds its sender's slot and waits for a receive slot at its receiver.
  struct Backlogged {
    NodeId from;
    Message* msg;
    std::uint64_t bytes;
  };
  /// What senders know of a node's receiving side.
  struct Receiver {
    // kTakesAll: no receive window (nic_send_window), every transfer a flow at once.
    enum class State { kNotOpen, kOpen, kClosed, kTakesAll } state = State::kNotOpen;
    std::uint32_t unclaimed = 0;       // receives posted on its mailbox that no transfer claimed
    std::deque<Backlogged> backlog;    // in the order their NICs released them
  };
  void run_nic(Nic& nic);
  /// Puts `msg` on `to`'s mailbox from the calling NIC actor, or backlogs it (see the class).
  void release(NodeId from, NodeId to, Message* msg, std::uint64_t bytes);
  /// A transfer the receiver started from its backlog has ended (arrived or dropped): frees its
  /// sender's slot and acknowledges it to that NIC if messages wait for one.
  void backlogged_done(NodeId from);
  /// From the node's own role: wakes its NIC actor, if it waits with a free slot, in no simulated
  /// time (rings its doorbell).
  void wake(Nic& nic);
  /// From a receiver: wakes the sender's NIC actor, if messages wait for a slot, after one network
  /// latency (a 0-byte message from the receiver's host).
  void acknowledge(Nic& nic);
  /// Whether `out`, queued at `nic`, must wait for an earlier message to the same receiver to
  /// arrive or to leave in parts (nic_send_window only): a TCP connection delivers in order.
  bool behind_in_stream(const Nic& nic, const Outgoing& out) const;
  /// The index in `nic`'s queue of the message that leaves next: the first whose connection has
  /// nothing ahead of it (under nic_send_window a message behind its own connection's earlier
  /// one waits without holding back other connections', as each TCP socket keeps its own send
  /// buffer), or the queue's length if none can leave now.
  std::size_t next_ready(const Nic& nic) const;
  /// nic_send_window: puts the first part_bytes_ of `out` on the wire from the calling NIC actor
  /// and keeps the rest for take_refills. REQUIRES: out.bytes > part_bytes_.
  void release_part(Nic& nic, Outgoing out);
  /// nic_send_window: the rests whose part has left by now rejoin the queue's end, behind what
  /// was queued meanwhile (next_ready keeps their connections' later messages behind them).
  void take_refills(Nic& nic);
  /// The rate (bytes/s) at which a lone message leaves `from`'s own link on the route to `to`
  /// (its bandwidth times SimGrid's bandwidth factor); 0 with no link.
  double sender_bandwidth(NodeId from, NodeId to) const;

  std::uint32_t window_;
  std::uint64_t part_bytes_;  // nic_send_window: see kNicPartBytes
  double bandwidth_factor_ = 1.0;  // nic_send_window: SimGrid's network/bandwidth-factor
  std::vector<simgrid::s4u::Mailbox*> mailboxes_;
  std::vector<simgrid::s4u::Host*> hosts_;
  std::vector<std::unique_ptr<Nic>> nics_;  // by NodeId
  std::vector<Receiver> receivers_;         // by NodeId
};

/// The receiving half, owned by a node's SimEnv: `window` receive slots. A free slot first takes
/// the oldest message of the node's backlog (NicSenders), starting its transfer from the sender's
/// host; with none waiting it is a receive posted on the node's mailbox (which has no permanent
/// receiver), which the next message sent to the node claims. Slots are refilled as soon as the
/// role takes a message, so up to `window` messages can land while the role computes, as in a
/// socket's receive buffer. Must be constructed and used inside the node's actor.
class WindowedInbox {
 public:
  /// REQUIRES: `self`'s mailbox is `nics`'s mailbox of that node; one inbox per node at a time.
  WindowedInbox(NicSenders& nics, NodeId self);
  /// Cancels the slots' transfers and drops the backlog (freeing their senders' slots); the
  /// node's NIC actor becomes the mailbox's permanent receiver, so that late transfers to the
  /// finished node complete and are dropped. Not while the actor is being killed (it may not call
  /// into SimGrid then).
  void close();
  ~WindowedInbox();

  /// The next message to arrive within `timeout_s` simulated seconds, or nullopt. A message that
  /// arrived while the node was busy is returned at once. A transfer that failed is skipped.
  std::optional<Message> recv(double timeout_s);

 private:
  /// Gives `slot` the oldest backlogged message, or a posted receive when none waits.
  void fill(std::size_t slot);
  NicSenders& nics_;
  NodeId self_;
  simgrid::s4u::Mailbox* mailbox_;
  std::vector<simgrid::s4u::CommPtr> slots_;
  std::vector<Message*> payloads_;   // by slot: the message (a posted receive writes it there)
  std::vector<NodeId> backlogged_;   // by slot: its sender when the inbox started the transfer,
                                     // else kNoSender
  static constexpr NodeId kNoSender = ~NodeId{0};
};

}  // namespace pstwin
