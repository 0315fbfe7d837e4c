// Row-major general matrix product on the GPU through cuBLAS (column-major): a row-major
// m x n matrix C is the column-major n x m matrix C^T, and C^T = op(B)^T op(A)^T, so cuBLAS is
// asked for that product with the operands swapped and the same transpose flags.
#include <limits>
#include <stdexcept>

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/device_kernels.h"

namespace pstwin::cuda {

void gemm(cublasHandle_t handle, bool trans_a, bool trans_b, std::size_t m, std::size_t n,
          std::size_t k, float alpha, const float* a, std::size_t lda, const float* b,
          std::size_t ldb, float beta, float* c, std::size_t ldc, cudaStream_t stream) {
  if (m == 0 || n == 0) return;
  if (k == 0) {  // C = beta * C; cuBLAS would insist on lda, ldb >= 1 here
    scale_matrix(c, m, n, ldc, beta, stream);
    return;
  }
  constexpr std::size_t kMax = std::numeric_limits<int>::max();
  if (m > kMax || n > kMax || k > kMax || lda > kMax || ldb > kMax || ldc > kMax)
    throw std::length_error("gemm: a size or leading dimension exceeds cuBLAS's 32-bit int");
  PSTWIN_CUDA_CHECK(cublasSetStream(handle, stream));
  // A stored row-major is op(A)^T's column-major storage when not transposed, so the flags carry
  // over unchanged: op_cublas(B) = trans_b ? T : N, op_cublas(A) = trans_a ? T : N.
  const cublasOperation_t op_b = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  PSTWIN_CUDA_CHECK(cublasSgemm(handle, op_b, op_a, static_cast<int>(n), static_cast<int>(m),
                                static_cast<int>(k), &alpha, b, static_cast<int>(ldb), a,
                                static_cast<int>(lda), &beta, c, static_cast<int>(ldc)));
}

}  // namespace pstwin::cuda
