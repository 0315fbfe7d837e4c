// CudaBackend: the KernelBackend on a GPU. Each call copies its host arguments into device
// buffers (plain cudaMalloc, grown on demand and reused: a steady workload allocates nothing
// after its first calls), runs the device kernels of kernels/cuda/device_kernels.h on its own
// stream, copies the outputs back and waits for them. Costs are the CPU twin's formulas
// (kernels/cost_formulas.h): they price the operation, not the transfers.
//
// A row selection is gathered on the host into a compact matrix before it is sent, so only the
// selected rows cross PCIe. Calls whose host arrays overlap (which the roles never make) run on
// the CPU twin, whose sequential semantics they rely on.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/cost_formulas.h"
#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/device_info.h"
#include "kernels/cuda/device_kernels.h"
#include "kernels/cuda/staging.h"
#include "kernels/cuda_backend.h"

namespace pstwin {
namespace {

using cuda::DeviceStats;

/// True when [a, a + na) and [b, b + nb) (in floats) share an element.
bool overlap(const float* a, std::size_t na, const float* b, std::size_t nb) {
  return na > 0 && nb > 0 && a < b + nb && b < a + na;
}

void check_labels(const char* kernel, const std::int32_t* labels, RowSelection sel,
                  std::size_t count, std::size_t k) {
  for (std::size_t s = 0; s < count; ++s) {
    const std::size_t row = sel.rows != nullptr ? sel.rows[s] : s;
    const std::int32_t label = labels[row];
    if (label < 0 || static_cast<std::size_t>(label) >= k)
      throw std::invalid_argument(std::string(kernel) + ": label " + std::to_string(label) +
                                  " of row " + std::to_string(row) + " is outside [0, " +
                                  std::to_string(k) + ")");
  }
}

void check_ld(const char* name, std::size_t ld, std::size_t row_length, std::size_t rows) {
  if (rows > 0 && ld < row_length)
    throw std::invalid_argument(std::string("gemm: leading dimension ") + name + " = " +
                                std::to_string(ld) + " is less than the row length " +
                                std::to_string(row_length));
}

void set_stats(LossStats* stats, const DeviceStats& d, std::size_t count) {
  if (stats == nullptr) return;
  stats->loss_sum = d.loss_sum;
  stats->correct = d.correct;
  stats->count = count;
}

class CudaBackend final : public KernelBackend {
 public:
  explicit CudaBackend(int device) : io_(device), cpu_(make_cpu_backend()) {}

  std::string name() const override { return "cuda"; }

  Cost logistic(const FeatureView& x, const float* labels01, RowSelection sel, const float* params,
                float* grad, LossStats* stats) override {
    const double entries = cost::selected_entries(x, sel);  // validates the row indices
    const std::size_t d = x.cols(), n = sel.count;
    io_.begin();
    const cuda::DeviceFeatures rows = io_.rows(x, sel);
    const float* labels = io_.upload(io_.gather(labels01, sel), n);
    const float* p = io_.upload(params, d + 1);
    float* g = grad != nullptr ? io_.output<float>(d + 1) : nullptr;
    DeviceStats* st = io_.output<DeviceStats>(1);
    cuda::logistic(rows, labels, nullptr, n, static_cast<std::size_t>(entries), p, g, st,
                   scratch_, io_.stream());
    if (g != nullptr) io_.download(grad, g, d + 1);
    set_stats(stats, io_.finish_stats(st), n);
    return cost::logistic(x.sparse, static_cast<double>(n), entries, static_cast<double>(d),
                          grad != nullptr);
  }

  Cost softmax(const FeatureView& x, const std::int32_t* labels, std::size_t k, RowSelection sel,
               const float* params, float* grad, LossStats* stats) override {
    if (k == 0) throw std::invalid_argument("softmax: the number of classes k must be at least 1");
    const double entries = cost::selected_entries(x, sel);
    check_labels("softmax", labels, sel, sel.count, k);
    const std::size_t d = x.cols(), n = sel.count;
    io_.begin();
    const cuda::DeviceFeatures rows = io_.rows(x, sel);
    const std::int32_t* y = io_.upload(io_.gather(labels, sel), n);
    const float* p = io_.upload(params, k * (d + 1));
    float* g = grad != nullptr ? io_.output<float>(k * (d + 1)) : nullptr;
    DeviceStats* st = io_.output<DeviceStats>(1);
    cuda::softmax(rows, y, k, nullptr, n, static_cast<std::size_t>(entries), p, g, st, scratch_,
                  io_.stream());
    if (g != nullptr) io_.download(grad, g, k * (d + 1));
    set_stats(stats, io_.finish_stats(st), n);
    return cost::softmax(x.sparse, static_cast<double>(n), entries, static_cast<double>(d),
                         static_cast<double>(k), grad != nullptr);
  }

  Cost axpy(float* acc, const float* g, std::size_t n, float scale) override {
    if (overlap(acc, n, g, n)) return cpu_->axpy(acc, g, n, scale);
    io_.begin();
    float* a = io_.upload(acc, n);
    cuda::axpy(a, io_.upload(g, n), n, scale, io_.stream());
    io_.download(acc, a, n);
    io_.finish();
    return cost::axpy(static_cast<double>(n));
  }

  Cost sgd_update(float* w, const float* g, std::size_t n, float lr) override {
    if (overlap(w, n, g, n)) return cpu_->sgd_update(w, g, n, lr);
    io_.begin();
    float* dw = io_.upload(w, n);
    cuda::sgd_update(dw, io_.upload(g, n), n, lr, io_.stream());
    io_.download(w, dw, n);
    io_.finish();
    return cost::sgd(static_cast<double>(n));
  }

  Cost momentum_update(float* w, float* v, const float* g, std::size_t n, float lr,
                       float mu) override {
    if (overlap(w, n, v, n) || overlap(w, n, g, n) || overlap(v, n, g, n))
      return cpu_->momentum_update(w, v, g, n, lr, mu);
    io_.begin();
    float* dw = io_.upload(w, n);
    float* dv = io_.upload(v, n);
    cuda::momentum_update(dw, dv, io_.upload(g, n), n, lr, mu, io_.stream());
    io_.download(w, dw, n);
    io_.download(v, dv, n);
    io_.finish();
    return cost::momentum(static_cast<double>(n));
  }

  Cost adagrad_update(float* w, float* h, const float* g, std::size_t n, float lr, float eps,
                      float grad_scale) override {
    if (overlap(w, n, h, n) || overlap(w, n, g, n) || overlap(h, n, g, n))
      return cpu_->adagrad_update(w, h, g, n, lr, eps, grad_scale);
    io_.begin();
    float* dw = io_.upload(w, n);
    float* dh = io_.upload(h, n);
    cuda::adagrad_update(dw, dh, io_.upload(g, n), n, lr, eps, grad_scale, io_.stream());
    io_.download(w, dw, n);
    io_.download(h, dh, n);
    io_.finish();
    return cost::adagrad(static_cast<double>(n));
  }

  Cost adam_update(float* w, float* m, float* v, const float* g, std::size_t n, float lr,
                   float beta1, float beta2, float eps, std::uint64_t t,
                   float grad_scale) override {
    if (overlap(w, n, m, n) || overlap(w, n, v, n) || overlap(w, n, g, n) ||
        overlap(m, n, v, n) || overlap(m, n, g, n) || overlap(v, n, g, n))
      return cpu_->adam_update(w, m, v, g, n, lr, beta1, beta2, eps, t, grad_scale);
    io_.begin();
    float* dw = io_.upload(w, n);
    float* dm = io_.upload(m, n);
    float* dv = io_.upload(v, n);
    cuda::adam_update(dw, dm, dv, io_.upload(g, n), n, lr, beta1, beta2, eps, t, grad_scale,
                      io_.stream());
    io_.download(w, dw, n);
    io_.download(m, dm, n);
    io_.download(v, dv, n);
    io_.finish();
    return cost::adam(static_cast<double>(n));
  }

  Cost gemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k, float alpha,
            const float* a, std::size_t lda, const float* b, std::size_t ldb, float beta, float* c,
            std::size_t ldc) override {
    check_ld("lda", lda, trans_a ? m : k, trans_a ? k : m);
    check_ld("ldb", ldb, trans_b ? k : n, trans_b ? n : k);
    check_ld("ldc", ldc, n, m);
    const Cost result = cost::gemm(static_cast<double>(m), static_cast<double>(n),
                                   static_cast<double>(k), beta != 0.0f);
    if (m == 0 || n == 0) return result;
    // Operands travel packed (leading dimension = row length) whatever their host stride.
    const std::size_t a_rows = trans_a ? k : m, a_cols = trans_a ? m : k;
    const std::size_t b_rows = trans_b ? n : k, b_cols = trans_b ? k : n;
    io_.begin();
    const float* da = io_.upload_matrix(a, a_rows, a_cols, lda);
    const float* db = io_.upload_matrix(b, b_rows, b_cols, ldb);
    float* dc = beta != 0.0f ? io_.upload_matrix(c, m, n, ldc) : io_.output<float>(m * n);
    cuda::gemm(io_.blas(), trans_a, trans_b, m, n, k, alpha, da, std::max<std::size_t>(a_cols, 1),
               db, std::max<std::size_t>(b_cols, 1), beta, dc, n, io_.stream());
    io_.download_matrix(c, dc, m, n, ldc);
    io_.finish();
    return result;
  }

  Cost gather_rows(const FeatureView& x, RowSelection sel, float* out) override {
    const double entries = cost::selected_entries(x, sel);
    const std::size_t d = x.cols(), n = sel.count;
    io_.begin();
    const cuda::DeviceFeatures rows = io_.rows(x, sel);
    float* o = io_.output<float>(n * d);
    cuda::gather_rows(rows, nullptr, n, o, io_.stream());
    io_.download(out, o, n * d);
    io_.finish();
    return cost::gather_rows(x.sparse, static_cast<double>(n), entries, static_cast<double>(d));
  }

  Cost bias_activation(float* z, const float* bias, std::size_t rows, std::size_t cols,
                       bool relu) override {
    if (overlap(z, rows * cols, bias, cols)) return cpu_->bias_activation(z, bias, rows, cols, relu);
    io_.begin();
    float* dz = io_.upload(z, rows * cols);
    cuda::bias_activation(dz, io_.upload(bias, cols), rows, cols, relu, io_.stream());
    io_.download(z, dz, rows * cols);
    io_.finish();
    return cost::bias_activation(static_cast<double>(rows), static_cast<double>(cols), relu);
  }

  Cost relu_backward(float* grad, const float* activation, std::size_t n) override {
    if (overlap(grad, n, activation, n)) return cpu_->relu_backward(grad, activation, n);
    io_.begin();
    float* dg = io_.upload(grad, n);
    cuda::relu_backward(dg, io_.upload(activation, n), n, io_.stream());
    io_.download(grad, dg, n);
    io_.finish();
    return cost::relu_backward(static_cast<double>(n));
  }

  Cost column_sums(const float* d, std::size_t rows, std::size_t cols, float* out) override {
    io_.begin();
    float* o = io_.output<float>(cols);
    cuda::column_sums(io_.upload(d, rows * cols), rows, cols, o, io_.stream());
    io_.download(out, o, cols);
    io_.finish();
    return cost::column_sums(static_cast<double>(rows), static_cast<double>(cols));
  }

  Cost softmax_xent(const float* z, const std::int32_t* labels, std::size_t rows, std::size_t k,
                    float* dz, float grad_scale, LossStats* stats) override {
    if (k == 0) throw std::invalid_argument("softmax_xent: the number of classes k must be at least 1");
    check_labels("softmax_xent", labels, RowSelection{nullptr, rows}, rows, k);
    io_.begin();
    // dz may be z itself: the device kernel supports that, so one buffer serves both then.
    float* dzv = io_.upload(z, rows * k);
    float* ddz = nullptr;
    if (dz != nullptr) ddz = dz == z ? dzv : io_.output<float>(rows * k);
    DeviceStats* st = io_.output<DeviceStats>(1);
    cuda::softmax_xent(dzv, io_.upload(labels, rows), rows, k, ddz, grad_scale, st, scratch_,
                       io_.stream());
    if (ddz != nullptr) io_.download(dz, ddz, rows * k);
    set_stats(stats, io_.finish_stats(st), rows);
    return cost::softmax_xent(static_cast<double>(rows), static_cast<double>(k), dz != nullptr);
  }

  Cost matrix_factorization(const float* rows, std::size_t n_rows, std::size_t rank,
                            const MfBatch& batch, float mean, float l2, float* grad,
                            LossStats* stats) override {
    const std::size_t n = batch.count, w = rank + 1;
    for (std::size_t j = 0; j < n; ++j) {
      if (batch.user_row[j] >= n_rows || batch.item_row[j] >= n_rows)
        throw std::out_of_range("matrix_factorization: rating " + std::to_string(j) +
                                " reads row " +
                                std::to_string(std::max(batch.user_row[j], batch.item_row[j])) +
                                " of a table of " + std::to_string(n_rows));
    }
    io_.begin();
    const float* table = io_.upload(rows, n_rows * w);
    const std::uint32_t* users = io_.upload(batch.user_row, n);
    const std::uint32_t* items = io_.upload(batch.item_row, n);
    const float* ratings = io_.upload(batch.rating, n);
    float* g = grad != nullptr ? io_.output<float>(n_rows * w) : nullptr;
    DeviceStats* st = io_.output<DeviceStats>(1);
    cuda::matrix_factorization(table, n_rows, rank, users, items, ratings, n, mean, l2, g, st,
                               scratch_, io_.stream());
    if (g != nullptr) io_.download(grad, g, n_rows * w);
    DeviceStats figures = io_.finish_stats(st);
    figures.correct = 0;
    set_stats(stats, figures, n);
    return cost::matrix_factorization(static_cast<double>(n), static_cast<double>(n_rows),
                                      static_cast<double>(rank), grad != nullptr);
  }

 private:
  cuda::Staging io_;                   // the device, its stream, cuBLAS and the staged arrays
  cuda::Workspace scratch_;            // the device kernels' own temporaries
  std::unique_ptr<KernelBackend> cpu_;  // for calls whose host arrays overlap
};

}  // namespace

std::unique_ptr<KernelBackend> make_cuda_backend(int device) {
  const std::string problem = cuda::device_problem(device);
  if (!problem.empty()) throw std::runtime_error(problem);
  return std::make_unique<CudaBackend>(device);
}

}  // namespace pstwin
