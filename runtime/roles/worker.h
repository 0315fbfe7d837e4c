// Worker: owns a partition of the training data and runs the pull / compute / push loop.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "kernels/backend.h"
#include "runtime/env.h"
#include "runtime/partition.h"
#include "runtime/roles/job.h"
#include "runtime/roles/range_router.h"

namespace pstwin {

/// One worker. Protocol (all through Env):
///   1. wait for kStart from the scheduler: every server's key range;
///   2. for clock c = 0 .. iterations-1: have the parameters for c (a kPull to every server for
///      c = 0; afterwards the push of c-1 carried kPullAfter), wait for every server's kPullReply,
///      compute the mean gradient of a mini-batch of its partition, account its cost, push each
///      server its slice for clock c;
///   3. send kWorkerDone to the scheduler and return.
/// Sparse models (JobSpec::sparse()) move only the keys a mini-batch touches (msg_flags::kKeyed):
/// batch c is drawn before its pull, its sorted unique keys (Model::batch_keys) are split by
/// server range, and each server gets a keyed kPull for its share (possibly no keys: the pull
/// still waits for the consistency model). The gradient rows of those keys go back in a keyed
/// kPush, followed at once by the keyed kPull for batch c+1, which is drawn before pushing; per
/// pair FIFO delivery makes the server see the push first. (A separate pull costs one header;
/// carrying the next keys inside the push would cost per-key flags on the union of both key
/// sets, which is larger since consecutive batches share few keys.) Every server gets a push
/// each clock, so the consistency model counts clocks as for dense models. The worker keeps
/// only the touched rows, never the whole parameter vector.
/// A mini-batch takes the next batch_size rows of the partition, reshuffled (with the node's Rng)
/// at each pass. A non-finite mini-batch loss stops training: kAbort (flag kDiverged) goes to the
/// scheduler. A kStop from the scheduler ends the loop early.
///
/// Fault tolerance (JobSpec::fault): requests for key range r go to r's primary in the newest
/// membership (initial_membership until the scheduler announces another) and carry its epoch. A
/// push stays unacknowledged until the range answers the next pull (or, for the last push,
/// flagged msg_flags::kAckRequested, with kPushAck); when a membership moves a range to another
/// primary, the worker resends that range's unacknowledged push and open pull there, with the
/// same request ids, so the new primary applies each push exactly once. Replies that arrive
/// twice or late are ignored.
/// A restarted worker (`rejoining`) sends kRejoin to the scheduler, waits for its kStart, asks
/// every range's primary for its clock (kPull with msg_flags::kRejoin and clock -1), and rejoins
/// every range at the newest clock J (kPull kRejoin for J), then trains from J on, on its own
/// data partition.
/// A resumed job (JobSpec::resume) starts at the checkpoint's clock, after drawing the
/// mini-batches of the clocks before it so that its data order is the uninterrupted run's.
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
  void push(std::int64_t clock, double loss, bool pull_after);
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
};

}  // namespace pstwin
