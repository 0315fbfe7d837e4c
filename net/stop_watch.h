// StopWatch: hands a StopRequest on to what cannot poll its descriptor (an in-process job's
// queues wait on condition variables), from a thread of its own.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>

#include "net/stop_request.h"

namespace pstwin::net {

/// Calls `on_stop(reason)` once, from its own thread, within 0.1 s of `stop` being requested;
/// never when the watch ends first. `stop` may be null (nothing to watch: no thread). REQUIRES:
/// `stop` outlives the watch; on_stop is thread-safe.
class StopWatch {
 public:
  StopWatch(const StopRequest* stop, std::function<void(const std::string&)> on_stop);
  /// Ends the watch (joins its thread, within 0.1 s).
  ~StopWatch();
  StopWatch(const StopWatch&) = delete;
  StopWatch& operator=(const StopWatch&) = delete;

 private:
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace pstwin::net
