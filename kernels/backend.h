// KernelBackend: every numeric operation pstwin's roles perform, behind one interface, so that a
// CUDA implementation slots in beside the CPU one (DESIGN.md, rule 3). Every call returns the Cost
// of what it did, so the simulation can price it with the roofline model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "kernels/cost.h"
#include "kernels/matrix.h"

namespace pstwin {

/// Numeric kernels. Pointers are host pointers; implementations may stage them on a device.
/// Implementations are not thread-safe; use one instance per role.
class KernelBackend {
 public:
  virtual ~KernelBackend() = default;

  /// Short name, e.g. "cpu".
  virtual std::string name() const = 0;

  /// Binary logistic regression, forward and (optionally) backward, over the selected rows of x.
  /// Parameters: params[0..d) are weights, params[d] the bias, with d = x.cols().
  /// labels01[i] in {0, 1} is the label of row i of x (indexed by the full matrix row).
  /// Loss per row: log(1 + exp(-y z)) with y = 2*label-1 and z = x_i . w + b, computed stably.
  /// If grad is non-null it receives the MEAN gradient over the selection (size d+1, overwritten).
  /// stats (non-null) receives the loss sum, correct predictions (z >= 0 predicts 1) and count.
  virtual Cost logistic(const FeatureView& x, const float* labels01, RowSelection sel,
                        const float* params, float* grad, LossStats* stats) = 0;

  /// Multinomial (softmax) regression, forward and (optionally) backward.
  /// Parameters: a k x (d+1) row-major block; row c holds class c's d weights then its bias.
  /// labels[i] in [0, k) is row i's class. Loss per row: -log softmax(z)_label, with
  /// z_c = x_i . W_c + b_c computed with the max-subtraction trick.
  /// If grad is non-null it receives the MEAN gradient (size k*(d+1), overwritten).
  /// stats receives loss sum, correct predictions (argmax z, lowest index on ties), count.
  virtual Cost softmax(const FeatureView& x, const std::int32_t* labels, std::size_t k,
                       RowSelection sel, const float* params, float* grad, LossStats* stats) = 0;

  /// acc[i] += scale * g[i] for i < n (gradient aggregation and L2 terms).
  virtual Cost axpy(float* acc, const float* g, std::size_t n, float scale) = 0;

  /// Plain SGD: w[i] -= lr * g[i].
  virtual Cost sgd_update(float* w, const float* g, std::size_t n, float lr) = 0;

  /// Heavy-ball momentum (Polyak 1964; as in Sutskever et al. 2013 without Nesterov):
  /// v[i] = mu * v[i] + g[i]; w[i] -= lr * v[i].
  virtual Cost momentum_update(float* w, float* v, const float* g, std::size_t n, float lr,
                               float mu) = 0;
};

/// The CPU implementation (single-threaded, deterministic summation order).
std::unique_ptr<KernelBackend> make_cpu_backend();

}  // namespace pstwin
