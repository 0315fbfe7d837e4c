// The dense MLP kernels (gemm, gather_rows, bias_activation, relu_backward, column_sums,
// softmax_xent) against naive double-precision references, on awkward sizes: one row, sizes
// that are not multiples of 4 or 8, padded leading dimensions, and empty products.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/backend.h"
#include "tests/kernel_test_problems.h"

namespace pstwin {
namespace {

using testing::random_problem;
using testing::random_vector;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// ---------------------------------------------------------------- gemm

struct GemmShape {
  std::size_t m, n, k;
};

/// C = alpha op(A) op(B) + beta C in double, on the same storage conventions as the kernel.
std::vector<double> naive_gemm(bool ta, bool tb, GemmShape s, float alpha, const std::vector<float>& a,
                               std::size_t lda, const std::vector<float>& b, std::size_t ldb,
                               float beta, const std::vector<float>& c, std::size_t ldc) {
  std::vector<double> out(c.begin(), c.end());
  for (std::size_t i = 0; i < s.m; ++i) {
    for (std::size_t j = 0; j < s.n; ++j) {
      double sum = 0.0;
      for (std::size_t p = 0; p < s.k; ++p) {
        const double av = ta ? a[p * lda + i] : a[i * lda + p];
        const double bv = tb ? b[j * ldb + p] : b[p * ldb + j];
        sum += av * bv;
      }
      const double old = beta == 0.0f ? 0.0 : beta * double(c[i * ldc + j]);
      out[i * ldc + j] = alpha * sum + old;
    }
  }
  return out;
}

TEST(Gemm, MatchesANaiveProductForEveryTransposeOnAwkwardShapes) {
  auto k = make_cpu_backend();
  const std::vector<GemmShape> shapes = {{1, 1, 1},  {1, 7, 13}, {5, 1, 9},  {13, 17, 11},
                                         {4, 8, 16}, {9, 33, 65}, {3, 10, 1}, {7, 129, 5}};
  std::uint32_t seed = 1;
  for (const GemmShape& s : shapes) {
    for (int flags = 0; flags < 4; ++flags) {
      const bool ta = flags & 1, tb = flags & 2;
      for (const auto& [alpha, beta] : {std::pair{1.0f, 0.0f}, {0.7f, 1.0f}, {-1.5f, -0.5f}}) {
        // Padded leading dimensions: each stored row is 3 floats longer than it needs.
        const std::size_t lda = (ta ? s.m : s.k) + 3, ldb = (tb ? s.k : s.n) + 3, ldc = s.n + 3;
        const auto a = random_vector((ta ? s.k : s.m) * lda, 1.0f, seed++);
        const auto b = random_vector((tb ? s.n : s.k) * ldb, 1.0f, seed++);
        auto c = random_vector(s.m * ldc, 1.0f, seed++);
        if (beta == 0.0f)
          for (std::size_t i = 0; i < s.m; ++i)
            for (std::size_t j = 0; j < s.n; ++j) c[i * ldc + j] = kNaN;  // must not be read
        const auto want = naive_gemm(ta, tb, s, alpha, a, lda, b, ldb, beta, c, ldc);
        const Cost cost = k->gemm(ta, tb, s.m, s.n, s.k, alpha, a.data(), lda, b.data(), ldb,
                                  beta, c.data(), ldc);
        const std::string what = "m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) +
                                 " k=" + std::to_string(s.k) + " ta=" + std::to_string(ta) +
                                 " tb=" + std::to_string(tb) + " beta=" + std::to_string(beta);
        for (std::size_t i = 0; i < s.m; ++i) {
          for (std::size_t j = 0; j < ldc; ++j) {
            const double got = c[i * ldc + j], expect = want[i * ldc + j];
            if (j >= s.n) {
              ASSERT_EQ(got, expect) << what << ": padding (" << i << ", " << j << ") was written";
            } else {
              ASSERT_NEAR(got, expect, 1e-5 * (1.0 + std::fabs(expect)) * std::sqrt(double(s.k)))
                  << what << ", element (" << i << ", " << j << ")";
            }
          }
        }
        const double mnk = double(s.m) * s.n * s.k, mn = double(s.m) * s.n;
        EXPECT_DOUBLE_EQ(cost.flops, 2 * mnk + (beta != 0.0f ? 2 * mn : 0.0)) << what;
        EXPECT_DOUBLE_EQ(cost.bytes, 4.0 * (double(s.m) * s.k + double(s.k) * s.n + mn) +
                                         (beta != 0.0f ? 4 * mn : 0.0))
            << what;
      }
    }
  }
}

TEST(Gemm, EmptyInnerDimensionScalesCAndResultsAreReproducible) {
  auto k = make_cpu_backend();
  std::vector<float> c = {1, 2, 3, 4, 5, 6};
  k->gemm(false, false, 2, 3, 0, 1.0f, nullptr, 1, nullptr, 3, 0.5f, c.data(), 3);
  EXPECT_EQ(c, (std::vector<float>{0.5f, 1, 1.5f, 2, 2.5f, 3}));
  k->gemm(false, false, 2, 3, 0, 1.0f, nullptr, 1, nullptr, 3, 0.0f, c.data(), 3);
  EXPECT_EQ(c, std::vector<float>(6, 0.0f));

  const auto a = random_vector(37 * 51, 1.0f, 5), b = random_vector(51 * 29, 1.0f, 6);
  std::vector<float> c1(37 * 29), c2(37 * 29);
  k->gemm(false, false, 37, 29, 51, 1.0f, a.data(), 51, b.data(), 29, 0.0f, c1.data(), 29);
  k->gemm(false, false, 37, 29, 51, 1.0f, a.data(), 51, b.data(), 29, 0.0f, c2.data(), 29);
  EXPECT_EQ(c1, c2);
}

TEST(Gemm, RejectsALeadingDimensionShorterThanARow) {
  auto k = make_cpu_backend();
  std::vector<float> a(12), b(12), c(12);
  EXPECT_THROW(k->gemm(false, false, 3, 4, 3, 1.0f, a.data(), 2, b.data(), 4, 0.0f, c.data(), 4),
               std::invalid_argument);
  EXPECT_THROW(k->gemm(false, false, 3, 4, 3, 1.0f, a.data(), 3, b.data(), 4, 0.0f, c.data(), 3),
               std::invalid_argument);
}

// ---------------------------------------------------------------- gather_rows

TEST(GatherRows, CsrAndDenseGiveTheSelectedRowsWithZerosForUnstoredEntries) {
  auto k = make_cpu_backend();
  const auto p = random_problem(9, 11, 3, 3);  // row 2 stores nothing
  const std::vector<std::uint32_t> rows = {2, 8, 0, 8};
  const RowSelection sel{rows.data(), rows.size()};
  for (bool sparse : {true, false}) {
    std::vector<float> out(rows.size() * p.cols, kNaN);
    const Cost cost = k->gather_rows(p.view(sparse), sel, out.data());
    for (std::size_t s = 0; s < rows.size(); ++s)
      for (std::size_t j = 0; j < p.cols; ++j)
        EXPECT_EQ(out[s * p.cols + j], p.dense[rows[s] * p.cols + j]) << "row " << s << ", col " << j;
    EXPECT_EQ(cost.flops, 0.0);
    if (!sparse) {
      EXPECT_DOUBLE_EQ(cost.bytes, 8.0 * rows.size() * p.cols + 4.0 * rows.size());
    }
  }
  const std::vector<std::uint32_t> bad = {9};
  std::vector<float> out(p.cols);
  EXPECT_THROW(k->gather_rows(p.csr_view(), RowSelection{bad.data(), 1}, out.data()), std::out_of_range);
}

// ---------------------------------------------------------------- bias, ReLU, column sums

TEST(BiasActivation, AddsTheBiasPerColumnAndClampsWithRelu) {
  auto k = make_cpu_backend();
  const std::size_t rows = 3, cols = 13;
  const auto z0 = random_vector(rows * cols, 1.0f, 7), bias = random_vector(cols, 1.0f, 8);
  for (bool relu : {false, true}) {
    auto z = z0;
    const Cost cost = k->bias_activation(z.data(), bias.data(), rows, cols, relu);
    for (std::size_t i = 0; i < rows * cols; ++i) {
      const float sum = z0[i] + bias[i % cols];
      EXPECT_EQ(z[i], relu ? std::max(sum, 0.0f) : sum) << "element " << i;
    }
    EXPECT_DOUBLE_EQ(cost.flops, (relu ? 2.0 : 1.0) * rows * cols);
    EXPECT_DOUBLE_EQ(cost.bytes, 8.0 * rows * cols + 4.0 * cols);
  }
}

TEST(ReluBackward, ZeroesTheGradientWhereTheActivationIsNotPositive) {
  auto k = make_cpu_backend();
  std::vector<float> grad = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const std::vector<float> act = {0.5f, 0.0f, -0.0f, 2.0f, 0.0f, 1e-30f, 3.0f, 0.0f, 1.0f};
  const Cost cost = k->relu_backward(grad.data(), act.data(), grad.size());
  EXPECT_EQ(grad, (std::vector<float>{1, 0, 0, 4, 0, 6, 7, 0, 9}));
  EXPECT_DOUBLE_EQ(cost.bytes, 12.0 * grad.size());
}

TEST(ColumnSums, MatchesANaiveSumAndGivesZerosForNoRows) {
  auto k = make_cpu_backend();
  for (std::size_t rows : {0u, 1u, 7u}) {
    const std::size_t cols = 11;
    const auto d = random_vector(rows * cols, 1.0f, 9);
    std::vector<float> out(cols, kNaN);
    k->column_sums(d.data(), rows, cols, out.data());
    for (std::size_t j = 0; j < cols; ++j) {
      double want = 0.0;
      for (std::size_t i = 0; i < rows; ++i) want += d[i * cols + j];
      EXPECT_NEAR(out[j], want, 1e-5) << rows << " rows, column " << j;
    }
  }
}

// ---------------------------------------------------------------- softmax_xent

TEST(SoftmaxXent, LossCorrectAndGradientMatchAReferenceInPlaceOrNot) {
  auto k = make_cpu_backend();
  const std::size_t rows = 5, classes = 7;
  auto z = random_vector(rows * classes, 3.0f, 10);
  z[3 * classes + 2] = 80.0f;  // a large logit: the max subtraction keeps exp finite
  const std::vector<std::int32_t> labels = {0, 6, 3, 2, 6};
  const float scale = 0.2f;

  double want_loss = 0.0;
  std::uint64_t want_correct = 0;
  std::vector<double> want_dz(z.size());
  for (std::size_t i = 0; i < rows; ++i) {
    double zmax = z[i * classes];
    std::size_t argmax = 0;
    for (std::size_t c = 1; c < classes; ++c)
      if (z[i * classes + c] > zmax) zmax = z[i * classes + c], argmax = c;
    double sum = 0.0;
    for (std::size_t c = 0; c < classes; ++c) sum += std::exp(z[i * classes + c] - zmax);
    want_loss += std::log(sum) + zmax - z[i * classes + labels[i]];
    if (argmax == std::size_t(labels[i])) ++want_correct;
    for (std::size_t c = 0; c < classes; ++c)
      want_dz[i * classes + c] =
          scale * (std::exp(z[i * classes + c] - zmax) / sum - (c == std::size_t(labels[i])));
  }

  LossStats stats;
  std::vector<float> dz(z.size(), kNaN);
  const Cost cost = k->softmax_xent(z.data(), labels.data(), rows, classes, dz.data(), scale, &stats);
  EXPECT_NEAR(stats.loss_sum, want_loss, 1e-4);
  EXPECT_EQ(stats.correct, want_correct);
  EXPECT_EQ(stats.count, rows);
  for (std::size_t i = 0; i < dz.size(); ++i) EXPECT_NEAR(dz[i], want_dz[i], 1e-6) << "element " << i;
  const double T = 10.0;
  EXPECT_DOUBLE_EQ(cost.flops, rows * (classes * (3 + T) + T + 2) + 3.0 * rows * classes);
  EXPECT_DOUBLE_EQ(cost.bytes, 8.0 * rows * classes + 4.0 * rows);

  auto in_place = z;
  LossStats stats2;
  k->softmax_xent(in_place.data(), labels.data(), rows, classes, in_place.data(), scale, &stats2);
  EXPECT_EQ(in_place, dz);
  EXPECT_EQ(stats2.loss_sum, stats.loss_sum);

  LossStats forward_only;
  const Cost fc = k->softmax_xent(z.data(), labels.data(), rows, classes, nullptr, 1.0f, &forward_only);
  EXPECT_EQ(forward_only.loss_sum, stats.loss_sum);
  EXPECT_DOUBLE_EQ(fc.bytes, 4.0 * rows * classes + 4.0 * rows);
}

TEST(SoftmaxXent, GradientIsTheDerivativeOfTheLossSum) {
  auto k = make_cpu_backend();
  const std::size_t rows = 1, classes = 3;  // one row: the smallest case
  const std::vector<float> z = {0.3f, -1.2f, 2.0f};
  const std::vector<std::int32_t> labels = {1};
  std::vector<float> dz(3);
  k->softmax_xent(z.data(), labels.data(), rows, classes, dz.data(), 1.0f, nullptr);
  for (std::size_t c = 0; c < classes; ++c) {
    auto plus = z, minus = z;
    plus[c] += 1e-2f;
    minus[c] -= 1e-2f;
    LossStats sp, sm;
    k->softmax_xent(plus.data(), labels.data(), rows, classes, nullptr, 1.0f, &sp);
    k->softmax_xent(minus.data(), labels.data(), rows, classes, nullptr, 1.0f, &sm);
    EXPECT_NEAR(dz[c], (sp.loss_sum - sm.loss_sum) / (double(plus[c]) - minus[c]), 1e-4);
  }
}

TEST(SoftmaxXent, RejectsBadLabelsAndZeroClasses) {
  auto k = make_cpu_backend();
  const std::vector<float> z = {0, 0};
  const std::vector<std::int32_t> bad = {2}, negative = {-1};
  EXPECT_THROW(k->softmax_xent(z.data(), bad.data(), 1, 2, nullptr, 1.0f, nullptr), std::invalid_argument);
  EXPECT_THROW(k->softmax_xent(z.data(), negative.data(), 1, 2, nullptr, 1.0f, nullptr),
               std::invalid_argument);
  EXPECT_THROW(k->softmax_xent(z.data(), bad.data(), 1, 0, nullptr, 1.0f, nullptr), std::invalid_argument);
}

}  // namespace
}  // namespace pstwin
