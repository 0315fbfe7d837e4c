// Timing the real kernels for `pstwin calibrate`: each model's gradient on the chosen device, at
// a few batch sizes, with the Cost the kernels report for it (what the roofline is fitted to).
#pragma once

#include <string>
#include <vector>

#include "kernels/backend.h"
#include "runtime/scenario/scenario.h"

namespace pstwin::cli {

/// One batch size of one model: the median seconds of a gradient step (or of an evaluation),
/// and its Cost.
struct KernelTiming {
  std::string model;     ///< "softmax", or "softmax (quickstart)" for a scenario's model
  std::size_t batch = 0; ///< rows in the mini-batch (an evaluation: train and test rows together)
  /// An evaluation (evaluation_passes, what the scheduler runs), not a worker's gradient step.
  bool evaluation = false;
  double flops = 0;
  double bytes = 0;
  double seconds = 0;    ///< median over the timed calls
  int calls = 0;
};

/// Empties this core's private caches, as a node's wait for the network does: while a worker
/// waits for its pull replies (a scheduler for its snapshots) its core runs the I/O thread, the
/// kernel and other processes, and its next step finds its data rows out of the L1 and L2
/// caches. Timing steps back to back kept them there: an a9a gradient took 7 us hot and 40 to
/// 47 us after an eviction, where the real workers' compute spans had a median of 35 to 45 us
/// (docs/FIDELITY.md, "The a9a workers' cold caches"). evict() writes one byte in every 64-byte
/// line of a buffer of `bytes` bytes.
class CacheEvictor {
 public:
  /// REQUIRES bytes > 0.
  explicit CacheEvictor(std::size_t bytes) : buffer_(bytes, 0) {}
  void evict();
  std::size_t bytes() const { return buffer_.size(); }
  /// How many times evict() ran.
  std::size_t evictions() const { return evictions_; }

 private:
  std::vector<unsigned char> buffer_;
  std::size_t evictions_ = 0;
};

/// Bytes a CacheEvictor needs to empty a core's private caches: twice the L2 cache the C
/// library reports (sysconf _SC_LEVEL2_CACHE_SIZE), or 8 MiB where it reports none (0 or -1:
/// not every platform knows; 8 MiB is twice the largest L2 of common server cores).
std::size_t private_cache_eviction_bytes();

/// Times one gradient step (Model::gradient, or batch_keys + sparse_gradient for a sparse model)
/// of each model on `backend`, at batch sizes around each model's own: 1/4, 1/2, 1, 2 and 4 times
/// it. Each call takes the next batch of the data as a worker does (next_shuffled_batch, the
/// worker's own walk: shuffled passes over worker 0's partition), and starts
/// as a worker's step does: after `evictor` emptied the caches (the data rows are cold) and the
/// parameters were written (a dense model's whole vector; a sparse model's rows of the batch,
/// copied after batch_keys, as the pull replies bring them). Only the model's calls are timed.
/// Flops and bytes are the mean Cost of the calls. `scenarios` choose the models and their data
/// (prepare_training: its DataError and ScenarioError pass through; a "synthetic" model has no
/// kernels and is skipped); without any, the shipped dense models on synthetic data of
/// Fashion-MNIST's shape (784 features, 10 classes): logistic, softmax and an mlp with one
/// hidden layer of 128. Each size runs one unmeasured call and then calls until `min_seconds`
/// have passed (at least 3).
std::vector<KernelTiming> time_kernels(const std::vector<Scenario>& scenarios, KernelBackend& backend,
                                       double min_seconds, CacheEvictor& evictor);

/// Times the scheduler's evaluation of each model: evaluation_passes (runtime/roles/evaluation.h),
/// the function evaluate_model runs, over 1/4, 1/2 and all of the rows the scheduler evaluates
/// (the scenario's train_eval_rows and its whole test set), each call after `evictor` emptied
/// the caches and the parameters were written (the snapshots just brought them). The rows are
/// "batch"; evaluation is true. Without scenarios, the shipped models evaluate 512 rows of their
/// synthetic training data and a synthetic test set of 512. Models, errors and timing as
/// time_kernels.
std::vector<KernelTiming> time_evaluations(const std::vector<Scenario>& scenarios, KernelBackend& backend,
                                           double min_seconds, CacheEvictor& evictor);

/// This machine's memcpy rate in bytes copied per second: the median of a few copies of a
/// `bytes`-byte buffer into another, both touched before timing.
double memcpy_bandwidth(std::size_t bytes, int repetitions);

}  // namespace pstwin::cli
