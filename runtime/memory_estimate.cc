#include "runtime/memory_estimate.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <limits>
#include <numeric>

namespace pstwin {

namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t kFloatBytes = 4;

/// a x b, or 2^64 - 1 when that overflows: a model too large to count is still too large.
std::uint64_t times(std::uint64_t a, std::uint64_t b) { return b != 0 && a > kMax / b ? kMax : a * b; }
std::uint64_t plus(std::uint64_t a, std::uint64_t b) { return a > kMax - b ? kMax : a + b; }
std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

/// Optimizer state floats per parameter (runtime/optimizer.h).
std::uint64_t optimizer_slots(const std::string& optimizer) {
  if (optimizer == "adam") return 2;
  if (optimizer == "momentum" || optimizer == "adagrad") return 1;
  return 0;
}

/// Keys the fullest server holds, primaries and replicas together (estimate_memory's placement).
std::uint64_t keys_of_fullest_server(const Scenario& run, std::uint64_t keys) {
  const std::uint64_t servers = std::max<std::uint32_t>(run.cluster.servers, 1);
  const std::uint64_t replication = std::max<std::uint32_t>(run.fault_tolerance.replication, 1);
  if (run.partition.scheme == PartitionScheme::kRange) return times(ceil_div(keys, servers), replication);
  const std::uint64_t block = std::max<std::uint64_t>(run.partition.block_keys, 1);
  const std::uint64_t blocks = ceil_div(keys, block);
  return std::min(times(ceil_div(times(blocks, replication), servers), block), times(keys, replication));
}

}  // namespace

MemoryEstimate estimate_memory(const Scenario& run, const ModelKeys& keys) {
  MemoryEstimate m;
  m.parameters = times(keys.keys, keys.values_per_key);
  if (run.model.type == "synthetic") return m;  // virtual values: nothing held
  const ConsistencyConfig& c = run.consistency.front().config;
  const std::uint64_t pushers = c.sync == SyncMode::kHybrid
                                    ? run.cluster.workers / std::max<std::uint32_t>(run.cluster.workers_per_host, 1)
                                    : run.cluster.workers;
  const std::uint64_t server_factor =
      2 + optimizer_slots(run.training.optimizer) + (c.mode == ConsistencyMode::kBsp ? pushers : 0);
  m.server_bytes = times(times(times(keys_of_fullest_server(run, keys.keys), keys.values_per_key), server_factor),
                         kFloatBytes);
  const std::uint64_t worker_keys =
      keys.sparse ? std::min(keys.keys, times(run.training.batch_size, 2)) : keys.keys;
  std::uint64_t worker_floats = times(times(worker_keys, keys.values_per_key), 2);
  if (run.model.type == "mlp") {
    const std::uint64_t hidden = std::accumulate(run.model.hidden.begin(), run.model.hidden.end(), std::uint64_t{0});
    worker_floats = plus(worker_floats, times(times(run.training.batch_size, hidden), 2));
  }
  m.worker_bytes = times(worker_floats, kFloatBytes);
  m.scheduler_bytes = times(times(m.parameters, 2), kFloatBytes);
  const std::uint64_t all_servers = times(
      times(times(m.parameters, std::max<std::uint32_t>(run.fault_tolerance.replication, 1)), server_factor),
      kFloatBytes);
  m.job_bytes = plus(plus(m.scheduler_bytes, all_servers), times(m.worker_bytes, run.cluster.workers));
  return m;
}

std::string bytes_text(std::uint64_t bytes) {
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
  double value = static_cast<double>(bytes) / 1024;
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  // Three significant digits, never an exponent (%g would print 1000 KiB as "1e+03").
  char text[32];
  std::snprintf(text, sizeof text, value >= 100 ? "%.0f %s" : value >= 10 ? "%.1f %s" : "%.2f %s", value,
                kUnits[unit]);
  return text;
}

}  // namespace pstwin
