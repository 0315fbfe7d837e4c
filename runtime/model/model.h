// Model: a differentiable model trained by the parameter server, computed with the kernels.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/backend.h"
#include "runtime/data/dataset.h"
#include "runtime/model/model_section.h"
#include "runtime/rng.h"

namespace pstwin {

/// A model over a fixed feature width. Parameters are one flat float32 vector; key k is element k.
/// Loss is the mean data loss plus the L2 term lambda/2 * ||w||^2 over weights (not biases).
class Model {
 public:
  virtual ~Model() = default;
  /// "logistic", "softmax" or "mlp".
  virtual std::string name() const = 0;
  /// Length of the parameter vector.
  virtual std::uint64_t num_parameters() const = 0;
  /// Writes initial parameters (num_parameters() floats). Linear models start at zero; the MLP
  /// draws its weights from `rng` (runtime/model/mlp_model.h).
  virtual void init(float* params, Rng& rng) const = 0;
  /// Mean gradient of the loss (data term over `sel`, plus L2) at `params`, written to grad
  /// (num_parameters() floats, overwritten). stats gets the data-term loss sum, correct, count.
  /// Returns the kernels' total cost.
  virtual Cost gradient(KernelBackend& k, const Dataset& data, RowSelection sel,
                        const float* params, float* grad, LossStats* stats) const = 0;
  /// Forward pass only: stats gets the data-term loss sum, correct predictions and count.
  virtual Cost evaluate(KernelBackend& k, const Dataset& data, RowSelection sel,
                        const float* params, LossStats* stats) const = 0;
  /// The L2 term lambda/2 * ||w||^2 at `params` (add to a mean data loss to get the full loss).
  virtual double regularizer(const float* params) const = 0;

  // ---- The test metric. The defaults are a classifier's: accuracy, higher is better.

  /// Name of the test metric, as written in summary.json: "accuracy" or "rmse".
  virtual std::string metric_name() const { return "accuracy"; }
  /// True when a larger metric is better (accuracy); false when smaller is (RMSE).
  virtual bool higher_is_better() const { return true; }
  /// The test metric from a forward pass's stats (evaluate() over the test set). Default:
  /// accuracy, correct / count, or 0 when count is 0.
  virtual double metric(const LossStats& stats) const;

  // ---- Sparse models: a key is a parameter row of values_per_key() floats, and workers pull and
  // push only the keys a mini-batch touches. Dense models keep the defaults (one float per key).

  /// Floats per key: key k holds elements [k*w, (k+1)*w) of the flat parameter vector, w >= 1.
  virtual std::size_t values_per_key() const { return 1; }
  /// True when workers should use batch_keys() and sparse_gradient() instead of gradient().
  virtual bool sparse() const { return false; }
  /// Sparse models: the sorted, unique keys that the rows `sel` of `data` touch. The default
  /// (dense models) throws std::logic_error.
  virtual std::vector<std::uint64_t> batch_keys(const Dataset& data, RowSelection sel) const;
  /// Sparse models: the mean gradient of the loss over `sel`, like gradient(), from and to the
  /// touched rows only. `keys` must be batch_keys(data, sel) (or a sorted superset); `rows` holds
  /// their parameter rows, keys.size() x values_per_key() floats in key order; grad (same shape,
  /// overwritten) gets their gradient rows. stats as in gradient(). Throws std::invalid_argument
  /// when a row of `sel` touches a key not in `keys`. The default (dense models) throws
  /// std::logic_error.
  virtual Cost sparse_gradient(KernelBackend& k, const Dataset& data, RowSelection sel,
                               const std::vector<std::uint64_t>& keys, const float* rows,
                               float* grad, LossStats* stats) const;
};

/// Builds the model named by `section.type` ("logistic", "softmax" or "mlp") for data of
/// `features` columns and `num_classes` classes. Throws std::invalid_argument naming the problem
/// for an unknown type, "synthetic" (which has no math), a logistic model with num_classes > 2,
/// or an mlp that make_mlp_model (runtime/model/mlp_model.h) rejects.
std::unique_ptr<Model> make_model(const ModelSection& section, std::size_t features,
                                  std::size_t num_classes);

}  // namespace pstwin
