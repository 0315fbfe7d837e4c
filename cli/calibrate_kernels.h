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

/// What a node's wait for the network leaves its next step: while a worker waits for its pull
/// replies (a scheduler for its snapshots) its thread sleeps, and its core runs the I/O thread,
/// the OS and other processes, or idles; the step after finds its data rows out of the L1 and L2
/// caches, maybe on the other core. Steps timed back to back kept everything in cache: an a9a
/// gradient took 7 us so, 13 to 47 us after an eviction, 15 to 40 us after a sleep of 20 us to
/// 2 ms, 23 to 38 us after both, where the real workers' compute spans had a median of 35 to
/// 45 us (docs/FIDELITY.md, "What calibrate timed that the a9a nodes do not see").
/// pass() writes one byte in every 64-byte line of a buffer of `bytes` bytes (evicting what the
/// caches held), then sleeps `sleep_s` seconds.
class NodeWait {
 public:
  /// REQUIRES bytes > 0, sleep_s >= 0.
  NodeWait(std::size_t bytes, double sleep_s) : buffer_(bytes, 0), sleep_s_(sleep_s) {}
  void pass();
  std::size_t bytes() const { return buffer_.size(); }
  double sleep_s() const { return sleep_s_; }
  /// How many times pass() ran.
  std::size_t passes() const { return passes_; }

 private:
  std::vector<unsigned char> buffer_;
  double sleep_s_;
  std::size_t passes_ = 0;
};

/// The sleep of calibrate's NodeWait, 1 ms: a wait long enough for the OS to give the core to
/// another thread (Linux's scheduling slice is 0.75 to 3 ms). How long a node really waits
/// depends on the job (a barrier, the network), which calibrate does not know.
inline constexpr double kNodeWaitSleepS = 1e-3;

/// Bytes a NodeWait needs to empty a core's private caches: twice the L2 cache the C
/// library reports (sysconf _SC_LEVEL2_CACHE_SIZE), or 8 MiB where it reports none (0 or -1:
/// not every platform knows; 8 MiB is twice the largest L2 of common server cores).
std::size_t private_cache_eviction_bytes();

/// Times one gradient step (Model::gradient, or batch_keys + sparse_gradient for a sparse model)
/// of each model on `backend`, at batch sizes around each model's own: 1/4, 1/2, 1, 2 and 4 times
/// it. Each call takes the next batch of the data as a worker does (next_shuffled_batch, the
/// worker's own walk: shuffled passes over worker 0's partition), and starts
/// as a worker's step does: after one wait.pass() (the data rows are cold) and after the
/// parameters were written (a dense model's whole vector; a sparse model's rows of the batch, as
/// the pull replies bring them; its batch_keys, timed too, runs before the wait, as a worker
/// draws the next batch's keys right after its compute). Only the model's calls are timed.
/// Flops and bytes are the mean Cost of the calls. `scenarios` choose the models and their data
/// (prepare_training: its DataError and ScenarioError pass through; a "synthetic" model has no
/// kernels and is skipped); without any, the shipped dense models on synthetic data of
/// Fashion-MNIST's shape (784 features, 10 classes): logistic, softmax and an mlp with one
/// hidden layer of 128. Each size runs one unmeasured call and then calls until `min_seconds`
/// have passed (at least 3).
std::vector<KernelTiming> time_kernels(const std::vector<Scenario>& scenarios, KernelBackend& backend,
                                       double min_seconds, NodeWait& wait);

/// Times the scheduler's evaluation of each model: evaluation_passes (runtime/roles/evaluation.h),
/// the function evaluate_model runs, over 1/4, 1/2 and all of the rows the scheduler evaluates
/// (the scenario's train_eval_rows and its whole test set), each call after `wait` and after the
/// parameters were written (the snapshots just brought them). The rows are
/// "batch"; evaluation is true. Without scenarios, the shipped models evaluate 512 rows of their
/// synthetic training data and a synthetic test set of 512. Models, errors and timing as
/// time_kernels.
std::vector<KernelTiming> time_evaluations(const std::vector<Scenario>& scenarios, KernelBackend& backend,
                                           double min_seconds, NodeWait& wait);

/// This machine's memcpy rate in bytes copied per second: the median of a few copies of a
/// `bytes`-byte buffer into another, both touched before timing.
double memcpy_bandwidth(std::size_t bytes, int repetitions);

}  // namespace pstwin::cli
