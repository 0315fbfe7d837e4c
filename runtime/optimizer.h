// ServerOptimizer: the update rule a server applies to its shard (DESIGN.md, "Roles").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/backend.h"
#include "runtime/optimizer_state.h"

namespace pstwin {

/// Which optimizer a server runs, and its hyperparameters other than the learning rate and
/// momentum (scenario keys training.optimizer, beta1, beta2, epsilon).
struct OptimizerSpec {
  std::string kind = "sgd";  ///< "sgd", "momentum", "adagrad" or "adam"
  double beta1 = 0.9;        ///< adam: decay of the first-moment average, in [0, 1)
  double beta2 = 0.999;      ///< adam: decay of the second-moment average, in [0, 1)
  double epsilon = 1e-8;     ///< adagrad and adam: added to the root in the denominator, > 0
};

/// Server-side optimizer over one shard of n parameters, holding its per-key state.
/// Each apply() takes a gradient g and a step scale s (1/W for one worker's gradient under
/// ASP/SSP, 1 for BSP's mean):
///   "sgd":      w -= lr * s * g
///   "momentum": v = mu * v + g;  w -= lr * s * v    (heavy ball, Polyak 1964)
///   "adagrad":  g' = s * g;  h += g'^2;  w -= lr * g' / (sqrt(h) + eps)    (Duchi et al. 2011)
///   "adam":     g' = s * g;  t += 1;  m = b1 m + (1-b1) g';  v = b2 v + (1-b2) g'^2;
///               w -= lr * (m / (1-b1^t)) / (sqrt(v / (1-b2^t)) + eps)  (Kingma and Ba 2015)
/// State (v, h, m) starts at zero. SGD and momentum are linear in g, so scaling the step is the
/// same as scaling the gradient. Adagrad and Adam are not: there s scales the gradient before it
/// enters the state, and since Adam's step is nearly invariant to the gradient's scale, under
/// ASP/SSP each worker's push is a full Adam step (t counts calls, so W per clock) where BSP
/// takes one step on the mean. Not thread-safe.
class ServerOptimizer {
 public:
  /// Throws std::invalid_argument for an unknown kind, a beta outside [0, 1) or epsilon <= 0.
  ServerOptimizer(const OptimizerSpec& spec, double learning_rate, double momentum,
                  std::size_t n);
  /// The same with `kind`'s default hyperparameters (OptimizerSpec's defaults).
  ServerOptimizer(const std::string& kind, double learning_rate, double momentum, std::size_t n);

  /// Applies gradient g (n floats) to w (n floats) with step scale `scale`. Returns the cost.
  Cost apply(KernelBackend& k, float* w, const float* g, double scale);

  /// Applies a gradient to some rows of the shard only (sparse models). The shard's n floats are
  /// rows of `width`; rows[0..count) are sorted, distinct row indices, and g holds their gradient
  /// rows (count x width floats, in that order). Each row is updated exactly as apply() would
  /// update it; the state of rows not listed is left alone (a "lazy" sparse update: momentum and
  /// Adam's moments do not decay on untouched rows). Counts as one step for Adam's t. Throws
  /// std::invalid_argument for unsorted rows or a row outside the shard. Returns the cost.
  Cost apply_rows(KernelBackend& k, float* w, const float* g, const std::uint32_t* rows,
                  std::size_t count, std::size_t width, double scale);

  /// Number of apply() and apply_rows() calls so far (Adam's t).
  std::uint64_t steps() const { return steps_; }

  /// A copy of the per-key state and step count (see OptimizerState).
  OptimizerState state() const;

  /// Replaces the state with `s`, as if this optimizer had run the steps that produced it.
  /// `s.first` must hold n floats for momentum, adagrad and adam and be empty for sgd;
  /// `s.second` must hold n floats for adam and be empty otherwise. Throws
  /// std::invalid_argument naming the kind, the vector and both sizes when they do not match;
  /// the state is left unchanged then.
  void restore(OptimizerState s);

 private:
  enum class Kind { kSgd, kMomentum, kAdagrad, kAdam };

  /// The update of elements [offset, offset+n): w and g point at element offset's value and
  /// gradient, and the state is read at `offset`. Does not count a step.
  Cost update_range(KernelBackend& k, std::size_t offset, float* w, const float* g, std::size_t n,
                    double scale);

  Kind kind_;
  OptimizerSpec spec_;
  std::size_t n_;
  double lr_;
  double mu_;
  std::vector<float> first_;   ///< momentum: velocity; adagrad: sum of squares; adam: m
  std::vector<float> second_;  ///< adam: v
  std::uint64_t steps_ = 0;
};

}  // namespace pstwin
