// CpuBackend: the single-threaded CPU KernelBackend, forwarding to the kernels in kernels/cpu/.
#include <memory>
#include <vector>

#include "kernels/backend.h"
#include "kernels/cpu/cpu_kernels.h"

namespace pstwin {
namespace {

/// KernelBackend on the host CPU. Deterministic: the same inputs give bit-identical outputs.
/// Not thread-safe (it owns a scratch buffer); use one instance per role.
class CpuBackend final : public KernelBackend {
 public:
  std::string name() const override { return "cpu"; }

  Cost logistic(const FeatureView& x, const float* labels01, RowSelection sel, const float* params,
                float* grad, LossStats* stats) override {
    return cpu::logistic(x, labels01, sel, params, grad, stats);
  }

  Cost softmax(const FeatureView& x, const std::int32_t* labels, std::size_t k, RowSelection sel,
               const float* params, float* grad, LossStats* stats) override {
    return cpu::softmax(x, labels, k, sel, params, grad, stats, scratch_);
  }

  Cost axpy(float* acc, const float* g, std::size_t n, float scale) override {
    return cpu::axpy(acc, g, n, scale);
  }

  Cost sgd_update(float* w, const float* g, std::size_t n, float lr) override {
    return cpu::sgd_update(w, g, n, lr);
  }

  Cost momentum_update(float* w, float* v, const float* g, std::size_t n, float lr,
                       float mu) override {
    return cpu::momentum_update(w, v, g, n, lr, mu);
  }

 private:
  std::vector<float> scratch_;  // softmax: per-row logits and residuals (2k floats)
};

}  // namespace

std::unique_ptr<KernelBackend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace pstwin
