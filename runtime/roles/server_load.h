// ServerLoad: what one server did for the workers, counted for the summary's per-server load
// (hot keys and stragglers among servers: README, "Per-server load").
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace pstwin {

/// A server's counters. A server counts each worker push and pull it serves as a primary, the
/// encoded bytes of those requests (in) and of its replies to workers (out), and the seconds
/// (Env::now: simulated or wall) spent handling messages of any kind. Resent requests count
/// each time they arrive; a restarted server counts from its restart.
struct ServerLoad {
  std::uint64_t requests = 0;
  std::uint64_t bytes_in = 0;
  std::uint64_t bytes_out = 0;
  double busy_s = 0.0;

  /// {"requests", "bytes_in", "bytes_out", "busy_s"}.
  nlohmann::json to_json() const;
  /// Reads to_json()'s object; throws ProtocolError naming `what` and the field when one is
  /// missing, of the wrong type or negative.
  static ServerLoad from_json(const nlohmann::json& j, const std::string& what);
};

}  // namespace pstwin
