// Binary logistic regression over CSR or dense rows (KernelBackend::logistic).
#include <algorithm>
#include <cmath>

#include "kernels/cost_formulas.h"
#include "kernels/cpu/cpu_kernels.h"

namespace pstwin::cpu {

Cost logistic(const FeatureView& x, const float* labels01, RowSelection sel, const float* params,
              float* grad, LossStats* stats) {
  const std::size_t d = x.cols();
  const std::size_t n = sel.count;
  const double entries = cost::selected_entries(x, sel);  // validates the row indices
  if (grad != nullptr) std::fill(grad, grad + d + 1, 0.0f);
  // Each row's residual is pre-scaled by 1/n, so the accumulated sum is already the mean.
  const float inv_n = n > 0 ? 1.0f / static_cast<float>(n) : 0.0f;
  const float bias = params[d];

  double loss_sum = 0.0;
  std::uint64_t correct = 0;
  for (std::size_t s = 0; s < n; ++s) {
    const std::size_t row = sel.rows[s];
    std::uint64_t begin = 0, end = 0;
    const float* xr = nullptr;
    float z = 0.0f;
    if (x.sparse) {
      begin = x.csr.row_ptr[row];
      end = x.csr.row_ptr[row + 1];
      for (std::uint64_t e = begin; e < end; ++e) z += x.csr.values[e] * params[x.csr.col_idx[e]];
    } else {
      xr = x.dense.values + row * d;
      z = dot(xr, params, d);
    }
    z += bias;

    const float label = labels01[row];
    const bool positive = label > 0.5f;
    const double zd = z;
    const double margin = positive ? zd : -zd;        // y * z with y = 2*label - 1
    const double e = std::exp(-std::fabs(zd));         // in (0, 1]: never overflows
    loss_sum += std::max(-margin, 0.0) + std::log1p(e);  // log(1 + exp(-margin)), stably
    if ((z >= 0.0f) == positive) ++correct;

    if (grad == nullptr) continue;
    const double p = zd >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);  // sigmoid(z), stably
    const float r = static_cast<float>(p - label) * inv_n;
    if (x.sparse) {
      for (std::uint64_t e2 = begin; e2 < end; ++e2) grad[x.csr.col_idx[e2]] += r * x.csr.values[e2];
    } else {
      scaled_add(grad, xr, r, d);
    }
    grad[d] += r;
  }
  if (stats != nullptr) {
    stats->loss_sum = loss_sum;
    stats->correct = correct;
    stats->count = n;
  }

  return cost::logistic(x.sparse, static_cast<double>(n), entries, static_cast<double>(d),
                        grad != nullptr);
}

}  // namespace pstwin::cpu
