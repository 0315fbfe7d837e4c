// Row-major general matrix product (KernelBackend::gemm) on the CPU.
//
// Every case reduces to one loop nest, C[i][:] += sum_p (alpha * op(A)[i][p]) * Bt[p][:], with
// Bt = op(B) stored k x n row-major: p runs in ascending order for each element, four rows of C
// share each streamed row of Bt (i-k-j order, four-row blocks), and the innermost loop is a plain
// contiguous multiply-add the compiler vectorises. A transposed B is first copied into that
// layout (k*n floats); op(A) is read through strides, so a transposed A costs nothing extra.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/cost_formulas.h"
#include "kernels/cpu/dense_kernels.h"

namespace pstwin::cpu {
namespace {

/// op(A) as strides: element (i, p) is a[i * row + p * col].
struct StridedA {
  const float* a;
  std::size_t row;
  std::size_t col;
  float at(std::size_t i, std::size_t p) const { return a[i * row + p * col]; }
};

/// c[j] += s * b[j] for j < n, eight at a time (see scaled_add in cpu_kernels.h).
inline void add_scaled_row(float* __restrict c, const float* __restrict b, float s, std::size_t n) {
  std::size_t j = 0;
  for (; j + 8 <= n; j += 8)
    for (std::size_t l = 0; l < 8; ++l) c[j + l] += s * b[j + l];
  for (; j < n; ++j) c[j] += s * b[j];
}

/// Four rows of C at once: each row of Bt is loaded once for four multiply-adds. The rows'
/// results are bit-identical to four add_scaled_row passes (same operations, same order).
void four_rows(float* __restrict c0, float* __restrict c1, float* __restrict c2,
               float* __restrict c3, const StridedA& a, std::size_t i, const float* bt,
               std::size_t ldbt, std::size_t n, std::size_t k, float alpha) {
  for (std::size_t p = 0; p < k; ++p) {
    const float* __restrict b = bt + p * ldbt;
    const float a0 = alpha * a.at(i, p), a1 = alpha * a.at(i + 1, p);
    const float a2 = alpha * a.at(i + 2, p), a3 = alpha * a.at(i + 3, p);
    std::size_t j = 0;
    for (; j + 8 <= n; j += 8) {
      for (std::size_t l = 0; l < 8; ++l) {
        const float bj = b[j + l];
        c0[j + l] += a0 * bj;
        c1[j + l] += a1 * bj;
        c2[j + l] += a2 * bj;
        c3[j + l] += a3 * bj;
      }
    }
    for (; j < n; ++j) {
      const float bj = b[j];
      c0[j] += a0 * bj;
      c1[j] += a1 * bj;
      c2[j] += a2 * bj;
      c3[j] += a3 * bj;
    }
  }
}

void check_ld(const char* name, std::size_t ld, std::size_t row_length, std::size_t rows) {
  if (rows > 0 && ld < row_length)
    throw std::invalid_argument(std::string("gemm: leading dimension ") + name + " = " +
                                std::to_string(ld) + " is less than the row length " +
                                std::to_string(row_length));
}

}  // namespace

Cost gemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k, float alpha,
          const float* a, std::size_t lda, const float* b, std::size_t ldb, float beta, float* c,
          std::size_t ldc) {
  check_ld("lda", lda, trans_a ? m : k, trans_a ? k : m);
  check_ld("ldb", ldb, trans_b ? k : n, trans_b ? n : k);
  check_ld("ldc", ldc, n, m);

  // C = beta * C first; beta == 0 overwrites without reading (BLAS semantics).
  for (std::size_t i = 0; i < m; ++i) {
    float* ci = c + i * ldc;
    if (beta == 0.0f) {
      std::fill(ci, ci + n, 0.0f);
    } else if (beta != 1.0f) {
      for (std::size_t j = 0; j < n; ++j) ci[j] *= beta;
    }
  }

  const Cost result = cost::gemm(static_cast<double>(m), static_cast<double>(n),
                                 static_cast<double>(k), beta != 0.0f);
  if (m == 0 || n == 0 || k == 0) return result;

  // Bt: op(B) as k x n rows. Transposing costs k*n moves, small next to the m*n*k product.
  std::vector<float> transposed;
  const float* bt = b;
  std::size_t ldbt = ldb;
  if (trans_b) {
    transposed.resize(k * n);
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t p = 0; p < k; ++p) transposed[p * n + j] = b[j * ldb + p];
    bt = transposed.data();
    ldbt = n;
  }
  const StridedA op_a = trans_a ? StridedA{a, 1, lda} : StridedA{a, lda, 1};

  std::size_t i = 0;
  for (; i + 4 <= m; i += 4)
    four_rows(c + i * ldc, c + (i + 1) * ldc, c + (i + 2) * ldc, c + (i + 3) * ldc, op_a, i, bt,
              ldbt, n, k, alpha);
  for (; i < m; ++i) {
    float* ci = c + i * ldc;
    for (std::size_t p = 0; p < k; ++p) add_scaled_row(ci, bt + p * ldbt, alpha * op_a.at(i, p), n);
  }
  return result;
}

}  // namespace pstwin::cpu
