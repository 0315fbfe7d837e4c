// The summary's "server_load": per-server load and its imbalance (README, "Per-server load").
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

namespace pstwin {

/// Max over mean of `values`: 1 when all are equal, `values.size()` when one holds everything;
/// 0 for an empty list or an all-zero one (nothing to balance).
double imbalance(const std::vector<double>& values);

/// From the "server_load" events of a run (fields server, requests, bytes_in, bytes_out,
/// busy_s; a later event of a server replaces an earlier one) and the number of servers:
///   {"per_server": [{"server": i, "requests", "bytes_in", "bytes_out", "busy_s"}, ...],
///    "imbalance": {"requests", "bytes_in", "bytes_out", "busy_s"}}
/// where a server that sent no report (it held no key range, or died) counts zeros. Events
/// naming a server outside [0, servers) are skipped. Never throws for well-formed events.
nlohmann::json server_load_summary(const std::vector<nlohmann::json>& events, std::uint32_t servers);

}  // namespace pstwin
