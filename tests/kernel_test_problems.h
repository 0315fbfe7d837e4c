// Small random classification problems for the kernel and model tests, in CSR and dense layouts.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/matrix.h"

namespace pstwin::testing {

/// A rows x cols feature matrix stored both ways (the same numbers), with class labels in [0, k)
/// and their binary floats. Row 2 (when it exists) has no stored entries.
struct Problem {
  std::size_t rows = 0, cols = 0, classes = 0;
  std::vector<std::uint64_t> row_ptr;
  std::vector<std::uint32_t> col_idx;
  std::vector<float> values;   // CSR values
  std::vector<float> dense;    // the same matrix, row-major
  std::vector<std::int32_t> labels;
  std::vector<float> labels01;  // labels % 2, as floats

  FeatureView csr_view() const {
    FeatureView v;
    v.sparse = true;
    v.csr = CsrView{rows, cols, row_ptr.data(), col_idx.data(), values.data()};
    return v;
  }
  FeatureView dense_view() const {
    FeatureView v;
    v.sparse = false;
    v.dense = DenseView{rows, cols, dense.data()};
    return v;
  }
  FeatureView view(bool sparse) const { return sparse ? csr_view() : dense_view(); }
};

/// About half the entries stored, values uniform in [-1.5, 1.5], labels uniform in [0, classes).
inline Problem random_problem(std::size_t rows, std::size_t cols, std::size_t classes,
                              std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> value(-1.5f, 1.5f);
  std::uniform_int_distribution<int> label(0, static_cast<int>(classes) - 1);
  Problem p;
  p.rows = rows;
  p.cols = cols;
  p.classes = classes;
  p.dense.assign(rows * cols, 0.0f);
  p.row_ptr.push_back(0);
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) {
      if (i == 2 || gen() % 2 == 0) continue;
      const float v = value(gen);
      p.col_idx.push_back(static_cast<std::uint32_t>(j));
      p.values.push_back(v);
      p.dense[i * cols + j] = v;
    }
    p.row_ptr.push_back(p.values.size());
    p.labels.push_back(label(gen));
    p.labels01.push_back(static_cast<float>(p.labels.back() % 2));
  }
  return p;
}

/// n floats, normal with standard deviation `scale`.
inline std::vector<float> random_vector(std::size_t n, float scale, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = normal(gen);
  return v;
}

/// True when a and b agree within rel * max(|a|, |b|) + abs.
inline bool close(double a, double b, double rel, double abs) {
  const double scale = std::max(std::fabs(a), std::fabs(b));
  return std::fabs(a - b) <= rel * scale + abs;
}

}  // namespace pstwin::testing
