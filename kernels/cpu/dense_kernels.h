// Internal to kernels/cpu/: the dense MLP kernels and the adaptive optimizer steps as free
// functions. CpuBackend (cpu_backend.cc) forwards to these. The contract of each, including its
// Cost formula, is the KernelBackend method of the same name in kernels/backend.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cost.h"
#include "kernels/matrix.h"

namespace pstwin::cpu {

/// See KernelBackend::gemm. Loop order i-k-j over blocks of four rows of C for the
/// non-transposed-B cases (B and C rows streamed contiguously), dot products for the transposed-B
/// cases. Throws std::invalid_argument when a leading dimension is smaller than its row length.
Cost gemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k, float alpha,
          const float* a, std::size_t lda, const float* b, std::size_t ldb, float beta, float* c,
          std::size_t ldc);

/// See KernelBackend::gather_rows.
Cost gather_rows(const FeatureView& x, RowSelection sel, float* out);

/// See KernelBackend::bias_activation.
Cost bias_activation(float* z, const float* bias, std::size_t rows, std::size_t cols, bool relu);

/// See KernelBackend::relu_backward.
Cost relu_backward(float* grad, const float* activation, std::size_t n);

/// See KernelBackend::column_sums.
Cost column_sums(const float* d, std::size_t rows, std::size_t cols, float* out);

/// See KernelBackend::softmax_xent.
Cost softmax_xent(const float* z, const std::int32_t* labels, std::size_t rows, std::size_t k,
                  float* dz, float grad_scale, LossStats* stats);

/// See KernelBackend::adagrad_update.
Cost adagrad_update(float* w, float* h, const float* g, std::size_t n, float lr, float eps,
                    float grad_scale);

/// See KernelBackend::adam_update.
Cost adam_update(float* w, float* m, float* v, const float* g, std::size_t n, float lr,
                 float beta1, float beta2, float eps, std::uint64_t t, float grad_scale);

}  // namespace pstwin::cpu
