#include "net/stop_request.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace pstwin::net {

StopRequest::StopRequest() : fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (fd_ < 0) throw std::runtime_error(std::string("cannot make a stop descriptor (eventfd): ") + std::strerror(errno));
}

StopRequest::~StopRequest() { close(fd_); }

void StopRequest::request(const std::string& reason) {
  {
    std::lock_guard lock(mutex_);
    if (requested_.load()) return;
    reason_ = reason;
    requested_.store(true);
  }
  // Never read back: the counter stays non-zero, so the descriptor stays readable.
  const std::uint64_t one = 1;
  [[maybe_unused]] const auto written = write(fd_, &one, sizeof one);
}

std::optional<std::string> StopRequest::reason() const {
  if (!requested_.load()) return std::nullopt;
  std::lock_guard lock(mutex_);
  return reason_;
}

}  // namespace pstwin::net
