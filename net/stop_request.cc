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

void StopRequest::request(const std::string& reason, const std::string& name) {
  {
    std::lock_guard lock(mutex_);
    if (requested_.load()) return;
    reason_ = reason;
    name_ = name;
    requested_.store(true);
  }
  wake_pollers();
}

void StopRequest::request_from_signal_handler(const char* reason) noexcept {
  if (requested_.load()) return;
  signal_reason_.store(reason);
  requested_.store(true);
  wake_pollers();
}

void StopRequest::wake_pollers() noexcept {
  // Never read back: the counter stays non-zero, so the descriptor stays readable.
  const std::uint64_t one = 1;
  [[maybe_unused]] const auto written = write(fd_, &one, sizeof one);
}

std::optional<std::string> StopRequest::reason() const {
  if (!requested_.load()) return std::nullopt;
  std::lock_guard lock(mutex_);
  // A handler's request sets no reason_ (it cannot lock); a request() made first did.
  if (const char* from_signal = signal_reason_.load(); reason_.empty() && from_signal) return std::string(from_signal);
  return reason_;
}

std::string StopRequest::signal_name() const {
  const auto why = reason();
  if (!why) return "";
  {
    std::lock_guard lock(mutex_);
    if (!name_.empty()) return name_;
  }
  const auto at = why->rfind("SIG");
  return at == std::string::npos ? "" : why->substr(at);
}

}  // namespace pstwin::net
