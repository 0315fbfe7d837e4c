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

namespace simgrid::s4u {
class Host;
class Mailbox;
}  // namespace simgrid::s4u

namespace pstwin {

/// The sending half, one per node: a queue of messages and a daemon actor on the node's host
/// (its "NIC") that keeps at most `window` of them in flight. A message in flight has been put
/// on the receiver's mailbox; it becomes a flow on the network only once the receiver's
/// WindowedInbox has a receive posted for it, so that both windows bound the flows.
/// Single-threaded, as SimGrid runs actors one at a time.
class NicSenders {
 public:
  /// REQUIRES: window >= 1; `mailboxes` and `hosts` by NodeId, the same length; an engine whose
  /// platform is built. Starts one daemon actor per node (killed when the roles are all done).
  NicSenders(std::uint32_t window, const std::vector<simgrid::s4u::Mailbox*>& mailboxes,
             const std::vector<simgrid::s4u::Host*>& hosts);
  ~NicSenders();
  NicSenders(const NicSenders&) = delete;
  NicSenders& operator=(const NicSenders&) = delete;

  /// Queues `msg` (its header's sender and receiver set) to travel `bytes` from node `from` to
  /// node `to`; it leaves when `from`'s NIC has a free slot, in the order sent. Never blocks.
  void send(NodeId from, NodeId to, Message msg, std::uint64_t bytes);

  /// The actor that holds a finished node's mailbox, so that transfers still addressed to it
  /// complete (and are dropped) instead of holding a sender's slot for ever.
  simgrid::s4u::ActorPtr nic_actor(NodeId node) const;

 private:
  struct Nic;
  void run_nic(Nic& nic);
  std::uint32_t window_;
  std::vector<simgrid::s4u::Mailbox*> mailboxes_;
  std::vector<std::unique_ptr<Nic>> nics_;  // by NodeId
};

/// The receiving half, owned by a node's SimEnv: `window` receives kept posted on its mailbox
/// (which has no permanent receiver, so a transfer starts only when one of them matches it).
/// Receives are posted again as soon as one completes, also while the role computes: up to
/// `window` messages can land while the node is busy, as in a socket's receive buffer.
/// Must be constructed and used inside the node's actor.
class WindowedInbox {
 public:
  WindowedInbox(simgrid::s4u::Mailbox* mailbox, std::uint32_t window);
  /// Cancels the posted receives; `heir` (the node's NIC actor) becomes the mailbox's permanent
  /// receiver, so that late transfers to the finished node complete and are dropped. Not while
  /// the actor is being killed (it may not call into SimGrid then).
  void close(const simgrid::s4u::ActorPtr& heir);
  ~WindowedInbox();

  /// The next message to arrive within `timeout_s` simulated seconds, or nullopt. A message that
  /// arrived while the node was busy is returned at once. A transfer that failed is skipped.
  std::optional<Message> recv(double timeout_s);

 private:
  void post(std::size_t slot);
  simgrid::s4u::Mailbox* mailbox_;
  std::vector<simgrid::s4u::CommPtr> posted_;
  std::vector<Message*> payloads_;  // by slot: where posted_[slot] writes its message
};

}  // namespace pstwin
