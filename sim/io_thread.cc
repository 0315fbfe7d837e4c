#include "sim/io_thread.h"

#include <condition_variable>

#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>

#include "runtime/codec.h"
#include "sim/host_cpus.h"
#include "sim/sim_env.h"

namespace sg4 = simgrid::s4u;

namespace pstwin {

IoThread::IoThread(SimWorld& world, NodeId self, sg4::Mailbox* mailbox, sg4::Host* cores)
    : world_(world),
      self_(self),
      mailbox_(mailbox),
      cores_(cores),
      mutex_(sg4::Mutex::create()),
      queued_(sg4::ConditionVariable::create()),
      delivered_(sg4::ConditionVariable::create()) {}

std::shared_ptr<IoThread> IoThread::start(SimWorld& world, NodeId self, sg4::Mailbox* mailbox, sg4::Host* cores) {
  std::shared_ptr<IoThread> io(new IoThread(world, self, mailbox, cores));
  sg4::Host* host = sg4::this_actor::get_host();
  const std::string name = sg4::this_actor::get_name();
  // Each actor keeps the object alive for as long as it runs (the role's SimEnv may end first).
  sg4::ActorPtr receiver = sg4::Actor::create(name + "-io-in", host, [io] { io->run_receiver(); });
  receiver->daemonize();
  io->receiver_ = receiver.get();
  mailbox->set_receiver(receiver);  // transfers start when sent, as a socket receives while busy
  sg4::Actor::create(name + "-io", host, [io] { io->run_worker(); })->daemonize();
  return io;
}

void IoThread::send(NodeId to, Message msg, double io_s) {
  const std::unique_lock<sg4::Mutex> lock(*mutex_);
  queue_.push_back({true, to, std::move(msg), io_s});
  queued_->notify_all();
}

std::optional<Message> IoThread::recv(double timeout_s) {
  const double deadline = sg4::Engine::get_clock() + timeout_s;
  const std::unique_lock<sg4::Mutex> lock(*mutex_);
  while (arrivals_.empty())
    if (delivered_->wait_until(lock, deadline) == std::cv_status::timeout && arrivals_.empty()) return std::nullopt;
  Message m = std::move(arrivals_.front());
  arrivals_.pop_front();
  return m;
}

void IoThread::close() {
  const std::unique_lock<sg4::Mutex> lock(*mutex_);
  closing_ = true;
  arrivals_.clear();
  if (receiver_) receiver_->kill();
  receiver_ = nullptr;
  queued_->notify_all();
}

void IoThread::run_receiver() {
  const MessagingSpec& spec = world_.messaging.at(self_);
  for (;;) {
    std::unique_ptr<Message> m;
    try {
      m.reset(mailbox_->get<Message>());
    } catch (const simgrid::NetworkFailureException&) {
      continue;  // the sender or a link failed during the transfer: that message is lost
    }
    const double io_s = spec.io_part(spec.receive_s(static_cast<double>(encoded_size(*m))));
    const std::unique_lock<sg4::Mutex> lock(*mutex_);
    queue_.push_back({false, 0, std::move(*m), io_s});
    queued_->notify_all();
  }
}

void IoThread::run_worker() {
  for (;;) {
    Entry e;
    {
      const std::unique_lock<sg4::Mutex> lock(*mutex_);
      while (queue_.empty()) {
        if (closing_) return;
        queued_->wait(lock);
      }
      e = std::move(queue_.front());
      queue_.pop_front();
    }
    if (!e.outgoing && closing_) continue;  // the role is gone: nobody reads it
    if (e.io_s > 0) {
      if (self_ < world_.host_work_s.size()) world_.host_work_s[self_] += e.io_s;
      spend_host_work(cores_, e.io_s);
    }
    if (e.outgoing) {
      sim_send(world_, self_, e.to, std::move(e.msg));
      continue;
    }
    const std::unique_lock<sg4::Mutex> lock(*mutex_);
    if (closing_) continue;
    arrivals_.push_back(std::move(e.msg));
    delivered_->notify_all();
  }
}

}  // namespace pstwin
