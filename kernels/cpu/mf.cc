// Biased matrix factorisation over a mini-batch of ratings (KernelBackend::matrix_factorization).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/cost_formulas.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/mf_kernels.h"

namespace pstwin::cpu {

Cost matrix_factorization(const float* rows, std::size_t n_rows, std::size_t rank,
                          const MfBatch& batch, float mean, float l2, float* grad,
                          LossStats* stats) {
  const std::size_t width = rank + 1;
  const std::size_t n = batch.count;
  for (std::size_t j = 0; j < n; ++j) {
    if (batch.user_row[j] >= n_rows || batch.item_row[j] >= n_rows)
      throw std::out_of_range("matrix_factorization: rating " + std::to_string(j) + " reads row " +
                              std::to_string(std::max(batch.user_row[j], batch.item_row[j])) +
                              " of a table of " + std::to_string(n_rows));
  }
  if (grad != nullptr) std::fill(grad, grad + n_rows * width, 0.0f);
  // Both terms are pre-scaled by 1/n, so the accumulated sums are already means.
  const float inv_n = n > 0 ? 1.0f / static_cast<float>(n) : 0.0f;
  const float reg = 2.0f * l2 * inv_n;

  double loss_sum = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    const float* u = rows + static_cast<std::size_t>(batch.user_row[j]) * width;
    const float* i = rows + static_cast<std::size_t>(batch.item_row[j]) * width;
    const float pred = mean + u[0] + i[0] + dot(u + 1, i + 1, rank);
    const float e = batch.rating[j] - pred;
    loss_sum += static_cast<double>(e) * e;
    if (grad == nullptr) continue;
    // d(e^2)/d(r_hat) = -2e; d(r_hat)/d(b) = 1, d(r_hat)/d(p_u) = q_i, d(r_hat)/d(q_i) = p_u.
    const float s = -2.0f * e * inv_n;
    float* gu = grad + static_cast<std::size_t>(batch.user_row[j]) * width;
    float* gi = grad + static_cast<std::size_t>(batch.item_row[j]) * width;
    gu[0] += s + reg * u[0];
    gi[0] += s + reg * i[0];
    scaled_add(gu + 1, i + 1, s, rank);
    scaled_add(gu + 1, u + 1, reg, rank);
    scaled_add(gi + 1, u + 1, s, rank);
    scaled_add(gi + 1, i + 1, reg, rank);
  }
  if (stats != nullptr) {
    stats->loss_sum = loss_sum;
    stats->correct = 0;
    stats->count = n;
  }

  return cost::matrix_factorization(static_cast<double>(n), static_cast<double>(n_rows),
                                    static_cast<double>(rank), grad != nullptr);
}

}  // namespace pstwin::cpu
