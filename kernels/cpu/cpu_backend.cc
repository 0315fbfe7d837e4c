// CpuBackend: the single-threaded CPU KernelBackend, forwarding to the kernels in kernels/cpu/.
#include <memory>
#include <vector>

#include "kernels/backend.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/dense_kernels.h"
#include "kernels/cpu/mf_kernels.h"

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

  Cost adagrad_update(float* w, float* h, const float* g, std::size_t n, float lr, float eps,
                      float grad_scale) override {
    return cpu::adagrad_update(w, h, g, n, lr, eps, grad_scale);
  }

  Cost adam_update(float* w, float* m, float* v, const float* g, std::size_t n, float lr,
                   float beta1, float beta2, float eps, std::uint64_t t,
                   float grad_scale) override {
    return cpu::adam_update(w, m, v, g, n, lr, beta1, beta2, eps, t, grad_scale);
  }

  Cost gemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k, float alpha,
            const float* a, std::size_t lda, const float* b, std::size_t ldb, float beta, float* c,
            std::size_t ldc) override {
    return cpu::gemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }

  Cost gather_rows(const FeatureView& x, RowSelection sel, float* out) override {
    return cpu::gather_rows(x, sel, out);
  }

  Cost bias_activation(float* z, const float* bias, std::size_t rows, std::size_t cols,
                       bool relu) override {
    return cpu::bias_activation(z, bias, rows, cols, relu);
  }

  Cost relu_backward(float* grad, const float* activation, std::size_t n) override {
    return cpu::relu_backward(grad, activation, n);
  }

  Cost column_sums(const float* d, std::size_t rows, std::size_t cols, float* out) override {
    return cpu::column_sums(d, rows, cols, out);
  }

  Cost softmax_xent(const float* z, const std::int32_t* labels, std::size_t rows, std::size_t k,
                    float* dz, float grad_scale, LossStats* stats) override {
    return cpu::softmax_xent(z, labels, rows, k, dz, grad_scale, stats);
  }

  Cost matrix_factorization(const float* rows, std::size_t n_rows, std::size_t rank,
                            const MfBatch& batch, float mean, float l2, float* grad,
                            LossStats* stats) override {
    return cpu::matrix_factorization(rows, n_rows, rank, batch, mean, l2, grad, stats);
  }

 private:
  std::vector<float> scratch_;  // softmax: per-row logits and residuals (2k floats)
};

}  // namespace

std::unique_ptr<KernelBackend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace pstwin
