// How much memory a run's nodes need for the model, computed before anything starts: validate
// reports it, simulate and sweep refuse a run that cannot fit in this machine (cli/memory_fit.h).
// The one place these byte counts are made (README, "Commands", the Memory item).
#pragma once

#include <cstdint>
#include <string>

#include "runtime/model_size_checks.h"
#include "runtime/scenario/scenario.h"

namespace pstwin {

/// The memory a run needs for its model's floats, in bytes; a lower bound, since the data, the
/// process and its libraries come on top. All float32 (4 bytes). With P = keys x values_per_key
/// parameters, H = the keys the fullest server holds (its key ranges, primaries and replicas)
/// x values_per_key, and W the run's pushers (workers, or hosts under hybrid sync):
/// - a server: H x (2 + optimizer slots + (BSP ? W : 0)) floats: its parameters, the aggregate of
///   a clock's gradients (runtime/roles/shard.h), the optimizer's state (sgd 0 slots, momentum
///   and adagrad 1, adam 2; runtime/optimizer.h), and under BSP each pusher's gradient buffered
///   until the barrier;
/// - a worker: 2 x P floats (its pulled copy and its gradient; a sparse model: a batch's rows,
///   at most 2 x batch_size keys) plus, for the MLP, batch_size x (sum of hidden widths) x 2
///   floats (each hidden layer's activations and their gradients in the backward pass);
/// - the scheduler: 2 x P floats (the initial parameters it hands out and the copy it evaluates);
/// - the whole job on one machine (simulate's variant process, launch without a hostfile): the
///   scheduler, every server's share (P x replication x the server factor above) and every worker.
/// The synthetic model's values are virtual: 0 bytes everywhere.
struct MemoryEstimate {
  std::uint64_t parameters = 0;        ///< P
  std::uint64_t server_bytes = 0;      ///< the fullest server
  std::uint64_t worker_bytes = 0;      ///< each worker
  std::uint64_t scheduler_bytes = 0;
  std::uint64_t job_bytes = 0;         ///< every node of the job together
};

/// The estimate for `run`, a variant's own scenario (its consistency is consistency.front()), with
/// a model of `keys`. Placement: under "range" partitioning a server holds `replication` of the
/// servers' contiguous ranges (the largest, ceil(keys / servers) keys, each); under
/// "consistent_hash" and "balanced", an even share of the blocks, ceil(blocks x replication /
/// servers) blocks of block_keys keys (the ring may give a server somewhat more). Byte counts
/// saturate at 2^64 - 1 rather than wrap. Never throws.
MemoryEstimate estimate_memory(const Scenario& run, const ModelKeys& keys);

/// `bytes` for a reader: "512 bytes", "1.50 KiB", "6.68 GiB" (binary units, 3 significant digits).
std::string bytes_text(std::uint64_t bytes);

}  // namespace pstwin
