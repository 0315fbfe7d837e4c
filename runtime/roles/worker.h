// Worker: owns a partition of the training data and runs the pull / compute / push loop.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "kernels/backend.h"
#include "runtime/env.h"
#include "runtime/roles/gradient_compression.h"
#include "runtime/partition.h"
#include "runtime/roles/host_chain.h"
#include "runtime/roles/job.h"
#include "runtime/roles/range_router.h"

namespace pstwin {

/// One worker (docs/DESIGN.md, "Roles"; its messages and their order: "Protocol"; routes,
/// resends and rejoining: "Replication and failover").
///
/// run(): waits for kStart (every key range's size), then for clock c = first .. iterations-1
/// has the parameters of c, computes the mean gradient of its next mini-batch, accounts its
/// cost and pushes each range its slice (a sparse model: only the keys the batch touches,
/// msg_flags::kKeyed); finally kWorkerDone. first is 0, the checkpoint's clock when resuming
/// (the batches before it are drawn and dropped, so the data order is the uninterrupted run's),
/// or, when `rejoining`, the newest clock of any range. A mini-batch takes the next batch_size
/// rows of its partition, reshuffled with the node's Rng at each pass. Returns early on kStop,
/// and after kAbort (flag kDiverged) when a mini-batch loss is not finite. Requests go through
/// a RangeRouter (the range's primary, resent after a failover).
/// Under hybrid synchronisation (JobSpec::hybrid) the worker's pushes and pulls go through its
/// host's chain (HostChain): only the host's leader talks to the servers.
/// Throws ProtocolError for a reply that breaks the protocol (without fault tolerance, any
/// unexpected reply), std::runtime_error when nothing arrives for spec.stall_timeout_s.
class Worker {
 public:
  Worker(Env& env, const JobSpec& spec, std::uint32_t index, KernelBackend& kernels,
         bool rejoining = false);
  void run();

 private:
  /// A sparse model's mini-batch: its rows, their sorted unique keys, and where each key range's
  /// keys start in `keys` (range r's are range_begin[r] .. range_begin[r+1]).
  struct KeyedBatch {
    std::vector<std::uint32_t> rows;
    std::vector<Key> keys;
    std::vector<std::size_t> range_begin;
  };

  /// Waits for the start message; false if kStop came first.
  bool await_start();
  /// Restarted: kRejoin to the scheduler, its start, and every range's clock. Returns the clock to
  /// rejoin at, or nullopt if told to stop.
  std::optional<std::int64_t> rejoin_job();
  /// The next message, within the stall timeout. With fault tolerance, a long silence (four
  /// heartbeat timeouts, doubling after each) resends every unacknowledged push and open pull.
  std::optional<Message> receive();
  /// Waits for kPushAck of every range's last push (fault tolerance only); false on kStop.
  bool await_acks();
  /// Waits for every server's reply for `clock`; false on kStop. Sets read_version_.
  bool await_parameters(std::int64_t clock);
  void send_pulls(std::int64_t clock);
  /// Computes the gradient for one mini-batch into grad_; returns the mean loss.
  double compute_gradient();
  /// Pushes every range's slice of grad_ (under hybrid: adds it to the host's sum, and the leader
  /// pushes that). False when told to stop meanwhile.
  bool push(std::int64_t clock, double loss, bool pull_after);
  std::vector<std::uint32_t> next_batch();
  /// Sparse: draws the next mini-batch and its keys.
  KeyedBatch next_keyed_batch();
  /// Sparse: pushes the gradient rows of batch_'s keys for `clock`.
  void push_keyed(std::int64_t clock, double loss);
  /// Sparse: a keyed pull of b's keys to every server, for `clock`.
  void send_keyed_pulls(const KeyedBatch& b, std::int64_t clock);
  void abort_diverged(std::int64_t clock, double loss);

  Env& env_;
  const JobSpec& spec_;
  std::uint32_t index_;
  KernelBackend& kernels_;
  std::vector<KeyRange> ranges_;
  std::vector<float> params_;  // dense: the whole vector; sparse: batch_'s rows in key order
  std::vector<float> grad_;    // the same shape as params_
  std::vector<std::uint32_t> order_;  // this worker's rows in the current pass's order
  std::size_t cursor_ = 0;
  KeyedBatch batch_;  // sparse: the batch of the current clock
  std::int64_t read_version_ = 0;
  std::uint64_t next_request_ = 1;
  bool rejoining_;
  RangeRouter router_;  ///< routes requests by membership; keeps what to resend
  std::optional<HostChain> chain_;  ///< hybrid synchronisation only
  GradientCompressor compressor_;   ///< clipping, packing and error-feedback residuals
  /// Compression work (unpacking pull replies, clipping, packing pushes) not yet accounted: it
  /// joins the next compute step's Cost, so that a worker still reports one step per clock to
  /// Env::account (a call is an iteration of the straggler schedule and pays the device's
  /// per-step overhead). A clock's packing is therefore charged with the next clock's compute.
  Cost deferred_;
  Cost take_deferred();
};

}  // namespace pstwin
