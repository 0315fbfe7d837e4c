// Element-wise vector kernels (axpy and the plain server-side optimizer steps).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/cost_formulas.h"
#include "kernels/cpu/cpu_kernels.h"

namespace pstwin::cpu {

Cost axpy(float* acc, const float* g, std::size_t n, float scale) {
  if (overlap(acc, g, n)) {
    for (std::size_t i = 0; i < n; ++i) acc[i] += scale * g[i];
  } else {
    scaled_add(acc, g, scale, n);
  }
  return cost::axpy(static_cast<double>(n));
}

Cost sgd_update(float* w, const float* g, std::size_t n, float lr) {
  // w - lr*g and w + (-lr)*g round identically, so scaled_add computes exactly w[i] -= lr * g[i].
  if (overlap(w, g, n)) {
    for (std::size_t i = 0; i < n; ++i) w[i] -= lr * g[i];
  } else {
    scaled_add(w, g, -lr, n);
  }
  return cost::sgd(static_cast<double>(n));
}

namespace {

/// The momentum step on non-overlapping buffers, eight at a time (see scaled_add).
void momentum_step(float* __restrict w, float* __restrict v, const float* __restrict g,
                   std::size_t n, float lr, float mu) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (std::size_t l = 0; l < 8; ++l) {
      v[i + l] = mu * v[i + l] + g[i + l];
      w[i + l] -= lr * v[i + l];
    }
  }
  for (; i < n; ++i) {
    v[i] = mu * v[i] + g[i];
    w[i] -= lr * v[i];
  }
}

}  // namespace

Cost momentum_update(float* w, float* v, const float* g, std::size_t n, float lr, float mu) {
  if (overlap(w, v, n) || overlap(w, g, n) || overlap(v, g, n)) {
    for (std::size_t i = 0; i < n; ++i) {
      v[i] = mu * v[i] + g[i];
      w[i] -= lr * v[i];
    }
  } else {
    momentum_step(w, v, g, n, lr, mu);
  }
  return cost::momentum(static_cast<double>(n));
}

}  // namespace pstwin::cpu
