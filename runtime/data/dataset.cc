// Dataset::view: the kernels' window onto a dataset's features.
#include "runtime/data/dataset.h"

#include <algorithm>
#include <string>

#include "runtime/errors.h"

namespace pstwin {

FeatureView Dataset::view(std::size_t cols_override) const {
  FeatureView v;
  v.sparse = sparse;
  if (sparse) {
    v.csr.rows = rows;
    // Widening is safe for CSR: the extra columns simply hold no entries. Narrowing is not (stored
    // indices could exceed it), so a smaller override is ignored.
    v.csr.cols = std::max(cols, cols_override);
    v.csr.row_ptr = row_ptr.data();
    v.csr.col_idx = col_idx.data();
    v.csr.values = values.data();
  } else {
    // A dense row's stride is `cols`; reporting more columns would make the kernels read the next
    // row's pixels, so a wider model cannot be served without a copy. Say so instead.
    if (cols_override > cols) {
      throw DataError(source, 0,
                      "dense features have " + std::to_string(cols) +
                          " columns; the model expects " + std::to_string(cols_override));
    }
    v.dense.rows = rows;
    v.dense.cols = cols;
    v.dense.values = values.data();
  }
  return v;
}

}  // namespace pstwin
