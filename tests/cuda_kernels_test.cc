// Every CUDA kernel against its CPU twin (DESIGN.md, rule 3), through the KernelBackend
// interface, on random inputs of awkward sizes: n = 0, a single element or row, sizes that are
// not multiples of the block (256) or of the float4 width, CSR rows with no entries, a selection
// that repeats a row. (Misaligned device arrays: cuda_select_backend_test.cc.) Without a GPU, or in a build without CUDA, every test
// here reports SKIPPED with the reason; none passes without running.
//
// Tolerances (the kernels' documented differences, kernels/cuda/device_kernels.h):
//   element-wise kernels, gather, bias+ReLU, ReLU backward, column sums: designed to be
//     bit-identical (no fused multiply-adds, the CPU's order); checked to 2 ulp so that a CPU
//     build that fuses (-march with FMA) still passes;
//   gemm: |gpu - cpu| <= 5e-5 * sum_p |alpha a_ip b_pj| + 1e-6 |c_ij| + 1e-30 (cuBLAS sums
//     in its own order);
//   logistic, softmax, softmax_xent, matrix factorisation: loss within 1e-5 relative; every
//     gradient element within 1e-4 of the gradient's largest magnitude (warp reductions sum the
//     dot products in another order, expf in float); correct counts may differ by 1 (a logit
//     within rounding of a tie).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/backend.h"
#include "kernels/cuda_backend.h"
#include "tests/kernel_test_problems.h"

namespace pstwin {
namespace {

using testing::random_problem;
using testing::random_vector;

/// Within `ulps` units in the last place (NaNs equal each other).
::testing::AssertionResult within_ulps(float a, float b, int ulps) {
  if ((std::isnan(a) && std::isnan(b)) || a == b) return ::testing::AssertionSuccess();
  std::int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  if ((ia < 0) != (ib < 0)) return ::testing::AssertionFailure() << a << " vs " << b;
  if (std::abs(ia - ib) <= ulps) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << a << " vs " << b << " (" << std::abs(ia - ib) << " ulp)";
}

void expect_ulps(const std::vector<float>& gpu, const std::vector<float>& cpu, const std::string& what) {
  ASSERT_EQ(gpu.size(), cpu.size());
  for (std::size_t i = 0; i < gpu.size(); ++i) ASSERT_TRUE(within_ulps(gpu[i], cpu[i], 2)) << what << " [" << i << "]";
}

/// Every element within rel * (largest |cpu| element) + tiny.
void expect_scaled(const std::vector<float>& gpu, const std::vector<float>& cpu, double rel, const std::string& what) {
  ASSERT_EQ(gpu.size(), cpu.size());
  double scale = 0.0;
  for (float v : cpu) scale = std::max(scale, std::fabs(static_cast<double>(v)));
  for (std::size_t i = 0; i < gpu.size(); ++i)
    ASSERT_NEAR(gpu[i], cpu[i], rel * scale + 1e-30) << what << " [" << i << "]";
}

void expect_stats(const LossStats& gpu, const LossStats& cpu, const std::string& what) {
  EXPECT_NEAR(gpu.loss_sum, cpu.loss_sum, 1e-5 * std::fabs(cpu.loss_sum) + 1e-9) << what;
  EXPECT_LE(std::llabs(static_cast<long long>(gpu.correct) - static_cast<long long>(cpu.correct)), 1) << what;
  EXPECT_EQ(gpu.count, cpu.count) << what;
}

void expect_same_cost(const Cost& gpu, const Cost& cpu) {
  EXPECT_EQ(gpu.flops, cpu.flops);
  EXPECT_EQ(gpu.bytes, cpu.bytes);
}

class CudaKernels : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!cuda_device_available(&why)) GTEST_SKIP() << "no GPU for the CUDA kernels: " << why;
    gpu_ = make_cuda_backend(0);
    ASSERT_NE(gpu_, nullptr);
    cpu_ = make_cpu_backend();
  }
  std::unique_ptr<KernelBackend> gpu_, cpu_;
};

// Sizes around the block (256 threads), the float4 width and the grid-stride wrap.
const std::vector<std::size_t> kSizes = {0, 1, 3, 4, 255, 257, 1023, 4097, 100003};

TEST_F(CudaKernels, VectorUpdatesMatchTheCpuAtAwkwardSizesAndAlignments) {
  std::uint32_t seed = 1;
  for (std::size_t n : kSizes) {
    for (std::size_t offset : {0, 1}) {  // host arrays off 16-byte alignment (device copies stay
                                         // aligned: CudaDeviceKernels tests the scalar path)
      const auto g = random_vector(n + 1, 1.0f, seed++);
      const auto w0 = random_vector(n + 1, 1.0f, seed++);
      const auto v0 = random_vector(n + 1, 0.5f, seed++);
      auto h0 = random_vector(n + 1, 1.0f, seed++);
      for (auto& x : h0) x = x * x;  // Adagrad's and Adam's second moments are >= 0
      const std::string at = "n=" + std::to_string(n) + " offset=" + std::to_string(offset);
      auto run = [&](KernelBackend& k) {
        // axpy's acc, sgd's w, momentum's w and v, adagrad's w and h, adam's w, m and v.
        std::vector<std::vector<float>> x = {w0, w0, w0, v0, w0, h0, w0, v0, h0};
        auto at_offset = [&](std::size_t i) { return x[i].data() + offset; };
        const float* grad = g.data() + offset;
        Cost cost = k.axpy(at_offset(0), grad, n, 0.37f);
        cost += k.sgd_update(at_offset(1), grad, n, 0.05f);
        cost += k.momentum_update(at_offset(2), at_offset(3), grad, n, 0.1f, 0.9f);
        cost += k.adagrad_update(at_offset(4), at_offset(5), grad, n, 0.1f, 1e-8f, 0.25f);
        cost += k.adam_update(at_offset(6), at_offset(7), at_offset(8), grad, n, 1e-3f, 0.9f, 0.999f, 1e-8f, 3,
                              0.5f);
        return std::pair{x, cost};
      };
      const auto [gpu, gpu_cost] = run(*gpu_);
      const auto [cpu, cpu_cost] = run(*cpu_);
      for (std::size_t i = 0; i < gpu.size(); ++i) expect_ulps(gpu[i], cpu[i], at + " output " + std::to_string(i));
      expect_same_cost(gpu_cost, cpu_cost);
    }
  }
}

TEST_F(CudaKernels, AdamRejectsStepZeroAndBadBetasLikeTheCpu) {
  std::vector<float> w(5, 1.0f), m(5), v(5), g(5, 1.0f);
  EXPECT_THROW(gpu_->adam_update(w.data(), m.data(), v.data(), g.data(), 5, 0.1f, 0.9f, 0.999f, 1e-8f, 0, 1.0f),
               std::invalid_argument);
  EXPECT_THROW(gpu_->adam_update(w.data(), m.data(), v.data(), g.data(), 5, 0.1f, 1.0f, 0.999f, 1e-8f, 1, 1.0f),
               std::invalid_argument);
}

TEST_F(CudaKernels, OverlappingHostArraysGiveTheCpuResult) {
  auto a = random_vector(100, 1.0f, 5), b = a;
  gpu_->axpy(a.data() + 1, a.data(), 99, 0.5f);  // reads what it has just written, in order
  cpu_->axpy(b.data() + 1, b.data(), 99, 0.5f);
  EXPECT_EQ(a, b);
}

TEST_F(CudaKernels, ReluBiasAndColumnSumsMatchTheCpu) {
  std::uint32_t seed = 100;
  for (auto [rows, cols] : {std::pair<std::size_t, std::size_t>{0, 5}, {1, 1}, {3, 4}, {7, 13}, {64, 128},
                            {257, 10}, {1000, 33}, {5, 0}}) {
    const std::string at = std::to_string(rows) + "x" + std::to_string(cols);
    auto z = random_vector(rows * cols, 1.0f, seed++);
    if (!z.empty()) z[0] = -0.0f;  // ReLU backward treats a zero activation as inactive
    const auto bias = random_vector(cols, 0.5f, seed++);
    for (bool relu : {false, true}) {
      auto zg = z, zc = z;
      expect_same_cost(gpu_->bias_activation(zg.data(), bias.data(), rows, cols, relu),
                       cpu_->bias_activation(zc.data(), bias.data(), rows, cols, relu));
      expect_ulps(zg, zc, "bias_activation " + at);
    }
    auto grad_g = random_vector(rows * cols, 1.0f, seed++), grad_c = grad_g;
    expect_same_cost(gpu_->relu_backward(grad_g.data(), z.data(), rows * cols),
                     cpu_->relu_backward(grad_c.data(), z.data(), rows * cols));
    expect_ulps(grad_g, grad_c, "relu_backward " + at);
    std::vector<float> sg(cols, 7.0f), sc(cols, -7.0f);
    expect_same_cost(gpu_->column_sums(z.data(), rows, cols, sg.data()), cpu_->column_sums(z.data(), rows, cols, sc.data()));
    expect_ulps(sg, sc, "column_sums " + at);
  }
}

TEST_F(CudaKernels, GemmMatchesTheCpuForEveryTransposeAndPaddedLeadingDimensions) {
  struct Shape { std::size_t m, n, k; };
  std::uint32_t seed = 200;
  for (const Shape s : {Shape{1, 1, 1}, {1, 7, 13}, {5, 1, 9}, {13, 17, 11}, {64, 128, 784}, {129, 33, 65},
                        {3, 10, 0}, {0, 4, 4}}) {
    for (int flags = 0; flags < 4; ++flags) {
      const bool ta = flags & 1, tb = flags & 2;
      for (const auto& [alpha, beta] : {std::pair{1.0f, 0.0f}, {0.7f, 1.0f}, {-1.5f, -0.5f}}) {
        const std::size_t lda = (ta ? s.m : s.k) + 3, ldb = (tb ? s.k : s.n) + 2, ldc = s.n + 1;
        const auto a = random_vector((ta ? s.k : s.m) * lda, 1.0f, seed++);
        const auto b = random_vector((tb ? s.n : s.k) * ldb, 1.0f, seed++);
        auto cg = random_vector(s.m * ldc, 1.0f, seed++), cc = cg;
        expect_same_cost(gpu_->gemm(ta, tb, s.m, s.n, s.k, alpha, a.data(), lda, b.data(), ldb, beta, cg.data(), ldc),
                         cpu_->gemm(ta, tb, s.m, s.n, s.k, alpha, a.data(), lda, b.data(), ldb, beta, cc.data(), ldc));
        for (std::size_t i = 0; i < s.m; ++i) {
          for (std::size_t j = 0; j < ldc; ++j) {
            if (j >= s.n) {  // the padding between rows is never touched
              ASSERT_EQ(cg[i * ldc + j], cc[i * ldc + j]);
              continue;
            }
            double bound = 0.0;
            for (std::size_t p = 0; p < s.k; ++p)
              bound += std::fabs(alpha * (ta ? a[p * lda + i] : a[i * lda + p]) * (tb ? b[j * ldb + p] : b[p * ldb + j]));
            ASSERT_NEAR(cg[i * ldc + j], cc[i * ldc + j], 5e-5 * bound + 1e-6 * std::fabs(cc[i * ldc + j]) + 1e-30)
                << s.m << "x" << s.n << "x" << s.k << " flags " << flags << " at " << i << "," << j;
          }
        }
      }
    }
  }
}

/// Selections of a problem's rows: all, one, none, and one that repeats rows and includes row 2
/// (stored empty by random_problem).
std::vector<std::vector<std::uint32_t>> selections(std::size_t rows) {
  std::vector<std::uint32_t> all(rows);
  for (std::size_t i = 0; i < rows; ++i) all[i] = static_cast<std::uint32_t>(i);
  std::vector<std::uint32_t> repeat = {2, 0, 2, static_cast<std::uint32_t>(rows - 1), 1, 0};
  return {all, {static_cast<std::uint32_t>(rows / 2)}, {}, repeat};
}

TEST_F(CudaKernels, LogisticAndSoftmaxMatchTheCpuOnCsrAndDenseRows) {
  std::uint32_t seed = 300;
  for (auto [rows, cols, classes] : {std::tuple<std::size_t, std::size_t, std::size_t>{5, 1, 2}, {40, 9, 3},
                                     {300, 123, 10}, {1000, 37, 33}}) {
    const auto p = random_problem(rows, cols, classes, seed++);
    for (bool sparse : {true, false}) {
      for (const auto& sel_rows : selections(rows)) {
        const RowSelection sel{sel_rows.data(), sel_rows.size()};
        const std::string at = std::to_string(rows) + "x" + std::to_string(cols) + (sparse ? " csr" : " dense") +
                               " n=" + std::to_string(sel.count);
        const auto w = random_vector(cols + 1, 0.5f, seed++);
        std::vector<float> gg(cols + 1, 9.0f), gc(cols + 1, -9.0f);
        LossStats sg, sc;
        expect_same_cost(gpu_->logistic(p.view(sparse), p.labels01.data(), sel, w.data(), gg.data(), &sg),
                         cpu_->logistic(p.view(sparse), p.labels01.data(), sel, w.data(), gc.data(), &sc));
        expect_stats(sg, sc, "logistic " + at);
        expect_scaled(gg, gc, 1e-4, "logistic grad " + at);

        const auto W = random_vector(classes * (cols + 1), 0.5f, seed++);
        std::vector<float> kg(W.size(), 9.0f), kc(W.size(), -9.0f);
        expect_same_cost(gpu_->softmax(p.view(sparse), p.labels.data(), classes, sel, W.data(), kg.data(), &sg),
                         cpu_->softmax(p.view(sparse), p.labels.data(), classes, sel, W.data(), kc.data(), &sc));
        expect_stats(sg, sc, "softmax " + at);
        expect_scaled(kg, kc, 1e-4, "softmax grad " + at);
        // Forward only: no gradient array at all.
        gpu_->softmax(p.view(sparse), p.labels.data(), classes, sel, W.data(), nullptr, &sg);
        expect_stats(sg, sc, "softmax forward " + at);
      }
    }
  }
}

TEST_F(CudaKernels, ModelKernelsRejectBadRowsAndLabelsLikeTheCpu) {
  auto p = random_problem(6, 4, 3, 9);
  std::vector<std::uint32_t> bad_row = {0, 6};
  std::vector<float> w(5), g(5), W(15), G(15);
  EXPECT_THROW(gpu_->logistic(p.csr_view(), p.labels01.data(), {bad_row.data(), 2}, w.data(), g.data(), nullptr),
               std::out_of_range);
  p.labels[1] = 3;
  std::vector<std::uint32_t> rows = {0, 1};
  try {
    gpu_->softmax(p.dense_view(), p.labels.data(), 3, {rows.data(), 2}, W.data(), G.data(), nullptr);
    FAIL() << "a label outside [0, k) was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("label 3 of row 1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(gpu_->softmax(p.dense_view(), p.labels.data(), 0, {rows.data(), 2}, W.data(), G.data(), nullptr),
               std::invalid_argument);
}

TEST_F(CudaKernels, GatherRowsMatchesTheCpu) {
  const auto p = random_problem(50, 29, 2, 400);
  for (bool sparse : {true, false}) {
    for (const auto& sel_rows : selections(50)) {
      const RowSelection sel{sel_rows.data(), sel_rows.size()};
      std::vector<float> og(sel.count * 29, 5.0f), oc(sel.count * 29, -5.0f);
      expect_same_cost(gpu_->gather_rows(p.view(sparse), sel, og.data()), cpu_->gather_rows(p.view(sparse), sel, oc.data()));
      expect_ulps(og, oc, sparse ? "gather csr" : "gather dense");
    }
  }
}

TEST_F(CudaKernels, SoftmaxXentMatchesTheCpuInPlaceAndNot) {
  std::uint32_t seed = 500;
  for (auto [rows, k] : {std::pair<std::size_t, std::size_t>{0, 3}, {1, 1}, {1, 10}, {7, 2}, {300, 10},
                         {33, 129}, {1000, 7}}) {
    auto z = random_vector(rows * k, 3.0f, seed++);
    std::vector<std::int32_t> labels(rows);
    for (std::size_t i = 0; i < rows; ++i) labels[i] = static_cast<std::int32_t>((i * 7 + 3) % k);
    if (rows > 0 && k > 1) z[1] = z[0];  // a tie: the first maximum is the prediction
    const std::string at = std::to_string(rows) + "x" + std::to_string(k);
    std::vector<float> dg(z.size()), dc(z.size());
    LossStats sg, sc;
    expect_same_cost(gpu_->softmax_xent(z.data(), labels.data(), rows, k, dg.data(), 0.25f, &sg),
                     cpu_->softmax_xent(z.data(), labels.data(), rows, k, dc.data(), 0.25f, &sc));
    expect_stats(sg, sc, "softmax_xent " + at);
    for (std::size_t i = 0; i < dg.size(); ++i) ASSERT_NEAR(dg[i], dc[i], 2e-6 * 0.25 + 1e-30) << at << " [" << i << "]";
    auto in_place = z;
    gpu_->softmax_xent(in_place.data(), labels.data(), rows, k, in_place.data(), 0.25f, &sg);
    for (std::size_t i = 0; i < dg.size(); ++i) ASSERT_NEAR(in_place[i], dc[i], 2e-6 * 0.25 + 1e-30) << at << " in place";
    gpu_->softmax_xent(z.data(), labels.data(), rows, k, nullptr, 1.0f, &sg);
    expect_stats(sg, sc, "softmax_xent forward " + at);
  }
}

TEST_F(CudaKernels, MatrixFactorizationMatchesTheCpuIncludingRepeatedRows) {
  std::uint32_t seed = 600;
  for (auto [n_rows, rank, count] : {std::tuple<std::size_t, std::size_t, std::size_t>{4, 1, 0}, {2, 3, 1},
                                     {10, 20, 64}, {300, 7, 1000}, {50, 40, 333}}) {
    const auto table = random_vector(n_rows * (rank + 1), 0.3f, seed++);
    std::vector<std::uint32_t> users(count), items(count);
    std::vector<float> ratings(count);
    for (std::size_t j = 0; j < count; ++j) {
      users[j] = static_cast<std::uint32_t>((j * 13) % n_rows);  // rows touched many times
      items[j] = static_cast<std::uint32_t>((j * 7 + 1) % n_rows);  // sometimes the user's own row
      ratings[j] = 1.0f + static_cast<float>(j % 5);
    }
    const MfBatch batch{count, users.data(), items.data(), ratings.data()};
    std::vector<float> gg(table.size(), 3.0f), gc(table.size(), -3.0f);
    LossStats sg, sc;
    const std::string at = std::to_string(n_rows) + " rows rank " + std::to_string(rank) + " count " + std::to_string(count);
    expect_same_cost(gpu_->matrix_factorization(table.data(), n_rows, rank, batch, 3.5f, 0.05f, gg.data(), &sg),
                     cpu_->matrix_factorization(table.data(), n_rows, rank, batch, 3.5f, 0.05f, gc.data(), &sc));
    expect_stats(sg, sc, "mf " + at);
    expect_scaled(gg, gc, 1e-4, "mf grad " + at);
  }
  std::vector<std::uint32_t> bad = {0, 9};
  std::vector<float> table(20), r = {1, 2};
  EXPECT_THROW(gpu_->matrix_factorization(table.data(), 5, 3, {2, bad.data(), bad.data(), r.data()}, 0, 0, nullptr, nullptr),
               std::out_of_range);
}

}  // namespace
}  // namespace pstwin
