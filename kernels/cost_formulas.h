// The Cost of every KernelBackend operation as a function of its sizes, shared by the CPU and the
// CUDA backends so that a device model prices both alike (one formula per kernel). The contract
// of each formula is stated with its method in kernels/backend.h; the notation of the linear
// models is explained here.
//
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
#pragma once

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "kernels/cost.h"
#include "kernels/matrix.h"

namespace pstwin::cost {

/// Flops charged for one exp, log or log1p (about what a vectorised libm polynomial takes).
inline constexpr double kTranscendentalFlops = 10.0;

/// Stored entries N of the selected rows (CSR: their nnz; dense: n*d). Reads the selection and,
/// for CSR, the row pointers (host memory). Throws std::out_of_range for a selected row index
/// >= x.rows(): every backend validates its selection through this function.
inline double selected_entries(const FeatureView& x, RowSelection sel) {
  const std::size_t rows = x.rows();
  double entries = 0.0;
  for (std::size_t s = 0; s < sel.count; ++s) {
    const std::size_t row = sel.rows[s];
    if (row >= rows) {
      throw std::out_of_range("kernel row selection: row " + std::to_string(row) +
                              " is outside a matrix of " + std::to_string(rows) + " rows");
    }
    if (x.sparse) entries += static_cast<double>(x.csr.row_ptr[row + 1] - x.csr.row_ptr[row]);
  }
  if (!x.sparse) entries = static_cast<double>(sel.count) * static_cast<double>(x.dense.cols);
  return entries;
}

/// Bytes of the features of n selected rows with N stored entries, plus their 4-byte row indices
/// and 4-byte labels: 8n + F.
inline double selection_bytes(bool sparse, double n, double entries) {
  const double features = sparse ? 16.0 * n + 8.0 * entries : 4.0 * entries;
  return 8.0 * n + features;
}

/// Bytes of one class's parameter row as the kernels read it (P above).
inline double param_row_bytes(bool sparse, double d, double entries) {
  return 4.0 * ((sparse ? std::min(d, entries) : d) + 1.0);
}

/// KernelBackend::logistic over n rows holding N stored entries of d columns.
inline Cost logistic(bool sparse, double n, double entries, double d, bool grad) {
  Cost c{2.0 * entries + n * (4.0 + 2.0 * kTranscendentalFlops),
         selection_bytes(sparse, n, entries) + param_row_bytes(sparse, d, entries)};
  if (grad) c += Cost{2.0 * entries + 5.0 * n, 4.0 * (d + 1.0)};
  return c;
}

/// KernelBackend::softmax over n rows holding N stored entries of d columns, k classes.
inline Cost softmax(bool sparse, double n, double entries, double d, double k, bool grad) {
  Cost c{2.0 * k * entries + k * n + n * (3.0 * k + k * kTranscendentalFlops + kTranscendentalFlops + 2.0),
         selection_bytes(sparse, n, entries) + k * param_row_bytes(sparse, d, entries)};
  if (grad) c += Cost{2.0 * k * entries + k * n + n * (3.0 * k + 1.0), 4.0 * k * (d + 1.0)};
  return c;
}

/// KernelBackend::axpy: 2n flops, 12n bytes (read acc and g, write acc).
inline Cost axpy(double n) { return Cost{2.0 * n, 12.0 * n}; }
/// KernelBackend::sgd_update: 2n flops, 12n bytes (read w and g, write w).
inline Cost sgd(double n) { return Cost{2.0 * n, 12.0 * n}; }
/// KernelBackend::momentum_update: 4n flops, 20n bytes (read w, v, g; write w, v).
inline Cost momentum(double n) { return Cost{4.0 * n, 20.0 * n}; }
/// KernelBackend::adagrad_update: 8n flops, 20n bytes.
inline Cost adagrad(double n) { return Cost{8.0 * n, 20.0 * n}; }
/// KernelBackend::adam_update: 15n flops, 28n bytes.
inline Cost adam(double n) { return Cost{15.0 * n, 28.0 * n}; }

/// KernelBackend::gemm: 2mnk flops, 4(mk + kn + mn) bytes, plus 2mn flops and 4mn bytes when C
/// is read (beta != 0).
inline Cost gemm(double m, double n, double k, bool reads_c) {
  Cost c{2.0 * m * n * k, 4.0 * (m * k + k * n + m * n)};
  if (reads_c) c += Cost{2.0 * m * n, 4.0 * m * n};
  return c;
}

/// KernelBackend::gather_rows of n rows (N stored entries) of d columns.
inline Cost gather_rows(bool sparse, double n, double entries, double d) {
  const double read = sparse ? 16.0 * n + 8.0 * entries : 4.0 * entries;
  return Cost{0.0, 4.0 * n * d + 4.0 * n + read};
}

/// KernelBackend::bias_activation on a rows x cols matrix.
inline Cost bias_activation(double rows, double cols, bool relu) {
  const double e = rows * cols;
  return Cost{(relu ? 2.0 : 1.0) * e, 8.0 * e + 4.0 * cols};
}

/// KernelBackend::relu_backward: n flops, 12n bytes.
inline Cost relu_backward(double n) { return Cost{n, 12.0 * n}; }

/// KernelBackend::column_sums of a rows x cols matrix.
inline Cost column_sums(double rows, double cols) {
  const double e = rows * cols;
  return Cost{e, 4.0 * e + 4.0 * cols};
}

/// KernelBackend::softmax_xent on rows x k logits, with or without writing dz.
inline Cost softmax_xent(double rows, double k, bool dz) {
  Cost c{rows * (k * (3.0 + kTranscendentalFlops) + kTranscendentalFlops + 2.0),
         4.0 * rows * k + 4.0 * rows};
  if (dz) c += Cost{3.0 * rows * k, 4.0 * rows * k};
  return c;
}

/// KernelBackend::matrix_factorization: `count` ratings over a table of n_rows rows of
/// 1 + rank floats, with or without the gradient.
inline Cost matrix_factorization(double count, double n_rows, double rank, bool grad) {
  const double w = rank + 1.0;
  const double touched = std::min(n_rows, 2.0 * count);
  Cost c{count * (2.0 * rank + 6.0), 12.0 * count + 4.0 * w * touched};
  if (grad) c += Cost{count * (8.0 * rank + 10.0), 4.0 * w * n_rows};
  return c;
}

}  // namespace pstwin::cost
