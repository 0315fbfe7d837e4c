// Fuzz target: parse_libsvm (runtime/data/dataset.h) on arbitrary text, as read_libsvm reads a
// file. Whatever it accepts must be a well-formed CSR dataset the kernels can index safely.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_support.h"
#include "runtime/data/dataset.h"
#include "runtime/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pstwin::Dataset ds;
  try {
    ds = pstwin::parse_libsvm(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.svm");
  } catch (const pstwin::DataError&) {
    return 0;  // rejected with file:line and a reason
  }
  using pstwin::fuzz::require;
  require(ds.sparse && ds.rows > 0, "a dataset has rows");
  require(ds.row_ptr.size() == ds.rows + 1 && ds.labels.size() == ds.rows &&
              ds.labels01.size() == ds.rows,
          "one row_ptr per row plus one, one label per row");
  require(ds.row_ptr.front() == 0 && ds.row_ptr.back() == ds.values.size() &&
              ds.col_idx.size() == ds.values.size(),
          "row_ptr spans the stored values");
  for (std::size_t r = 0; r < ds.rows; ++r) {
    require(ds.row_ptr[r] <= ds.row_ptr[r + 1], "row_ptr is non-decreasing");
    for (std::uint64_t k = ds.row_ptr[r]; k < ds.row_ptr[r + 1]; ++k) {
      require(ds.col_idx[k] < ds.cols, "every column is below cols");
      require(k == ds.row_ptr[r] || ds.col_idx[k] > ds.col_idx[k - 1], "columns increase in a row");
    }
    require(ds.labels[r] >= 0 && static_cast<std::size_t>(ds.labels[r]) < ds.num_classes,
            "every label is a class");
  }
  return 0;
}
