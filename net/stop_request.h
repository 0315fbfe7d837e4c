// StopRequest: another thread asks a node's Env to stop the job (a user's Ctrl-C, the launcher
// giving up on a job), and the Env's waits wake up for it.
#pragma once

#include <atomic>
#include <mutex>
#include <optional>
#include <string>

namespace pstwin::net {

/// A request that the job stop, made from any thread, with the reason it was made: a descriptor
/// that becomes readable once requested lets a poll wake up for it (ZmqEnv polls it beside its
/// sockets and throws JobStopped). Thread-safe; from a signal handler, only
/// request_from_signal_handler.
class StopRequest {
 public:
  /// Throws std::runtime_error when the descriptor cannot be made (eventfd).
  StopRequest();
  ~StopRequest();
  StopRequest(const StopRequest&) = delete;
  StopRequest& operator=(const StopRequest&) = delete;

  /// Asks for the stop, e.g. "stopped by SIGINT"; the first reason counts, later requests change
  /// nothing. `name`, when given, is what signal_name returns (a stop that no user's signal
  /// made: "launcher_died"); otherwise the signal the reason names.
  void request(const std::string& reason, const std::string& name = "");
  /// The same from a signal handler: async-signal-safe (no lock, no allocation; an atomic store
  /// and a write to the descriptor). `reason` must outlive this object (a string literal).
  void request_from_signal_handler(const char* reason) noexcept;
  /// The reason once requested; nullopt before.
  std::optional<std::string> reason() const;
  /// The signal the reason names ("SIGINT" of "stopped by SIGINT", as StopOnSignals words it),
  /// or the name request was given ("launcher_died"): what summary.json records as a stopped
  /// run's stop_reason. Empty before a request, or when the reason names no signal.
  std::string signal_name() const;
  /// Readable once requested (and from then on): poll it for POLLIN.
  int fd() const { return fd_; }

 private:
  void wake_pollers() noexcept;

  int fd_ = -1;
  std::atomic<bool> requested_{false};
  std::atomic<const char*> signal_reason_{nullptr};  // set by request_from_signal_handler
  mutable std::mutex mutex_;
  std::string reason_;
  std::string name_;  // request's name; empty: the signal the reason names
};

}  // namespace pstwin::net
