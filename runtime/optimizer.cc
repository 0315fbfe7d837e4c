#include "runtime/optimizer.h"

#include <stdexcept>

namespace pstwin {

ServerOptimizer::ServerOptimizer(const std::string& kind, double learning_rate, double momentum,
                                 std::size_t n)
    : momentum_(kind == "momentum"), n_(n), lr_(learning_rate), mu_(momentum) {
  if (kind != "sgd" && kind != "momentum")
    throw std::invalid_argument("unknown optimizer '" + kind + "' (expected sgd or momentum)");
  if (momentum_) velocity_.assign(n, 0.0f);
}

Cost ServerOptimizer::apply(KernelBackend& k, float* w, const float* g, double scale) {
  const auto step = static_cast<float>(lr_ * scale);
  if (momentum_)
    return k.momentum_update(w, velocity_.data(), g, n_, step,
                             static_cast<float>(mu_));
  return k.sgd_update(w, g, n_, step);
}

}  // namespace pstwin
