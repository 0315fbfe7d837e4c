// The element-wise and row-wise MLP kernels on the CPU: gathering a batch into a dense matrix,
// bias plus ReLU, ReLU backward, column sums (bias gradients) and softmax cross-entropy on logits.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/cost_formulas.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/dense_kernels.h"

namespace pstwin::cpu {

Cost gather_rows(const FeatureView& x, RowSelection sel, float* out) {
  const std::size_t d = x.cols();
  const std::size_t n = sel.count;
  const double entries = cost::selected_entries(x, sel);  // validates the row indices
  for (std::size_t s = 0; s < n; ++s) {
    const std::size_t row = sel.rows[s];
    float* o = out + s * d;
    if (x.sparse) {
      std::fill(o, o + d, 0.0f);
      for (std::uint64_t e = x.csr.row_ptr[row]; e < x.csr.row_ptr[row + 1]; ++e)
        o[x.csr.col_idx[e]] = x.csr.values[e];
    } else {
      const float* xr = x.dense.values + row * d;
      std::copy(xr, xr + d, o);
    }
  }
  return cost::gather_rows(x.sparse, static_cast<double>(n), entries, static_cast<double>(d));
}

Cost bias_activation(float* z, const float* bias, std::size_t rows, std::size_t cols, bool relu) {
  for (std::size_t i = 0; i < rows; ++i) {
    float* __restrict zi = z + i * cols;
    if (relu) {
      for (std::size_t j = 0; j < cols; ++j) zi[j] = std::max(zi[j] + bias[j], 0.0f);
    } else {
      for (std::size_t j = 0; j < cols; ++j) zi[j] += bias[j];
    }
  }
  return cost::bias_activation(static_cast<double>(rows), static_cast<double>(cols), relu);
}

Cost relu_backward(float* grad, const float* activation, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (!(activation[i] > 0.0f)) grad[i] = 0.0f;
  return cost::relu_backward(static_cast<double>(n));
}

Cost column_sums(const float* d, std::size_t rows, std::size_t cols, float* out) {
  std::fill(out, out + cols, 0.0f);
  for (std::size_t i = 0; i < rows; ++i) {
    const float* __restrict di = d + i * cols;
    float* __restrict o = out;
    for (std::size_t j = 0; j < cols; ++j) o[j] += di[j];
  }
  return cost::column_sums(static_cast<double>(rows), static_cast<double>(cols));
}

Cost softmax_xent(const float* z, const std::int32_t* labels, std::size_t rows, std::size_t k,
                  float* dz, float grad_scale, LossStats* stats) {
  if (k == 0) throw std::invalid_argument("softmax_xent: the number of classes k must be at least 1");
  double loss_sum = 0.0;
  std::uint64_t correct = 0;
  for (std::size_t i = 0; i < rows; ++i) {
    const float* zi = z + i * k;
    const std::int32_t label = labels[i];
    if (label < 0 || static_cast<std::size_t>(label) >= k) {
      throw std::invalid_argument("softmax_xent: label " + std::to_string(label) + " of row " +
                                  std::to_string(i) + " is outside [0, " + std::to_string(k) + ")");
    }
    std::size_t argmax = 0;
    float zmax = zi[0];
    for (std::size_t c = 1; c < k; ++c) {
      if (zi[c] > zmax) {
        zmax = zi[c];
        argmax = c;
      }
    }
    if (argmax == static_cast<std::size_t>(label)) ++correct;
    // Read the label's logit before dz (which may be z) is overwritten with the exponentials.
    const double z_label = zi[label];
    double sum = 0.0;
    for (std::size_t c = 0; c < k; ++c) {
      const double e = std::exp(static_cast<double>(zi[c]) - zmax);
      sum += e;  // >= 1: the max term is exp(0)
      if (dz != nullptr) dz[i * k + c] = static_cast<float>(e);
    }
    loss_sum += std::log(sum) - (z_label - zmax);
    if (dz == nullptr) continue;
    float* di = dz + i * k;
    const double inv_sum = 1.0 / sum;
    for (std::size_t c = 0; c < k; ++c) {
      const double p = di[c] * inv_sum - (c == static_cast<std::size_t>(label) ? 1.0 : 0.0);
      di[c] = static_cast<float>(p) * grad_scale;
    }
  }
  if (stats != nullptr) {
    stats->loss_sum = loss_sum;
    stats->correct = correct;
    stats->count = rows;
  }
  return cost::softmax_xent(static_cast<double>(rows), static_cast<double>(k), dz != nullptr);
}

}  // namespace pstwin::cpu
