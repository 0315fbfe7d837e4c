// Model: a differentiable model trained by the parameter server, computed with the kernels.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "kernels/backend.h"
#include "runtime/data/dataset.h"
#include "runtime/rng.h"
#include "runtime/scenario/scenario.h"

namespace pstwin {

/// A model over a fixed feature width. Parameters are one flat float32 vector; key k is element k.
/// Loss is the mean data loss plus the L2 term lambda/2 * ||w||^2 over weights (not biases).
class Model {
 public:
  virtual ~Model() = default;
  /// "logistic" or "softmax".
  virtual std::string name() const = 0;
  /// Length of the parameter vector.
  virtual std::uint64_t num_parameters() const = 0;
  /// Writes initial parameters (num_parameters() floats). Linear models start at zero.
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
};

/// Builds the model named by `section.type` ("logistic" or "softmax") for data of `features`
/// columns and `num_classes` classes. Throws std::invalid_argument naming the problem for an
/// unknown type, "synthetic" (which has no math), or a logistic model with num_classes > 2.
std::unique_ptr<Model> make_model(const ModelSection& section, std::size_t features,
                                  std::size_t num_classes);

}  // namespace pstwin
