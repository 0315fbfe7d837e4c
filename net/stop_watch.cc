#include "net/stop_watch.h"

#include <poll.h>

namespace pstwin::net {

StopWatch::StopWatch(const StopRequest* stop, std::function<void(const std::string&)> on_stop) {
  if (!stop) return;
  thread_ = std::thread([this, stop, on_stop = std::move(on_stop)] {
    // A poll with a timeout rather than a blocking one, so that the destructor's done_ is seen.
    while (!done_.load()) {
      pollfd item{stop->fd(), POLLIN, 0};
      if (poll(&item, 1, 100) <= 0 || !(item.revents & POLLIN)) continue;
      if (auto why = stop->reason()) on_stop(*why);
      return;
    }
  });
}

StopWatch::~StopWatch() {
  done_.store(true);
  if (thread_.joinable()) thread_.join();
}

}  // namespace pstwin::net
