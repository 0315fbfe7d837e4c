// HostChain: a worker's link in its host's chain under hybrid synchronisation (docs/DESIGN.md,
// "Hybrid synchronisation"): the in-host gradient sum and the parameters handed back down.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "kernels/backend.h"
#include "runtime/env.h"
#include "runtime/partition.h"
#include "runtime/roles/job.h"

namespace pstwin {

/// The workers of one host are ranks 0..k-1 in worker order (k = JobSpec::workers_per_host).
/// Each clock, per key range: rank 0 sends rank 1 its slice of the gradient scaled by 1/k; rank i
/// adds its own scaled slice to what rank i-1 sent (in that order, with the kernels' axpy, the
/// operation the servers sum with) and passes it on; the leader, rank k-1, pushes the host's mean
/// gradient. The leader's pull replies come back down the chain: each rank forwards them to rank
/// i-1. Ranges travel one message each, so the chain is pipelined by key range. Fault tolerance
/// is refused with hybrid (check_hybrid_sync), so no message is resent. Not thread-safe.
class HostChain {
 public:
  /// REQUIRES: spec.hybrid(), worker < spec.layout.workers.
  HostChain(Env& env, const JobSpec& spec, KernelBackend& kernels, std::uint32_t worker);

  /// This worker is its host's leader (it pushes and pulls).
  bool leader() const { return rank_ + 1 == spec_.workers_per_host; }
  /// Whether `sender` is where this worker's parameters come from: a server for the leader, else
  /// the next worker of its host.
  bool parameters_from(NodeId sender) const;
  /// Hands a pull reply on to the previous worker of the host (nothing on rank 0).
  void forward_parameters(const Message& reply);

  /// This worker's share of range `r`'s sum for `clock`: its slice of `grad` (the whole gradient;
  /// the range's keys.size() floats from keys.begin; unused for the synthetic model) scaled by 1/k
  /// and added to rank i-1's partial sum, which it waits for. A non-leader sends the sum on to
  /// rank i+1 (`version` stamped on it) and returns it empty; the leader returns the host's mean
  /// gradient (empty for the synthetic model). Returns nullopt when told to stop. Throws ProtocolError for any message but the partial
  /// sum awaited, a forwarded pull reply (kept for take_early) or kStop; std::runtime_error when
  /// nothing arrives within spec.stall_timeout_s.
  std::optional<std::vector<float>> add_share(std::uint32_t r, std::int64_t clock, KeyRange keys,
                                              const float* grad, std::int64_t version);

  /// A message that arrived early while add_share waited (parameters of the next clock, handed
  /// down while later ranges were still being summed); the worker reads these first. Partial
  /// sums kept by keep_early are not returned here: add_share takes them.
  std::optional<Message> take_early();

  /// Keeps `m`, a host peer's message (kPullReply handed down, or kHostReduce) that arrived
  /// before this worker's start: messages from different senders have no order between them,
  /// so a peer that started first may already be passing parameters or sums along.
  void keep_early(Message m) { early_.push_back(std::move(m)); }

 private:
  /// Rank i-1's partial sum of range r for `clock`; nullopt on kStop.
  std::optional<Message> await_partial(std::uint32_t r, std::int64_t clock);

  Env& env_;
  const JobSpec& spec_;
  KernelBackend& kernels_;
  std::uint32_t worker_;
  std::uint32_t rank_;  ///< place in the host, 0..k-1
  std::deque<Message> early_;
};

}  // namespace pstwin
