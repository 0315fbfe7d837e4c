// ZapAuthenticator: admits only CURVE clients holding the job's key (ZeroMQ's ZAP, RFC 27).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

#include <zmq.hpp>

namespace pstwin::net {

/// Answers ZeroMQ's authentication requests for every CURVE server socket of `context`: a
/// client is admitted when its public key equals `allowed_public_z85`, and refused (logged to
/// stderr with the peer's address) otherwise. Runs a thread until destroyed; create it before
/// binding the sockets it guards. One per context.
class ZapAuthenticator {
 public:
  ZapAuthenticator(zmq::context_t& context, const std::string& allowed_public_z85);
  ~ZapAuthenticator();
  ZapAuthenticator(const ZapAuthenticator&) = delete;
  ZapAuthenticator& operator=(const ZapAuthenticator&) = delete;

  /// Connections refused so far.
  std::uint64_t refused() const { return refused_.load(); }

 private:
  void serve();

  zmq::socket_t socket_;
  std::string allowed_key_;  // 32 raw bytes
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> refused_{0};
  std::thread thread_;
};

}  // namespace pstwin::net
