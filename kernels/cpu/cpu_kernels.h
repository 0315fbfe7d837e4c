// Internal to kernels/cpu/: the CPU kernels as free functions, and how their Cost is counted.
// CpuBackend (cpu_backend.cc) forwards to these; nothing outside kernels/cpu/ includes this file.
// The MLP's dense kernels and the Adagrad/Adam steps are declared in dense_kernels.h; their Cost
// formulas are part of their contracts in kernels/backend.h.
//
// Cost counting (one formula per kernel, so a device model prices CPU and CUDA runs alike).
// Notation: n = selected rows, N = stored entries of the selected rows (CSR: the sum of their
// nnz; dense: n*d), d = x.cols(), k = classes, T = kTranscendentalFlops (an exp, log or log1p).
// A fused multiply-add counts 2 flops. Bytes are read + written; the parameter and gradient
// vectors are assumed to stay in cache for the duration of one call, so each moves once.
//
// Feature bytes F: CSR 16n (the row_ptr pair of each row) + 8N (4 B index + 4 B value);
//                  dense 4N.
// Parameter bytes per class P: CSR 4*(min(d, N) + 1) (only the touched weights, plus the bias);
//                              dense 4*(d+1).
//
// logistic:  flops  forward  2N + n*(4 + 2T)     dot; bias, sign, margin, softplus add (4);
//                                                 exp + log1p
//                    backward 2N + 5n             FMAs; sigmoid from the shared exp (2),
//                                                 residual, 1/n scale, bias (1 each)
//            bytes  8n (selection + label) + F + P + [grad] 4*(d+1)
// softmax:   flops  forward  2kN + kn + n*(3k + kT + T + 2)   logits, bias; max, shift, sum
//                                                             (k each); k exps; log; loss (2)
//                    backward 2kN + kn + n*(3k + 1)            FMAs, bias; 1/sum (1); p_c,
//                                                             residual, 1/n scale (k each)
//            bytes  8n + F + k*P + [grad] 4*k*(d+1)
// axpy:      2n flops, 12n bytes (read acc and g, write acc)
// sgd:       2n flops, 12n bytes (read w and g, write w)
// momentum:  4n flops, 20n bytes (read w, v, g; write w, v)
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/cost.h"
#include "kernels/matrix.h"

namespace pstwin::cpu {

/// Flops charged for one exp, log or log1p (about what a vectorised libm polynomial takes).
inline constexpr double kTranscendentalFlops = 10.0;

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

/// Stored entries N of the selected rows (CSR: their nnz; dense: n*d). Throws
/// std::out_of_range for a selected row index >= x.rows().
double selected_entries(const FeatureView& x, RowSelection sel);

/// Bytes of the features of the selection plus its 4-byte row indices and 4-byte labels.
double selection_bytes(const FeatureView& x, RowSelection sel, double entries);

/// Bytes of one class's parameter row as the kernels read it (see P above).
double param_row_bytes(const FeatureView& x, double entries);

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
