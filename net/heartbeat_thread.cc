#include "net/heartbeat_thread.h"

#include <chrono>
#include <iostream>

namespace pstwin::net {

HeartbeatThread::HeartbeatThread(double interval_s, std::function<void()> beat)
    : thread_([this, interval_s, beat = std::move(beat)] {
        std::unique_lock lock(mutex_);
        while (!wake_.wait_for(lock, std::chrono::duration<double>(interval_s), [this] { return stop_; })) {
          lock.unlock();
          try {
            beat();
          } catch (const std::exception& e) {
            // A beat that cannot go out is a missed beat; the scheduler judges silence.
            std::cerr << "pstwin: heartbeat not sent: " << e.what() << "\n";
          }
          lock.lock();
        }
      }) {}

HeartbeatThread::~HeartbeatThread() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

}  // namespace pstwin::net
