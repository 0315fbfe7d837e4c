// ServerOptimizer: the update rule a server applies to its shard (DESIGN.md, "Roles").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "kernels/backend.h"

namespace pstwin {

/// Server-side optimizer over one shard of n parameters, holding its per-key state.
///   "sgd":      w -= lr * s * g
///   "momentum": v = mu * v + g;  w -= lr * s * v    (heavy ball, Polyak 1964)
/// where s is the per-call step scale (1/W for one worker's gradient under ASP/SSP, 1 for BSP's
/// mean). Momentum is linear in g, so scaling the step is the same as scaling the gradient.
class ServerOptimizer {
 public:
  /// Throws std::invalid_argument for an unknown kind.
  ServerOptimizer(const std::string& kind, double learning_rate, double momentum, std::size_t n);

  /// Applies gradient g (n floats) to w (n floats) with step scale `scale`. Returns the cost.
  Cost apply(KernelBackend& k, float* w, const float* g, double scale);

 private:
  bool momentum_;
  std::size_t n_;
  double lr_;
  double mu_;
  std::vector<float> velocity_;
};

}  // namespace pstwin
