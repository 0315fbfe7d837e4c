// Non-owning views of feature matrices as the kernels read them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pstwin {

/// Compressed sparse rows. Row i holds entries [row_ptr[i], row_ptr[i+1]) of col_idx/values.
/// Column indices are 0-based and < cols. Shapes: row_ptr[rows+1], col_idx[nnz], values[nnz].
struct CsrView {
  std::size_t rows = 0;
  std::size_t cols = 0;
  const std::uint64_t* row_ptr = nullptr;
  const std::uint32_t* col_idx = nullptr;
  const float* values = nullptr;
};

/// Dense row-major matrix: element (i, j) is values[i * cols + j].
struct DenseView {
  std::size_t rows = 0;
  std::size_t cols = 0;
  const float* values = nullptr;
};

/// A feature matrix in either layout; exactly one of the two views is used, chosen by `sparse`.
struct FeatureView {
  bool sparse = true;
  CsrView csr;
  DenseView dense;
  std::size_t rows() const { return sparse ? csr.rows : dense.rows; }
  std::size_t cols() const { return sparse ? csr.cols : dense.cols; }
};

/// A subset of a matrix's rows, by index: rows[0..count). Indices must be < the matrix's rows.
struct RowSelection {
  const std::uint32_t* rows = nullptr;
  std::size_t count = 0;
};

/// What a forward pass over a row selection measured.
struct LossStats {
  double loss_sum = 0.0;       ///< sum of per-row losses (nats), not divided by count
  std::uint64_t correct = 0;   ///< rows whose prediction matched the label
  std::uint64_t count = 0;     ///< rows seen
};

/// A mini-batch of ratings for KernelBackend::matrix_factorization, as indices into a table of
/// parameter rows. Shapes: user_row[count], item_row[count], rating[count].
struct MfBatch {
  std::size_t count = 0;                    ///< ratings in the batch
  const std::uint32_t* user_row = nullptr;  ///< rating j's user: a row of the parameter table
  const std::uint32_t* item_row = nullptr;  ///< rating j's item: a row of the parameter table
  const float* rating = nullptr;            ///< rating j's observed value
};

}  // namespace pstwin
