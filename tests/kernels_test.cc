// The CPU kernels against closed forms, finite differences, and each other (CSR vs dense).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "kernels/backend.h"
#include "tests/kernel_test_problems.h"

namespace pstwin {
namespace {

using testing::Problem;
using testing::close;
using testing::random_problem;
using testing::random_vector;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

std::vector<std::uint32_t> all_rows(std::size_t n) {
  std::vector<std::uint32_t> rows(n);
  std::iota(rows.begin(), rows.end(), 0u);
  return rows;
}

RowSelection selection(const std::vector<std::uint32_t>& rows) {
  return RowSelection{rows.data(), rows.size()};
}

/// Checks grad against central differences of mean_loss at params, one coordinate at a time.
/// The step is taken in float, and the difference divided by the step actually representable.
void expect_matches_finite_differences(const std::function<double(const std::vector<float>&)>& mean_loss,
                                       const std::vector<float>& params,
                                       const std::vector<float>& grad) {
  ASSERT_EQ(params.size(), grad.size());
  for (std::size_t i = 0; i < params.size(); ++i) {
    std::vector<float> plus = params, minus = params;
    plus[i] += 1e-2f;
    minus[i] -= 1e-2f;
    const double fd = (mean_loss(plus) - mean_loss(minus)) /
                      (static_cast<double>(plus[i]) - static_cast<double>(minus[i]));
    EXPECT_TRUE(close(grad[i], fd, 1e-3, 1e-4))
        << "parameter " << i << ": kernel gradient " << grad[i] << ", finite difference " << fd;
  }
}

class KernelsTest : public ::testing::TestWithParam<bool> {
 protected:
  bool sparse() const { return GetParam(); }
  std::unique_ptr<KernelBackend> k = make_cpu_backend();
};

// ---------------------------------------------------------------- logistic

TEST_P(KernelsTest, LogisticAtZeroParamsLosesLog2PerRowAndGradientIsMeanOfHalfMinusLabel) {
  Problem p = random_problem(9, 5, 2, 11);
  const auto rows = all_rows(p.rows);
  std::vector<float> params(p.cols + 1, 0.0f), grad(p.cols + 1, kNaN);
  LossStats stats;
  k->logistic(p.view(sparse()), p.labels01.data(), selection(rows), params.data(), grad.data(),
              &stats);
  EXPECT_EQ(stats.count, p.rows);
  EXPECT_NEAR(stats.loss_sum, p.rows * std::log(2.0), 1e-9);
  // z = 0 predicts class 1 for every row.
  EXPECT_EQ(stats.correct, static_cast<std::uint64_t>(
                               std::count(p.labels01.begin(), p.labels01.end(), 1.0f)));
  for (std::size_t j = 0; j <= p.cols; ++j) {
    double expect = 0.0;
    for (std::size_t i = 0; i < p.rows; ++i) {
      const double x = j < p.cols ? p.dense[i * p.cols + j] : 1.0;
      expect += (0.5 - p.labels01[i]) * x / p.rows;
    }
    EXPECT_NEAR(grad[j], expect, 1e-6) << "coordinate " << j;
  }
}

TEST(KernelsHandComputed, LogisticTwoRows) {
  // x0 = [1, 2] label 1, x1 = [3, 0] label 0 (stored dense; the zero is not special).
  const std::vector<float> x = {1, 2, 3, 0};
  const std::vector<float> y = {1, 0};
  FeatureView v;
  v.sparse = false;
  v.dense = DenseView{2, 2, x.data()};
  const std::vector<std::uint32_t> rows = {0, 1};
  auto k = make_cpu_backend();

  std::vector<float> params = {0, 0, 0}, grad(3, kNaN);
  LossStats stats;
  k->logistic(v, y.data(), selection(rows), params.data(), grad.data(), &stats);
  EXPECT_FLOAT_EQ(grad[0], 0.5f);   // ((0.5-1)*1 + (0.5-0)*3) / 2
  EXPECT_FLOAT_EQ(grad[1], -0.5f);  // ((0.5-1)*2 + 0) / 2
  EXPECT_FLOAT_EQ(grad[2], 0.0f);   // ((0.5-1) + (0.5-0)) / 2
  EXPECT_EQ(stats.correct, 1u);     // z = 0 predicts 1: right for row 0, wrong for row 1

  // w = [1, 0], b = 0.5: z0 = 1.5 (label 1), z1 = 3.5 (label 0).
  params = {1, 0, 0.5f};
  k->logistic(v, y.data(), selection(rows), params.data(), grad.data(), &stats);
  EXPECT_NEAR(stats.loss_sum, std::log1p(std::exp(-1.5)) + std::log1p(std::exp(3.5)), 1e-6);
  EXPECT_EQ(stats.correct, 1u);
  const double s0 = 1.0 / (1.0 + std::exp(-1.5)), s1 = 1.0 / (1.0 + std::exp(-3.5));
  EXPECT_NEAR(grad[0], ((s0 - 1) * 1 + s1 * 3) / 2, 1e-6);
  EXPECT_NEAR(grad[1], ((s0 - 1) * 2) / 2, 1e-6);
  EXPECT_NEAR(grad[2], ((s0 - 1) + s1) / 2, 1e-6);
}

TEST(KernelsHandComputed, LogisticIsStableForHugeMargins) {
  const std::vector<float> x = {1000, -1000, 1000};
  const std::vector<float> y = {0, 0, 1};  // z = 1000 wrong, z = -1000 right, z = 1000 right
  FeatureView v;
  v.sparse = false;
  v.dense = DenseView{3, 1, x.data()};
  const std::vector<std::uint32_t> rows = {0, 1, 2};
  const std::vector<float> params = {1, 0};
  std::vector<float> grad(2, kNaN);
  LossStats stats;
  make_cpu_backend()->logistic(v, y.data(), selection(rows), params.data(), grad.data(), &stats);
  EXPECT_NEAR(stats.loss_sum, 1000.0, 1e-9);  // only row 0 loses, log(1 + e^1000) = 1000 + tiny
  EXPECT_EQ(stats.correct, 2u);
  EXPECT_NEAR(grad[0], 1000.0 / 3, 1e-3);  // row 0: (1 - 0) * 1000; the others ~ 0
  EXPECT_NEAR(grad[1], 1.0 / 3, 1e-6);
}

TEST_P(KernelsTest, LogisticGradientMatchesFiniteDifferences) {
  Problem p = random_problem(13, 6, 2, 21);
  const std::vector<std::uint32_t> rows = {0, 2, 3, 5, 5, 8, 12, 1};  // a repeat and an empty row
  const auto params = random_vector(p.cols + 1, 0.7f, 22);
  std::vector<float> grad(p.cols + 1, kNaN);
  k->logistic(p.view(sparse()), p.labels01.data(), selection(rows), params.data(), grad.data(),
              nullptr);
  auto mean_loss = [&](const std::vector<float>& w) {
    LossStats s;
    k->logistic(p.view(sparse()), p.labels01.data(), selection(rows), w.data(), nullptr, &s);
    return s.loss_sum / s.count;
  };
  expect_matches_finite_differences(mean_loss, params, grad);
}

TEST_P(KernelsTest, LogisticLossMatchesADoublePrecisionReference) {
  Problem p = random_problem(10, 4, 2, 31);
  const auto rows = all_rows(p.rows);
  const auto params = random_vector(p.cols + 1, 1.0f, 32);
  LossStats stats;
  k->logistic(p.view(sparse()), p.labels01.data(), selection(rows), params.data(), nullptr, &stats);
  double loss = 0.0;
  std::uint64_t correct = 0;
  for (std::size_t i = 0; i < p.rows; ++i) {
    double z = params[p.cols];
    for (std::size_t j = 0; j < p.cols; ++j) z += double(p.dense[i * p.cols + j]) * params[j];
    const double y = 2.0 * p.labels01[i] - 1.0;
    loss += std::log(1.0 + std::exp(-y * z));
    correct += (z >= 0) == (p.labels01[i] == 1.0f);
  }
  EXPECT_NEAR(stats.loss_sum, loss, 1e-5);
  EXPECT_EQ(stats.correct, correct);
}

// ---------------------------------------------------------------- softmax

TEST_P(KernelsTest, SoftmaxAtZeroParamsLosesLogKPerRowAndGradientIsMeanOfUniformMinusOneHot) {
  const std::size_t classes = 4;
  Problem p = random_problem(11, 5, classes, 41);
  const auto rows = all_rows(p.rows);
  const std::size_t stride = p.cols + 1;
  std::vector<float> params(classes * stride, 0.0f), grad(classes * stride, kNaN);
  LossStats stats;
  k->softmax(p.view(sparse()), p.labels.data(), classes, selection(rows), params.data(),
             grad.data(), &stats);
  EXPECT_EQ(stats.count, p.rows);
  EXPECT_NEAR(stats.loss_sum, p.rows * std::log(4.0), 1e-9);
  // All logits tie, so the prediction is class 0.
  EXPECT_EQ(stats.correct, static_cast<std::uint64_t>(std::count(p.labels.begin(), p.labels.end(), 0)));
  for (std::size_t c = 0; c < classes; ++c) {
    for (std::size_t j = 0; j <= p.cols; ++j) {
      double expect = 0.0;
      for (std::size_t i = 0; i < p.rows; ++i) {
        const double x = j < p.cols ? p.dense[i * p.cols + j] : 1.0;
        expect += (0.25 - (p.labels[i] == static_cast<int>(c))) * x / p.rows;
      }
      EXPECT_NEAR(grad[c * stride + j], expect, 1e-6) << "class " << c << " coordinate " << j;
    }
  }
}

TEST(KernelsHandComputed, SoftmaxIsStableForHugeLogitsAndBreaksTiesLow) {
  // One feature, three classes; class c's parameters are (weight, bias):
  // class 0 (0, 0.5), class 1 (1, 0), class 2 (0, 0.5).
  // Row 0, x = 1000, label 1: logits 0.5, 1000, 0.5, loss log(1 + 2 e^-999.5) ~ 0, predicts 1.
  // Row 1, x = 0, label 2: logits 0.5, 0, 0.5, loss log(2 e^0.5 + 1) - 0.5; classes 0 and 2 tie,
  // so the prediction is class 0 (wrong).
  const std::vector<float> x = {1000, 0};
  const std::vector<std::int32_t> y = {1, 2};
  FeatureView v;
  v.sparse = false;
  v.dense = DenseView{2, 1, x.data()};
  const std::vector<std::uint32_t> rows = {0, 1};
  const std::vector<float> params = {0, 0.5f, 1, 0, 0, 0.5f};
  std::vector<float> grad(6, kNaN);
  LossStats stats;
  make_cpu_backend()->softmax(v, y.data(), 3, selection(rows), params.data(), grad.data(), &stats);
  EXPECT_NEAR(stats.loss_sum, std::log(2 * std::exp(0.5) + 1.0) - 0.5, 1e-6);
  EXPECT_EQ(stats.correct, 1u);
  // Only row 1 (x = 0) moves the biases; row 0 is fitted to within exp(-999.5), which is 0.
  const double e = std::exp(0.5), sum = 2 * e + 1;
  EXPECT_NEAR(grad[1], e / sum / 2, 1e-7);
  EXPECT_NEAR(grad[3], 1 / sum / 2, 1e-7);
  EXPECT_NEAR(grad[5], (e / sum - 1) / 2, 1e-7);
  EXPECT_EQ(grad[0], 0.0f);
  EXPECT_EQ(grad[2], 0.0f);
  EXPECT_EQ(grad[4], 0.0f);
}

TEST_P(KernelsTest, SoftmaxGradientMatchesFiniteDifferences) {
  const std::size_t classes = 3;
  Problem p = random_problem(14, 5, classes, 51);
  const std::vector<std::uint32_t> rows = {13, 0, 2, 4, 4, 7, 9, 10, 11};
  const auto params = random_vector(classes * (p.cols + 1), 0.7f, 52);
  std::vector<float> grad(params.size(), kNaN);
  k->softmax(p.view(sparse()), p.labels.data(), classes, selection(rows), params.data(),
             grad.data(), nullptr);
  auto mean_loss = [&](const std::vector<float>& w) {
    LossStats s;
    k->softmax(p.view(sparse()), p.labels.data(), classes, selection(rows), w.data(), nullptr, &s);
    return s.loss_sum / s.count;
  };
  expect_matches_finite_differences(mean_loss, params, grad);
}

TEST_P(KernelsTest, SoftmaxWithTwoClassesEqualsLogistic) {
  // With W_0 = 0 and W_1 = w, softmax's loss is logistic's loss with parameters w, and the
  // class-1 gradient block is the logistic gradient (the class-0 block its negation).
  Problem p = random_problem(12, 6, 2, 61);
  const auto rows = all_rows(p.rows);
  const auto w = random_vector(p.cols + 1, 0.8f, 62);
  std::vector<float> params(2 * (p.cols + 1), 0.0f);
  std::copy(w.begin(), w.end(), params.begin() + p.cols + 1);
  std::vector<float> gl(p.cols + 1), gs(params.size());
  LossStats sl, ss;
  k->logistic(p.view(sparse()), p.labels01.data(), selection(rows), w.data(), gl.data(), &sl);
  k->softmax(p.view(sparse()), p.labels.data(), 2, selection(rows), params.data(), gs.data(), &ss);
  EXPECT_NEAR(sl.loss_sum, ss.loss_sum, 1e-5);
  EXPECT_EQ(sl.correct, ss.correct);
  for (std::size_t j = 0; j <= p.cols; ++j) {
    EXPECT_NEAR(gs[p.cols + 1 + j], gl[j], 1e-6);
    EXPECT_NEAR(gs[j], -gl[j], 1e-6);
  }
}

// ---------------------------------------------------------------- both kernels

TEST(KernelsLayouts, CsrAndDenseAgree) {
  auto k = make_cpu_backend();
  const std::size_t classes = 5;
  Problem p = random_problem(40, 23, classes, 71);  // 23 columns: the dense dot's tail runs too
  const auto rows = all_rows(p.rows);
  const auto wl = random_vector(p.cols + 1, 0.5f, 72);
  const auto ws = random_vector(classes * (p.cols + 1), 0.5f, 73);
  std::vector<float> g1(wl.size()), g2(wl.size()), h1(ws.size()), h2(ws.size());
  LossStats s1, s2, t1, t2;
  k->logistic(p.csr_view(), p.labels01.data(), selection(rows), wl.data(), g1.data(), &s1);
  k->logistic(p.dense_view(), p.labels01.data(), selection(rows), wl.data(), g2.data(), &s2);
  k->softmax(p.csr_view(), p.labels.data(), classes, selection(rows), ws.data(), h1.data(), &t1);
  k->softmax(p.dense_view(), p.labels.data(), classes, selection(rows), ws.data(), h2.data(), &t2);
  EXPECT_NEAR(s1.loss_sum, s2.loss_sum, 1e-4);
  EXPECT_EQ(s1.correct, s2.correct);
  EXPECT_NEAR(t1.loss_sum, t2.loss_sum, 1e-4);
  EXPECT_EQ(t1.correct, t2.correct);
  for (std::size_t i = 0; i < g1.size(); ++i) EXPECT_NEAR(g1[i], g2[i], 1e-5) << i;
  for (std::size_t i = 0; i < h1.size(); ++i) EXPECT_NEAR(h1[i], h2[i], 1e-5) << i;
}

TEST_P(KernelsTest, EmptySelectionGivesZeroGradientAndNoRows) {
  Problem p = random_problem(5, 4, 3, 81);
  const auto wl = random_vector(p.cols + 1, 1.0f, 82);
  const auto ws = random_vector(3 * (p.cols + 1), 1.0f, 83);
  std::vector<float> gl(wl.size(), kNaN), gs(ws.size(), kNaN);
  LossStats sl{7.0, 7, 7}, ss{7.0, 7, 7};
  const RowSelection none{nullptr, 0};
  const Cost cl = k->logistic(p.view(sparse()), p.labels01.data(), none, wl.data(), gl.data(), &sl);
  const Cost cs = k->softmax(p.view(sparse()), p.labels.data(), 3, none, ws.data(), gs.data(), &ss);
  for (float g : gl) EXPECT_EQ(g, 0.0f);
  for (float g : gs) EXPECT_EQ(g, 0.0f);
  for (const LossStats& s : {sl, ss}) {
    EXPECT_EQ(s.loss_sum, 0.0);
    EXPECT_EQ(s.correct, 0u);
    EXPECT_EQ(s.count, 0u);
  }
  EXPECT_EQ(cl.flops, 0.0);
  EXPECT_EQ(cs.flops, 0.0);
}

TEST_P(KernelsTest, GradientIsOverwrittenAndCallsAreDeterministic) {
  Problem p = random_problem(20, 9, 3, 91);
  const std::vector<std::uint32_t> rows = {3, 1, 4, 1, 5, 9, 2, 6};
  const auto ws = random_vector(3 * (p.cols + 1), 0.5f, 92);
  std::vector<float> a(ws.size(), 123.0f), b(ws.size(), -7.0f);
  k->softmax(p.view(sparse()), p.labels.data(), 3, selection(rows), ws.data(), a.data(), nullptr);
  k->softmax(p.view(sparse()), p.labels.data(), 3, selection(rows), ws.data(), b.data(), nullptr);
  EXPECT_EQ(a, b);  // bit-identical, whatever the buffers held before

  const auto wl = random_vector(p.cols + 1, 0.5f, 93);
  std::vector<float> c(wl.size(), 123.0f), d(wl.size(), -7.0f);
  k->logistic(p.view(sparse()), p.labels01.data(), selection(rows), wl.data(), c.data(), nullptr);
  k->logistic(p.view(sparse()), p.labels01.data(), selection(rows), wl.data(), d.data(), nullptr);
  EXPECT_EQ(c, d);
}

TEST_P(KernelsTest, GradientIsTheMeanOverTheSelection) {
  // Selecting a row twice gives the same mean gradient as selecting it once.
  Problem p = random_problem(6, 5, 3, 101);
  const std::vector<std::uint32_t> once = {4}, twice = {4, 4};
  const auto ws = random_vector(3 * (p.cols + 1), 0.5f, 102);
  std::vector<float> a(ws.size()), b(ws.size());
  LossStats sa, sb;
  k->softmax(p.view(sparse()), p.labels.data(), 3, selection(once), ws.data(), a.data(), &sa);
  k->softmax(p.view(sparse()), p.labels.data(), 3, selection(twice), ws.data(), b.data(), &sb);
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-7);
  EXPECT_NEAR(2 * sa.loss_sum, sb.loss_sum, 1e-9);
  EXPECT_EQ(sb.count, 2u);
}

TEST_P(KernelsTest, RejectsOutOfRangeRowsAndLabels) {
  Problem p = random_problem(5, 4, 3, 111);
  const std::vector<std::uint32_t> bad_row = {1, 5};
  const auto ws = random_vector(3 * (p.cols + 1), 0.5f, 112);
  EXPECT_THROW(k->logistic(p.view(sparse()), p.labels01.data(), selection(bad_row), ws.data(),
                           nullptr, nullptr),
               std::out_of_range);
  p.labels[3] = 3;
  const std::vector<std::uint32_t> rows = {3};
  EXPECT_THROW(k->softmax(p.view(sparse()), p.labels.data(), 3, selection(rows), ws.data(),
                          nullptr, nullptr),
               std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(Layouts, KernelsTest, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Csr" : "Dense";
                         });

// ---------------------------------------------------------------- Cost

TEST(KernelsCost, KnownSmallCases) {
  // Two rows, five columns; row 0 stores 3 entries, row 1 stores 1 (N = 4 for CSR, 10 dense).
  const std::vector<std::uint64_t> row_ptr = {0, 3, 4};
  const std::vector<std::uint32_t> col_idx = {0, 2, 4, 1};
  const std::vector<float> values = {1, 2, 3, 4};
  const std::vector<float> dense = {1, 0, 2, 0, 3, 0, 4, 0, 0, 0};
  FeatureView csr, den;
  csr.sparse = true;
  csr.csr = CsrView{2, 5, row_ptr.data(), col_idx.data(), values.data()};
  den.sparse = false;
  den.dense = DenseView{2, 5, dense.data()};
  const std::vector<std::uint32_t> rows = {0, 1};
  const std::vector<float> y01 = {0, 1};
  const std::vector<std::int32_t> y = {0, 2};
  std::vector<float> params(3 * 6, 0.1f), grad(3 * 6);
  auto k = make_cpu_backend();

  // logistic CSR, forward: 2N + n(4 + 2T) = 8 + 2*24 = 56 flops;
  // bytes 8n + (16n + 8N) + 4(min(d, N) + 1) = 16 + 64 + 20 = 100. Backward: +2N + 5n = 18
  // flops, +4(d+1) = 24 bytes.
  Cost c = k->logistic(csr, y01.data(), selection(rows), params.data(), nullptr, nullptr);
  EXPECT_DOUBLE_EQ(c.flops, 56);
  EXPECT_DOUBLE_EQ(c.bytes, 100);
  c = k->logistic(csr, y01.data(), selection(rows), params.data(), grad.data(), nullptr);
  EXPECT_DOUBLE_EQ(c.flops, 74);
  EXPECT_DOUBLE_EQ(c.bytes, 124);
  // logistic dense: N = 10. Forward 20 + 48 = 68 flops; bytes 16 + 40 + 24 = 80.
  c = k->logistic(den, y01.data(), selection(rows), params.data(), nullptr, nullptr);
  EXPECT_DOUBLE_EQ(c.flops, 68);
  EXPECT_DOUBLE_EQ(c.bytes, 80);
  // softmax dense, k = 3, with grad: forward 2kN + kn + n(3k + kT + T + 2) = 60 + 6 + 2*51 = 168;
  // backward 2kN + kn + n(3k + 1) = 60 + 6 + 20 = 86. Bytes 16 + 40 + 3*24 + 3*24 = 200.
  c = k->softmax(den, y.data(), 3, selection(rows), params.data(), grad.data(), nullptr);
  EXPECT_DOUBLE_EQ(c.flops, 254);
  EXPECT_DOUBLE_EQ(c.bytes, 200);
  // softmax CSR, k = 3, forward only: 24 + 6 + 102 = 132 flops; bytes 16 + 64 + 3*20 = 140.
  c = k->softmax(csr, y.data(), 3, selection(rows), params.data(), nullptr, nullptr);
  EXPECT_DOUBLE_EQ(c.flops, 132);
  EXPECT_DOUBLE_EQ(c.bytes, 140);
}

// ---------------------------------------------------------------- vector kernels

TEST(KernelsVector, AxpySgdAndMomentumMatchClosedForms) {
  auto k = make_cpu_backend();
  std::vector<float> acc = {1, 2, 3}, g = {0.5f, -1, 4};
  Cost c = k->axpy(acc.data(), g.data(), 3, 2.0f);
  EXPECT_EQ(acc, (std::vector<float>{2, 0, 11}));
  EXPECT_DOUBLE_EQ(c.flops, 6);
  EXPECT_DOUBLE_EQ(c.bytes, 36);

  std::vector<float> w = {1, 2, 3};
  c = k->sgd_update(w.data(), g.data(), 3, 0.5f);
  EXPECT_EQ(w, (std::vector<float>{0.75f, 2.5f, 1}));
  EXPECT_DOUBLE_EQ(c.flops, 6);
  EXPECT_DOUBLE_EQ(c.bytes, 36);

  // Two momentum steps with constant g: v1 = g, w1 = w0 - lr g; v2 = mu g + g, w2 = w1 - lr v2.
  w = {1, 2, 3};
  std::vector<float> v(3, 0.0f);
  const float lr = 0.25f, mu = 0.5f;
  k->momentum_update(w.data(), v.data(), g.data(), 3, lr, mu);
  c = k->momentum_update(w.data(), v.data(), g.data(), 3, lr, mu);
  for (std::size_t i = 0; i < 3; ++i) {
    const float w0 = static_cast<float>(i + 1);
    EXPECT_FLOAT_EQ(v[i], 1.5f * g[i]);
    EXPECT_FLOAT_EQ(w[i], w0 - lr * g[i] - lr * 1.5f * g[i]);
  }
  EXPECT_DOUBLE_EQ(c.flops, 12);
  EXPECT_DOUBLE_EQ(c.bytes, 60);

  // n = 0 touches nothing and costs nothing.
  c = k->axpy(nullptr, nullptr, 0, 1.0f);
  EXPECT_EQ(c.flops, 0.0);
  EXPECT_EQ(c.bytes, 0.0);
  EXPECT_EQ(k->name(), "cpu");
}

TEST(KernelsVector, LongAndAliasedVectorsMatchTheElementwiseDefinition) {
  // 37 elements: four blocks of eight and a tail of five.
  auto k = make_cpu_backend();
  const std::size_t n = 37;
  const auto g = random_vector(n, 1.0f, 121), w0 = random_vector(n, 1.0f, 122),
             v0 = random_vector(n, 1.0f, 123);
  std::vector<float> acc = w0;
  k->axpy(acc.data(), g.data(), n, 0.3f);
  for (std::size_t i = 0; i < n; ++i) EXPECT_FLOAT_EQ(acc[i], w0[i] + 0.3f * g[i]) << i;
  std::vector<float> w = w0;
  k->sgd_update(w.data(), g.data(), n, 0.1f);
  for (std::size_t i = 0; i < n; ++i) EXPECT_FLOAT_EQ(w[i], w0[i] - 0.1f * g[i]) << i;
  w = w0;
  std::vector<float> v = v0;
  k->momentum_update(w.data(), v.data(), g.data(), n, 0.1f, 0.9f);
  for (std::size_t i = 0; i < n; ++i) {
    const float vi = 0.9f * v0[i] + g[i];
    EXPECT_FLOAT_EQ(v[i], vi) << i;
    EXPECT_FLOAT_EQ(w[i], w0[i] - 0.1f * vi) << i;
  }
  // Aliased and overlapping buffers behave as the element-wise loop does.
  acc = w0;
  k->axpy(acc.data(), acc.data(), n, 1.0f);  // acc = 2 * acc
  for (std::size_t i = 0; i < n; ++i) EXPECT_FLOAT_EQ(acc[i], 2 * w0[i]) << i;
  acc = w0;
  k->axpy(acc.data() + 1, acc.data(), n - 1, 1.0f);  // running sums, in index order
  float running = w0[0];
  for (std::size_t i = 1; i < n; ++i) {
    running = w0[i] + running;
    EXPECT_FLOAT_EQ(acc[i], running) << i;
  }
}

}  // namespace
}  // namespace pstwin
