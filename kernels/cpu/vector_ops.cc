// Element-wise vector kernels (axpy and the server-side optimizer steps), and the shared helpers
// that count a row selection's work.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/cpu/cpu_kernels.h"

namespace pstwin::cpu {

double selected_entries(const FeatureView& x, RowSelection sel) {
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

double selection_bytes(const FeatureView& x, RowSelection sel, double entries) {
  const double rows = static_cast<double>(sel.count);
  const double features = x.sparse ? 16.0 * rows + 8.0 * entries : 4.0 * entries;
  return 8.0 * rows + features;  // + 4 B row index and 4 B label per row
}

double param_row_bytes(const FeatureView& x, double entries) {
  const double d = static_cast<double>(x.cols());
  return 4.0 * ((x.sparse ? std::min(d, entries) : d) + 1.0);
}

Cost axpy(float* acc, const float* g, std::size_t n, float scale) {
  if (overlap(acc, g, n)) {
    for (std::size_t i = 0; i < n; ++i) acc[i] += scale * g[i];
  } else {
    scaled_add(acc, g, scale, n);
  }
  const double nn = static_cast<double>(n);
  return Cost{2.0 * nn, 12.0 * nn};
}

Cost sgd_update(float* w, const float* g, std::size_t n, float lr) {
  // w - lr*g and w + (-lr)*g round identically, so scaled_add computes exactly w[i] -= lr * g[i].
  if (overlap(w, g, n)) {
    for (std::size_t i = 0; i < n; ++i) w[i] -= lr * g[i];
  } else {
    scaled_add(w, g, -lr, n);
  }
  const double nn = static_cast<double>(n);
  return Cost{2.0 * nn, 12.0 * nn};
}

namespace {

/// The momentum step on non-overlapping buffers, eight at a time (see scaled_add).
void momentum_step(float* __restrict w, float* __restrict v, const float* __restrict g,
                   std::size_t n, float lr, float mu) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (std::size_t l = 0; l < 8; ++l) {
      v[i + l] = mu * v[i + l] + g[i + l];
      w[i + l] -= lr * v[i + l];
    }
  }
  for (; i < n; ++i) {
    v[i] = mu * v[i] + g[i];
    w[i] -= lr * v[i];
  }
}

}  // namespace

Cost momentum_update(float* w, float* v, const float* g, std::size_t n, float lr, float mu) {
  if (overlap(w, v, n) || overlap(w, g, n) || overlap(v, g, n)) {
    for (std::size_t i = 0; i < n; ++i) {
      v[i] = mu * v[i] + g[i];
      w[i] -= lr * v[i];
    }
  } else {
    momentum_step(w, v, g, n, lr, mu);
  }
  const double nn = static_cast<double>(n);
  return Cost{4.0 * nn, 20.0 * nn};
}

}  // namespace pstwin::cpu
