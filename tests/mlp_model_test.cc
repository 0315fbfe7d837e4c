// The MLP (runtime/model/mlp_model.h): gradient against central finite differences on a tiny net
// with dense and CSR input, the parameter layout and init, the loss at init, evaluate's chunking,
// and make_model's errors.
#include "runtime/model/mlp_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/errors.h"
#include "tests/kernel_test_problems.h"
#include "tests/model_test_support.h"

namespace pstwin {
namespace {

using testing::expect_gradient_matches_finite_differences;
using testing::random_problem;
using testing::random_vector;

Dataset dataset(const testing::Problem& p, bool sparse) {
  Dataset d;
  d.source = "random";
  d.rows = p.rows;
  d.cols = p.cols;
  d.sparse = sparse;
  if (sparse) {
    d.row_ptr = p.row_ptr;
    d.col_idx = p.col_idx;
    d.values = p.values;
  } else {
    d.values = p.dense;
  }
  d.labels = p.labels;
  d.labels01 = p.labels01;
  d.num_classes = p.classes;
  return d;
}

ModelSection mlp(std::vector<std::uint32_t> hidden, double l2) {
  ModelSection s;
  s.type = "mlp";
  s.hidden = std::move(hidden);
  s.l2 = l2;
  return s;
}

std::vector<std::uint32_t> all_rows(std::size_t n) {
  std::vector<std::uint32_t> rows(n);
  std::iota(rows.begin(), rows.end(), 0u);
  return rows;
}

class MlpGradient : public ::testing::TestWithParam<bool> {};

TEST_P(MlpGradient, MatchesCentralFiniteDifferencesOfTheFullLoss) {
  const bool sparse = GetParam();
  const Dataset data = dataset(random_problem(11, 5, 3, 21), sparse);
  auto model = make_model(mlp({4, 3}, 0.2), data.cols, data.num_classes);
  ASSERT_EQ(model->num_parameters(), (5 + 1) * 4 + (4 + 1) * 3 + (3 + 1) * 3u);
  const std::vector<std::uint32_t> rows = {0, 1, 2, 4, 7, 7, 10};  // row 2 is empty, 7 twice
  const RowSelection sel{rows.data(), rows.size()};
  auto params = random_vector(model->num_parameters(), 0.8f, 22);
  for (std::size_t i = 0; i < params.size(); ++i) params[i] += (i % 2 ? 0.1f : -0.05f);  // biases off zero
  auto k = make_cpu_backend();
  std::vector<float> grad(params.size(), 99.0f);
  LossStats stats;
  model->gradient(*k, data, sel, params.data(), grad.data(), &stats);
  EXPECT_EQ(stats.count, rows.size());

  expect_gradient_matches_finite_differences(*model, *k, data, sel, params, grad, 4e-3f, 1e-2, 2e-4);
}

INSTANTIATE_TEST_SUITE_P(Input, MlpGradient, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Csr" : "Dense";
                         });

TEST(MlpModel, CsrAndDenseInputGiveIdenticalGradients) {
  const auto p = random_problem(13, 9, 4, 31);
  auto model = make_model(mlp({6}, 0.01), p.cols, p.classes);
  const auto params = random_vector(model->num_parameters(), 0.5f, 32);
  const auto rows = all_rows(p.rows);
  auto k = make_cpu_backend();
  std::vector<float> g_dense(params.size()), g_csr(params.size());
  model->gradient(*k, dataset(p, false), RowSelection{rows.data(), rows.size()}, params.data(),
                  g_dense.data(), nullptr);
  model->gradient(*k, dataset(p, true), RowSelection{rows.data(), rows.size()}, params.data(),
                  g_csr.data(), nullptr);
  EXPECT_EQ(g_dense, g_csr);
}

TEST(MlpModel, InitIsSeededWithHeAndGlorotBoundsAndZeroBiases) {
  auto model = make_model(mlp({50}, 0.0), 30, 10);
  std::vector<float> a(model->num_parameters()), b(a.size()), c(a.size());
  Rng r1(5), r2(5), r3(6);
  model->init(a.data(), r1);
  model->init(b.data(), r2);
  model->init(c.data(), r3);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  const std::size_t w0 = 30 * 50, b0 = 50, w1 = 50 * 10;
  const double he = std::sqrt(6.0 / 30), glorot = std::sqrt(6.0 / 60);
  double max0 = 0, max1 = 0;
  for (std::size_t i = 0; i < w0; ++i) max0 = std::max(max0, std::fabs(double(a[i])));
  for (std::size_t i = 0; i < b0; ++i) EXPECT_EQ(a[w0 + i], 0.0f);
  for (std::size_t i = 0; i < w1; ++i) max1 = std::max(max1, std::fabs(double(a[w0 + b0 + i])));
  for (std::size_t i = 0; i < 10; ++i) EXPECT_EQ(a[w0 + b0 + w1 + i], 0.0f);
  EXPECT_LE(max0, he);
  EXPECT_GT(max0, 0.9 * he);  // 1,500 draws fill the range
  EXPECT_LE(max1, glorot);
  EXPECT_GT(max1, 0.8 * glorot);
}

TEST(MlpModel, LossAtInitIsAboutLogOfTheClassCount) {
  // Image-like input: 200 rows of 100 pixels in [0, 1], 10 classes.
  testing::Problem p = random_problem(200, 100, 10, 41);
  for (float& v : p.dense) v = std::fabs(v) / 1.5f;
  auto model = make_model(mlp({64}, 0.0), p.cols, p.classes);
  std::vector<float> params(model->num_parameters());
  Rng rng(7);
  model->init(params.data(), rng);
  const auto rows = all_rows(p.rows);
  LossStats stats;
  auto k = make_cpu_backend();
  model->evaluate(*k, dataset(p, false), RowSelection{rows.data(), rows.size()}, params.data(), &stats);
  const double mean = stats.loss_sum / stats.count;
  EXPECT_GT(mean, 0.95 * std::log(10.0));
  EXPECT_LT(mean, 1.2 * std::log(10.0)) << "mean loss at init " << mean;
}

TEST(MlpModel, EvaluateInChunksAgreesWithTheGradientPassAndL2SkipsBiases) {
  const auto p = random_problem(600, 7, 3, 51);  // more rows than one evaluation chunk
  const Dataset data = dataset(p, true);
  auto plain = make_model(mlp({5, 4}, 0.0), p.cols, p.classes);
  auto reg = make_model(mlp({5, 4}, 0.5), p.cols, p.classes);
  const auto params = random_vector(plain->num_parameters(), 0.7f, 52);
  const auto rows = all_rows(p.rows);
  const RowSelection sel{rows.data(), rows.size()};
  auto k = make_cpu_backend();
  LossStats eval, train;
  std::vector<float> g0(params.size()), g1(params.size());
  plain->evaluate(*k, data, sel, params.data(), &eval);
  plain->gradient(*k, data, sel, params.data(), g0.data(), &train);
  EXPECT_EQ(eval.count, 600u);
  EXPECT_EQ(eval.correct, train.correct);
  EXPECT_NEAR(eval.loss_sum, train.loss_sum, 1e-9 * train.loss_sum);

  reg->gradient(*k, data, sel, params.data(), g1.data(), nullptr);
  // Layout: W0 7x5, b0 5, W1 5x4, b1 4, W2 4x3, b2 3.
  const std::vector<std::pair<std::size_t, std::size_t>> biases = {{35, 5}, {60, 4}, {76, 3}};
  double weights_sq = 0.0;
  for (std::size_t i = 0; i < params.size(); ++i) {
    bool is_bias = false;
    for (auto [start, len] : biases) is_bias |= i >= start && i < start + len;
    if (is_bias) {
      EXPECT_EQ(g1[i], g0[i]) << "bias " << i;
    } else {
      EXPECT_NEAR(g1[i] - g0[i], 0.5 * params[i], 1e-6) << "weight " << i;
      weights_sq += double(params[i]) * params[i];
    }
  }
  EXPECT_NEAR(reg->regularizer(params.data()), 0.25 * weights_sq, 1e-9);
}

TEST(MlpModel, AnEmptySelectionGivesOnlyTheL2Gradient) {
  const auto p = random_problem(4, 3, 2, 61);
  auto model = make_model(mlp({2}, 1.0), p.cols, p.classes);
  const auto params = random_vector(model->num_parameters(), 1.0f, 62);
  std::vector<float> grad(params.size(), 99.0f);
  LossStats stats;
  auto k = make_cpu_backend();
  model->gradient(*k, dataset(p, false), RowSelection{nullptr, 0}, params.data(), grad.data(), &stats);
  EXPECT_EQ(stats.count, 0u);
  for (std::size_t i = 0; i < params.size(); ++i) {
    const bool bias = (i >= 6 && i < 8) || i >= 12;  // W0 3x2, b0 2, W1 2x2, b1 2
    EXPECT_FLOAT_EQ(grad[i], bias ? 0.0f : params[i]) << "parameter " << i;
  }
}

TEST(MlpModel, MakeModelRejectsWhatItCannotBuild) {
  auto expect_error = [](const ModelSection& s, std::size_t features, std::size_t classes) {
    try {
      make_model(s, features, classes);
      ADD_FAILURE() << "no error for " << features << " features, " << classes << " classes";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("mlp"), std::string::npos) << e.what();
    }
  };
  expect_error(mlp({}, 0.0), 10, 3);
  expect_error(mlp({8, 0}, 0.0), 10, 3);
  expect_error(mlp({8}, 0.0), 0, 3);
  expect_error(mlp({8}, 0.0), 10, 0);
  expect_error(mlp({8}, -1.0), 10, 3);
  expect_error(mlp({1u << 20, 1u << 20, 1u << 20}, 0.0), 10, 3);
  EXPECT_EQ(make_model(mlp({8}, 0.0), 10, 3)->name(), "mlp");

  const Dataset wide = dataset(random_problem(3, 6, 2, 71), true);
  auto model = make_model(mlp({2}, 0.0), 4, 2);
  std::vector<float> params(model->num_parameters()), grad(params.size());
  const std::vector<std::uint32_t> rows = {0};
  auto k = make_cpu_backend();
  EXPECT_THROW(model->gradient(*k, wide, RowSelection{rows.data(), 1}, params.data(), grad.data(), nullptr),
               DataError);
}

}  // namespace
}  // namespace pstwin
