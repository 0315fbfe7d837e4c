// The CUDA kernels on device pointers: what CudaBackend (cuda_backend.cc) runs after staging its
// host arguments, and what bench/cuda_kernels_bench.cc times without transfer costs. Plain C++
// (no CUDA syntax), so host code compiled by the C++ compiler can call it.
//
// Every function enqueues its work on `stream` and returns without waiting; outputs are ready
// once the stream is synchronised. Every pointer is a device pointer (cudaMalloc'd) unless said
// otherwise. Sizes of 0 are valid and launch nothing. Each function throws CudaError
// (kernels/cuda/cuda_check.h) when a launch or an allocation fails. The contract of each
// (shapes, formula, summation order) is the KernelBackend method of the same name in
// kernels/backend.h, except where a comment here says otherwise; numerical differences from
// the CPU twin are stated per function and tested in tests/cuda_kernels_test.cc.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "kernels/cuda/device_buffer.h"

namespace pstwin::cuda {

/// What a forward pass measured, written by the model kernels into device memory. The row
/// count is known to the caller and not repeated here.
struct DeviceStats {
  double loss_sum = 0.0;
  unsigned long long correct = 0;
};

/// A feature matrix in device memory, CSR or dense row-major (see kernels/matrix.h).
/// CSR: row_ptr[rows + 1], col_idx[nnz], values[nnz]; dense: values[rows * cols].
/// CSR rows must not repeat a column.
struct DeviceFeatures {
  bool sparse = true;
  std::size_t rows = 0;
  std::size_t cols = 0;
  const std::uint64_t* row_ptr = nullptr;
  const std::uint32_t* col_idx = nullptr;
  const float* values = nullptr;
};

// ---- Element-wise kernels (kernels/cuda/vector_kernels.cu). Grid-stride loops, float4 loads
// and stores when every array is 16-byte aligned. Each multiply and add is rounded separately
// (no fused multiply-add), in the CPU twin's order, so results are bit-identical to the CPU's
// on x86-64. Arrays of one call must not partially overlap (the same pointer twice is fine).

/// acc[i] += scale * g[i].
void axpy(float* acc, const float* g, std::size_t n, float scale, cudaStream_t stream);
/// w[i] -= lr * g[i].
void sgd_update(float* w, const float* g, std::size_t n, float lr, cudaStream_t stream);
/// v[i] = mu v[i] + g[i]; w[i] -= lr v[i].
void momentum_update(float* w, float* v, const float* g, std::size_t n, float lr, float mu,
                     cudaStream_t stream);
/// Adagrad step (KernelBackend::adagrad_update).
void adagrad_update(float* w, float* h, const float* g, std::size_t n, float lr, float eps,
                    float grad_scale, cudaStream_t stream);
/// Adam step t >= 1 (KernelBackend::adam_update); the bias corrections are computed here, on
/// the host, in double. Throws std::invalid_argument for t == 0 or a beta outside [0, 1).
void adam_update(float* w, float* m, float* v, const float* g, std::size_t n, float lr,
                 float beta1, float beta2, float eps, std::uint64_t t, float grad_scale,
                 cudaStream_t stream);
/// grad[i] = 0 where !(activation[i] > 0).
void relu_backward(float* grad, const float* activation, std::size_t n, cudaStream_t stream);
/// z[i][j] += bias[j], then max(0, z) when relu (ties and NaN as std::max(z, 0.0f)).
void bias_activation(float* z, const float* bias, std::size_t rows, std::size_t cols, bool relu,
                     cudaStream_t stream);
/// c[i][j] = beta * c[i][j] for a rows x cols matrix with row stride ld (beta == 0 writes
/// zeros without reading c).
void scale_matrix(float* c, std::size_t rows, std::size_t cols, std::size_t ld, float beta,
                  cudaStream_t stream);

// ---- Row and column kernels of the MLP (kernels/cuda/mlp_kernels.cu).

/// out[j] = sum_i d[i][j] in ascending i, one thread per column: bit-identical to the CPU.
void column_sums(const float* d, std::size_t rows, std::size_t cols, float* out,
                 cudaStream_t stream);

/// Softmax cross-entropy (KernelBackend::softmax_xent). Labels must lie in [0, k) (the caller
/// validates them: an out-of-range label here gives a NaN loss for that row, never a stray
/// memory access). dz may be null or equal to z. stats (device, may be null) receives the loss
/// sum and the correct count through a deterministic reduction. Difference from the CPU: each
/// exponential is expf of the float difference z - max (the CPU takes exp in double), summed in
/// double: relative error about 1e-6 in dz and the loss.
void softmax_xent(const float* z, const std::int32_t* labels, std::size_t rows, std::size_t k,
                  float* dz, float grad_scale, DeviceStats* stats, Workspace& ws,
                  cudaStream_t stream);

/// Copies rows sel[0..n) of x (sel null: rows 0..n) into the dense n x x.cols matrix out,
/// zeros where a CSR row stores nothing. Bit-identical to the CPU.
void gather_rows(const DeviceFeatures& x, const std::uint32_t* sel, std::size_t n, float* out,
                 cudaStream_t stream);

// ---- Linear models (kernels/cuda/linear_models.cu). One warp per selected row computes its
// logits (lanes split the row's entries, then a fixed butterfly reduction: the dot products
// are summed in a different order from the CPU's, relative error ~1e-6). The gradient is
// deterministic: each weight is summed by one thread over the selected rows in ascending order
// (CSR: the entries are sorted by column with a stable radix sort first), as on the CPU.
// `entries` is the number of stored entries of the selected rows (cost::selected_entries).
// Row indices in sel must be < x.rows (the caller validates them). grad (may be null) is
// overwritten with the mean gradient; stats (may be null) as for softmax_xent.

/// KernelBackend::logistic.
void logistic(const DeviceFeatures& x, const float* labels01, const std::uint32_t* sel,
              std::size_t n, std::size_t entries, const float* params, float* grad,
              DeviceStats* stats, Workspace& ws, cudaStream_t stream);

/// KernelBackend::softmax, labels in [0, k) (validated by the caller).
void softmax(const DeviceFeatures& x, const std::int32_t* labels, std::size_t k,
             const std::uint32_t* sel, std::size_t n, std::size_t entries, const float* params,
             float* grad, DeviceStats* stats, Workspace& ws, cudaStream_t stream);

// ---- Matrix factorisation (kernels/cuda/mf_kernels.cu).

/// KernelBackend::matrix_factorization: rows is the n_rows x (1 + rank) table; rating j reads
/// rows user_row[j] and item_row[j] (both < n_rows, validated by the caller). stats (may be
/// null) receives sum_j e_j^2 (correct = 0). grad (may be null) is overwritten: every row is
/// zeroed, then each touched row is summed by one warp over the ratings that touch it in batch
/// order (user part before item part), found by a stable radix sort of (row, rating): the same
/// order as the CPU, deterministic. Multiply-adds may be fused, so values differ from the CPU's
/// by a few ulp.
void matrix_factorization(const float* rows, std::size_t n_rows, std::size_t rank,
                          const std::uint32_t* user_row, const std::uint32_t* item_row,
                          const float* rating, std::size_t count, float mean, float l2,
                          float* grad, DeviceStats* stats, Workspace& ws, cudaStream_t stream);

// ---- Dense matrix product (kernels/cuda/gemm.cc).

/// KernelBackend::gemm through cublasSgemm on `handle` (set to `stream`), row-major via the
/// transpose identity C^T = op(B)^T op(A)^T. FP32 throughout (no TF32: the handle's math mode
/// is left at CUBLAS_DEFAULT_MATH). k == 0 scales C by beta with scale_matrix. cuBLAS sums in
/// its own order: relative error ~1e-6 of sum |a||b| against the CPU. Leading dimensions must
/// satisfy the row-major bounds of KernelBackend::gemm (not checked here).
void gemm(cublasHandle_t handle, bool trans_a, bool trans_b, std::size_t m, std::size_t n,
          std::size_t k, float alpha, const float* a, std::size_t lda, const float* b,
          std::size_t ldb, float beta, float* c, std::size_t ldc, cudaStream_t stream);

}  // namespace pstwin::cuda
