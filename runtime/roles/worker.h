// Worker: owns a partition of the training data and runs the pull / compute / push loop.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/backend.h"
#include "runtime/env.h"
#include "runtime/partition.h"
#include "runtime/roles/job.h"

namespace pstwin {

/// One worker. Protocol (all through Env):
///   1. wait for kStart from the scheduler: every server's key range;
///   2. for clock c = 0 .. iterations-1: have the parameters for c (a kPull to every server for
///      c = 0; afterwards the push of c-1 carried kPullAfter), wait for every server's kPullReply,
///      compute the mean gradient of a mini-batch of its partition, account its cost, push each
///      server its slice for clock c;
///   3. send kWorkerDone to the scheduler and return.
/// A mini-batch takes the next batch_size rows of the partition, reshuffled (with the node's Rng)
/// at each pass. A non-finite mini-batch loss stops training: kAbort (flag kDiverged) goes to the
/// scheduler. A kStop from the scheduler ends the loop early.
class Worker {
 public:
  Worker(Env& env, const JobSpec& spec, std::uint32_t index, KernelBackend& kernels);
  void run();

 private:
  /// Waits for the start message; false if kStop came first.
  bool await_start();
  /// Waits for every server's reply for `clock`; false on kStop. Sets read_version_.
  bool await_parameters(std::int64_t clock);
  void send_pulls(std::int64_t clock);
  /// Computes the gradient for one mini-batch into grad_; returns the mean loss.
  double compute_gradient();
  void push(std::int64_t clock, double loss, bool pull_after);
  std::vector<std::uint32_t> next_batch();

  Env& env_;
  const JobSpec& spec_;
  std::uint32_t index_;
  KernelBackend& kernels_;
  std::vector<KeyRange> ranges_;
  std::vector<float> params_;
  std::vector<float> grad_;
  std::vector<std::uint32_t> order_;  // this worker's rows in the current pass's order
  std::size_t cursor_ = 0;
  std::int64_t read_version_ = 0;
  std::uint64_t next_request_ = 1;
};

}  // namespace pstwin
