// Adagrad and Adam steps on the CPU (KernelBackend::adagrad_update and adam_update).
// Element-wise, so the result of each element depends on its own inputs only: deterministic, and
// the same whether or not the compiler vectorises the loop.
#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/cost_formulas.h"
#include "kernels/cpu/dense_kernels.h"

namespace pstwin::cpu {

Cost adagrad_update(float* w, float* h, const float* g, std::size_t n, float lr, float eps,
                    float grad_scale) {
  for (std::size_t i = 0; i < n; ++i) {
    const float gi = grad_scale * g[i];
    h[i] += gi * gi;
    w[i] -= lr * gi / (std::sqrt(h[i]) + eps);
  }
  return cost::adagrad(static_cast<double>(n));
}

Cost adam_update(float* w, float* m, float* v, const float* g, std::size_t n, float lr,
                 float beta1, float beta2, float eps, std::uint64_t t, float grad_scale) {
  if (t == 0) throw std::invalid_argument("adam_update: the step t counts from 1, got 0");
  if (!(beta1 >= 0.0f && beta1 < 1.0f) || !(beta2 >= 0.0f && beta2 < 1.0f))
    throw std::invalid_argument("adam_update: beta1 and beta2 must lie in [0, 1), got " +
                                std::to_string(beta1) + " and " + std::to_string(beta2));
  // Bias corrections 1 - beta^t, in double: for beta2 = 0.999 and small t, 1 - beta2^t is tiny
  // and float would lose most of its digits.
  const double t_d = static_cast<double>(t);
  const auto inv_c1 = static_cast<float>(1.0 / (1.0 - std::pow(static_cast<double>(beta1), t_d)));
  const auto inv_c2 = static_cast<float>(1.0 / (1.0 - std::pow(static_cast<double>(beta2), t_d)));
  const float one_minus_b1 = 1.0f - beta1, one_minus_b2 = 1.0f - beta2;
  for (std::size_t i = 0; i < n; ++i) {
    const float gi = grad_scale * g[i];
    m[i] = beta1 * m[i] + one_minus_b1 * gi;
    v[i] = beta2 * v[i] + one_minus_b2 * (gi * gi);
    const float m_hat = m[i] * inv_c1;
    const float v_hat = v[i] * inv_c2;
    w[i] -= lr * m_hat / (std::sqrt(v_hat) + eps);
  }
  return cost::adam(static_cast<double>(n));
}

}  // namespace pstwin::cpu
