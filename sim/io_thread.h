// A node's transport I/O thread in the simulation (scenario messaging "io_share"): the part of
// each message's host work that ZeroMQ's I/O thread does for real, concurrently with the role but
// on the same cores (DESIGN.md, "Cost model"). Internal to sim/.
#pragma once

#include <deque>
#include <memory>
#include <optional>

#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include "runtime/message.h"

namespace simgrid::s4u {
class Actor;
class Host;
class Mailbox;
}  // namespace simgrid::s4u

namespace pstwin {

struct SimWorld;

/// Two daemon actors on the node's host, one thread of work between them, as one I/O thread:
/// - a receiver, the permanent receiver of the node's mailbox, that queues each arriving message
///   with its I/O cost, io_part(receive_s(encoded size)), and costs nothing itself;
/// - a worker that takes the queue in order (sends and arrivals interleaved as they came),
///   spends each entry's cost as host work of the node (on its machine's cores with "cpu", else
///   on its own host, beside the role: spend_host_work, counted in world.host_work_s), then puts
///   a send on the network (sim_send, from the node) or hands an arrival to the role.
/// So a send leaves, and an arrival reaches the role, only after the I/O thread has done its part
/// and what was queued before it, while the role computes meanwhile. Single-threaded, as SimGrid
/// runs actors one at a time; the role side must be called from the node's actor.
class IoThread {
 public:
  /// Starts both actors for node `self` (REQUIRES: its messaging's io_share > 0; `mailbox` is
  /// the node's; no NIC receive window). `cores`: its machine's cores, or null (no "cpu").
  static std::shared_ptr<IoThread> start(SimWorld& world, NodeId self, simgrid::s4u::Mailbox* mailbox,
                                         simgrid::s4u::Host* cores);

  /// Queues `msg` to node `to` with `io_s` seconds of I/O host work before it leaves. Never blocks.
  void send(NodeId to, Message msg, double io_s);
  /// The next message the I/O thread has handed over within `timeout_s` simulated seconds, or
  /// nullopt. Its I/O part is spent; the role's part is the caller's.
  std::optional<Message> recv(double timeout_s);
  /// The role is done: stops receiving (the receiver is killed, arrivals not yet handed over are
  /// dropped) and lets the worker finish the sends queued, as a socket's linger does, then end.
  /// Not while the node's actor is being killed.
  void close();

 private:
  struct Entry {
    bool outgoing;
    NodeId to;  // outgoing only
    Message msg;
    double io_s;
  };
  IoThread(SimWorld& world, NodeId self, simgrid::s4u::Mailbox* mailbox, simgrid::s4u::Host* cores);
  void run_receiver();
  void run_worker();

  SimWorld& world_;
  NodeId self_;
  simgrid::s4u::Mailbox* mailbox_;
  simgrid::s4u::Host* cores_;
  simgrid::s4u::MutexPtr mutex_;  // the condition variables need one; actors never run at once
  simgrid::s4u::ConditionVariablePtr queued_;     // the worker waits on it for entries
  simgrid::s4u::ConditionVariablePtr delivered_;  // the role waits on it for arrivals
  std::deque<Entry> queue_;
  std::deque<Message> arrivals_;
  simgrid::s4u::Actor* receiver_ = nullptr;  // raw: the actors hold this object, not the reverse
  bool closing_ = false;
};

}  // namespace pstwin
