// Multinomial (softmax) regression over CSR or dense rows (KernelBackend::softmax).
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/cost_formulas.h"
#include "kernels/cpu/cpu_kernels.h"

namespace pstwin::cpu {

Cost softmax(const FeatureView& x, const std::int32_t* labels, std::size_t k, RowSelection sel,
             const float* params, float* grad, LossStats* stats, std::vector<float>& scratch) {
  if (k == 0) throw std::invalid_argument("softmax: the number of classes k must be at least 1");
  const std::size_t d = x.cols();
  const std::size_t stride = d + 1;  // one class's weights then its bias
  const std::size_t n = sel.count;
  const double entries = cost::selected_entries(x, sel);  // validates the row indices
  if (grad != nullptr) std::fill(grad, grad + k * stride, 0.0f);
  const float inv_n = n > 0 ? 1.0f / static_cast<float>(n) : 0.0f;
  scratch.resize(2 * k);
  float* z = scratch.data();  // logits of the current row
  float* r = z + k;           // exp(z_c - max), then the scaled residuals

  double loss_sum = 0.0;
  std::uint64_t correct = 0;
  for (std::size_t s = 0; s < n; ++s) {
    const std::size_t row = sel.rows[s];
    const std::int32_t label = labels[row];
    if (label < 0 || static_cast<std::size_t>(label) >= k) {
      throw std::invalid_argument("softmax: label " + std::to_string(label) + " of row " +
                                  std::to_string(row) + " is outside [0, " + std::to_string(k) +
                                  ")");
    }
    std::uint64_t begin = 0, end = 0;
    const float* xr = nullptr;
    if (x.sparse) {
      begin = x.csr.row_ptr[row];
      end = x.csr.row_ptr[row + 1];
      for (std::size_t c = 0; c < k; ++c) {
        const float* w = params + c * stride;
        float acc = 0.0f;
        for (std::uint64_t e = begin; e < end; ++e) acc += x.csr.values[e] * w[x.csr.col_idx[e]];
        z[c] = acc + w[d];
      }
    } else {
      xr = x.dense.values + row * d;
      for (std::size_t c = 0; c < k; ++c) z[c] = dot(xr, params + c * stride, d) + params[c * stride + d];
    }

    // Max subtraction keeps every exp in (0, 1]; the first maximum is the prediction.
    std::size_t argmax = 0;
    float zmax = z[0];
    for (std::size_t c = 1; c < k; ++c) {
      if (z[c] > zmax) {
        zmax = z[c];
        argmax = c;
      }
    }
    double sum = 0.0;
    for (std::size_t c = 0; c < k; ++c) {
      const double e = std::exp(static_cast<double>(z[c]) - zmax);
      r[c] = static_cast<float>(e);
      sum += e;  // >= 1, since the max term is exp(0)
    }
    loss_sum += std::log(sum) - (static_cast<double>(z[label]) - zmax);
    if (argmax == static_cast<std::size_t>(label)) ++correct;

    if (grad == nullptr) continue;
    const double inv_sum = 1.0 / sum;
    for (std::size_t c = 0; c < k; ++c) {
      const double p = r[c] * inv_sum;
      r[c] = static_cast<float>(p - (c == static_cast<std::size_t>(label) ? 1.0 : 0.0)) * inv_n;
    }
    for (std::size_t c = 0; c < k; ++c) {
      float* g = grad + c * stride;
      const float rc = r[c];
      if (x.sparse) {
        for (std::uint64_t e = begin; e < end; ++e) g[x.csr.col_idx[e]] += rc * x.csr.values[e];
      } else {
        scaled_add(g, xr, rc, d);
      }
      g[d] += rc;
    }
  }
  if (stats != nullptr) {
    stats->loss_sum = loss_sum;
    stats->correct = correct;
    stats->count = n;
  }

  return cost::softmax(x.sparse, static_cast<double>(n), entries, static_cast<double>(d),
                       static_cast<double>(k), grad != nullptr);
}

}  // namespace pstwin::cpu
