// Timing the real kernels for `pstwin calibrate`: each model's gradient on the chosen device, at
// a few batch sizes, with the Cost the kernels report for it (what the roofline is fitted to).
#pragma once

#include <string>
#include <vector>

#include "kernels/backend.h"
#include "runtime/scenario/scenario.h"

namespace pstwin::cli {

/// One batch size of one model: the median seconds of a gradient step, and its Cost.
struct KernelTiming {
  std::string model;     ///< "softmax", or "softmax (quickstart)" for a scenario's model
  std::size_t batch = 0; ///< rows in the mini-batch
  double flops = 0;
  double bytes = 0;
  double seconds = 0;    ///< median over the timed calls
  int calls = 0;
};

/// Times one gradient step (Model::gradient, or batch_keys + sparse_gradient for a sparse model)
/// of each model on `backend`, at batch sizes around each model's own: 1/4, 1/2, 1, 2 and 4 times
/// it. Each call takes the next batch of the data (next_batch_rows), as a worker does, so the
/// time includes fetching rows that are not in cache; flops and bytes are the mean Cost of the
/// calls. `scenarios` choose the models and their data (prepare_training: its DataError and
/// ScenarioError pass through; a "synthetic" model has no kernels and is skipped); without any,
/// the shipped dense models on synthetic data of Fashion-MNIST's shape (784 features, 10
/// classes): logistic, softmax and an mlp with one hidden layer of 128. Each size runs one
/// unmeasured call and then calls until `min_seconds` have passed (at least 3).
std::vector<KernelTiming> time_kernels(const std::vector<Scenario>& scenarios, KernelBackend& backend,
                                       double min_seconds);

/// The `batch` rows of `rows` from position `next` on, wrapping round at the end, and `next`
/// moved past them: consecutive calls walk the rows as a worker walks its shard, one new
/// mini-batch per step. Empty when `rows` is. REQUIRES next < rows.size() when rows is not empty.
std::vector<std::uint32_t> next_batch_rows(const std::vector<std::uint32_t>& rows, std::size_t batch,
                                           std::size_t& next);

/// This machine's memcpy rate in bytes copied per second: the median of a few copies of a
/// `bytes`-byte buffer into another, both touched before timing.
double memcpy_bandwidth(std::size_t bytes, int repetitions);

}  // namespace pstwin::cli
