#include "runtime/wire_limit_check.h"

#include <algorithm>

#include "runtime/errors.h"
#include "runtime/count_text.h"

namespace pstwin {

namespace {

// Fixed bytes of every frame: the header and the checksum (runtime/codec.h, the layout).
constexpr std::uint64_t kFrameBytes = kWireHeaderBytes + 4;
// Room for a message's JSON data (a kStart's resume counts, a kShardState's consistency state):
// a bound, not its exact size, which depends on clocks and request ids.
constexpr std::uint64_t kJsonBytes = 256;
constexpr std::uint64_t kJsonBytesPerWorker = 128;

// Float32 arrays per key a server keeps beside its parameters (optimizer.cc).
std::uint64_t optimizer_slots(const std::string& optimizer) {
  if (optimizer == "adam") return 2;
  if (optimizer == "momentum" || optimizer == "adagrad") return 1;
  return 0;
}

// The largest message when a key range holds `range_keys` keys.
LargestMessage largest_for_range(const Scenario& s, std::uint64_t range_keys, std::size_t values_per_key,
                                 bool sparse) {
  const std::uint64_t floats = range_keys * values_per_key;
  const std::string range = count_text(range_keys, "key") + " x " + std::to_string(values_per_key) + " float32";
  // A push or pull reply of the whole range: a key list when sparse, else the first key alone.
  LargestMessage out{"a push or pull reply of one key range (" + range + ")",
                     kFrameBytes + (sparse ? 8 * range_keys : 8) + 4 * floats};
  if (s.model.type == "synthetic") return out;  // no parameters in kStart or kShardState
  const std::uint64_t slots = optimizer_slots(s.training.optimizer);
  const auto& ft = s.fault_tolerance;
  const bool checkpoints = ft.checkpoint_every_clocks > 0 || ft.checkpoint_every_s > 0;
  if (checkpoints && slots > 0) {
    const std::uint64_t bytes = kFrameBytes + 8 + 4 * floats * (1 + slots) + kJsonBytes;
    if (bytes > out.bytes)
      out = {"a kStart resuming one key range from a checkpoint (" + range + ", with " +
                 s.training.optimizer + "'s state)",
             bytes};
  }
  if (ft.replication > 1) {
    // Under BSP a range holds up to workers - 1 gradients until the last one arrives.
    const std::uint64_t workers = s.cluster.workers;
    const std::uint64_t bytes = kFrameBytes + 4 * floats * (1 + slots + (workers - 1)) + kJsonBytes +
                                kJsonBytesPerWorker * workers;
    if (bytes > out.bytes)
      out = {"a kShardState copying one key range to a backup (" + range + ", with " + s.training.optimizer +
                 "'s state and up to " + std::to_string(workers - 1) + " buffered gradients)",
             bytes};
  }
  return out;
}

std::uint64_t largest_range_keys(const Scenario& s, std::uint64_t keys, std::uint32_t servers) {
  if (s.partition.scheme != PartitionScheme::kRange) return std::min(keys, s.partition.block_keys);
  return (keys + servers - 1) / servers;
}

}  // namespace

LargestMessage largest_message(const Scenario& scenario, std::uint64_t keys, std::size_t values_per_key,
                               bool sparse) {
  return largest_for_range(scenario, largest_range_keys(scenario, keys, scenario.cluster.servers),
                           values_per_key, sparse);
}

void check_messages_fit_the_wire(const Scenario& scenario, std::uint64_t keys, std::size_t values_per_key,
                                 bool sparse, std::uint64_t limit) {
  const LargestMessage largest = largest_message(scenario, keys, values_per_key, sparse);
  if (largest.bytes <= limit) return;
  const auto fits = [&](std::uint64_t range_keys) {
    return largest_for_range(scenario, range_keys, values_per_key, sparse).bytes <= limit;
  };
  const std::string said = largest.what + " would be " + std::to_string(largest.bytes) +
                           " bytes, over the wire's limit of " + std::to_string(limit) + " bytes per message";
  if (!fits(1))
    throw ScenarioError(scenario.partition.scheme == PartitionScheme::kRange ? "/cluster/servers"
                                                                             : "/partition/block_keys",
                        said + ", even for a key range of one key");
  if (scenario.partition.scheme != PartitionScheme::kRange) {
    // The most keys per block that fit: fits() holds at 1 and fails at block_keys.
    std::uint64_t lo = 1, hi = std::min(keys, scenario.partition.block_keys);
    while (hi - lo > 1) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      (fits(mid) ? lo : hi) = mid;
    }
    throw ScenarioError("/partition/block_keys", said + "; use at most " + count_text(lo, "key") + " per block");
  }
  // The fewest servers that fit: a range of ceil(keys / n) keys shrinks as n grows, and n = keys
  // gives ranges of one key, which fit.
  std::uint64_t lo = scenario.cluster.servers, hi = keys;
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (fits((keys + mid - 1) / mid) ? hi : lo) = mid;
  }
  throw ScenarioError("/cluster/servers", said + "; use at least " + count_text(hi, "server"));
}

}  // namespace pstwin
