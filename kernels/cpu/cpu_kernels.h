// Internal to kernels/cpu/: the CPU kernels as free functions, and how their Cost is counted.
// CpuBackend (cpu_backend.cc) forwards to these; nothing outside kernels/cpu/ includes this file.
// The MLP's dense kernels and the Adagrad/Adam steps are declared in dense_kernels.h; their Cost
// formulas are part of their contracts in kernels/backend.h.
//
// Cost counting lives in kernels/cost_formulas.h (one formula per kernel, shared with the CUDA
// backend, so a device model prices CPU and CUDA runs alike).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/cost.h"
#include "kernels/matrix.h"

namespace pstwin::cpu {

/// Dot product of a[0..n) and b[0..n) with eight interleaved partial sums combined in a fixed
/// order: deterministic, and simple enough for the compiler to vectorise without -ffast-math.
inline float dot(const float* a, const float* b, std::size_t n) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t j = 0;
  for (; j + 8 <= n; j += 8) {
    for (std::size_t l = 0; l < 8; ++l) acc[l] += a[j + l] * b[j + l];
  }
  float tail = 0.0f;
  for (; j < n; ++j) tail += a[j] * b[j];
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7])) + tail;
}

/// y[i] += a * x[i] for i < n, y and x not overlapping. Written eight at a time (plus a scalar
/// tail) because GCC's -O2 vectoriser accepts only loops that need no epilogue; the result is the
/// same as the plain loop's, element by element.
inline void scaled_add(float* __restrict y, const float* __restrict x, float a, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (std::size_t l = 0; l < 8; ++l) y[i + l] += a * x[i + l];
  }
  for (; i < n; ++i) y[i] += a * x[i];
}

/// True when [a, a+n) and [b, b+n) share an element (the kernels then take a plain loop).
inline bool overlap(const float* a, const float* b, std::size_t n) {
  return n > 0 && a < b + n && b < a + n;
}

/// See KernelBackend::logistic.
Cost logistic(const FeatureView& x, const float* labels01, RowSelection sel, const float* params,
              float* grad, LossStats* stats);

/// See KernelBackend::softmax. `scratch` is resized to 2k floats and reused between calls.
/// Throws std::invalid_argument for a label outside [0, k) or k == 0.
Cost softmax(const FeatureView& x, const std::int32_t* labels, std::size_t k, RowSelection sel,
             const float* params, float* grad, LossStats* stats, std::vector<float>& scratch);

/// See KernelBackend::axpy.
Cost axpy(float* acc, const float* g, std::size_t n, float scale);
/// See KernelBackend::sgd_update.
Cost sgd_update(float* w, const float* g, std::size_t n, float lr);
/// See KernelBackend::momentum_update.
Cost momentum_update(float* w, float* v, const float* g, std::size_t n, float lr, float mu);

}  // namespace pstwin::cpu
