// The linear models: gradients (with L2) against finite differences, L2 leaving biases alone,
// the parameter layout, and make_model's errors.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/errors.h"
#include "runtime/model/model.h"
#include "tests/kernel_test_problems.h"
#include "tests/model_test_support.h"

namespace pstwin {
namespace {

using testing::expect_gradient_matches_finite_differences;
using testing::random_problem;
using testing::random_vector;

/// A Dataset holding a random problem in the chosen layout.
Dataset random_dataset(std::size_t rows, std::size_t cols, std::size_t classes, bool sparse,
                       std::uint32_t seed) {
  testing::Problem p = random_problem(rows, cols, classes, seed);
  Dataset d;
  d.source = "random";
  d.rows = rows;
  d.cols = cols;
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
  d.num_classes = classes;
  return d;
}

ModelSection section(const std::string& type, double l2) {
  ModelSection s;
  s.type = type;
  s.l2 = l2;
  return s;
}

struct Case {
  std::string type;
  bool sparse;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.type << (c.sparse ? " csr" : " dense"); }

class ModelTest : public ::testing::TestWithParam<Case> {
 protected:
  std::size_t classes() const { return GetParam().type == "logistic" ? 2 : 3; }
  std::unique_ptr<KernelBackend> k = make_cpu_backend();
};

TEST_P(ModelTest, GradientWithL2MatchesFiniteDifferencesOfTheFullLoss) {
  const Dataset data = random_dataset(15, 6, classes(), GetParam().sparse, 7);
  auto model = make_model(section(GetParam().type, 0.3), data.cols, data.num_classes);
  const std::vector<std::uint32_t> rows = {0, 1, 2, 4, 6, 6, 9, 14};
  const RowSelection sel{rows.data(), rows.size()};
  const auto params = random_vector(model->num_parameters(), 0.6f, 8);
  std::vector<float> grad(params.size(), 99.0f);
  LossStats stats;
  model->gradient(*k, data, sel, params.data(), grad.data(), &stats);
  EXPECT_EQ(stats.count, rows.size());

  expect_gradient_matches_finite_differences(*model, *k, data, sel, params, grad, 1e-2f, 1e-3, 1e-4);
}

TEST_P(ModelTest, L2AddsLambdaTimesWeightsAndLeavesBiasesAlone) {
  const Dataset data = random_dataset(10, 5, classes(), GetParam().sparse, 17);
  const double lambda = 0.5;
  auto plain = make_model(section(GetParam().type, 0.0), data.cols, data.num_classes);
  auto l2 = make_model(section(GetParam().type, lambda), data.cols, data.num_classes);
  std::vector<std::uint32_t> rows(data.rows);
  std::iota(rows.begin(), rows.end(), 0u);
  const RowSelection sel{rows.data(), rows.size()};
  const auto params = random_vector(l2->num_parameters(), 1.0f, 18);  // biases are non-zero
  std::vector<float> g0(params.size()), g1(params.size());
  const Cost c0 = plain->gradient(*k, data, sel, params.data(), g0.data(), nullptr);
  const Cost c1 = l2->gradient(*k, data, sel, params.data(), g1.data(), nullptr);

  const std::size_t stride = data.cols + 1;
  const std::size_t blocks = params.size() / stride;
  double weights_sq = 0.0;
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (i % stride == data.cols) {
      EXPECT_EQ(g1[i], g0[i]) << "bias " << i << " must not be regularised";
    } else {
      EXPECT_NEAR(g1[i] - g0[i], lambda * params[i], 1e-6) << "weight " << i;
      weights_sq += double(params[i]) * params[i];
    }
  }
  EXPECT_NEAR(l2->regularizer(params.data()), lambda / 2 * weights_sq, 1e-9);
  EXPECT_EQ(plain->regularizer(params.data()), 0.0);
  // The L2 term is one axpy over each block's weights: 2 flops and 12 bytes per weight.
  EXPECT_DOUBLE_EQ(c1.flops - c0.flops, 2.0 * blocks * data.cols);
  EXPECT_DOUBLE_EQ(c1.bytes - c0.bytes, 12.0 * blocks * data.cols);
}

TEST_P(ModelTest, LayoutInitAndEvaluate) {
  const Dataset data = random_dataset(8, 4, classes(), GetParam().sparse, 27);
  auto model = make_model(section(GetParam().type, 0.1), data.cols, data.num_classes);
  EXPECT_EQ(model->name(), GetParam().type);
  const std::size_t blocks = GetParam().type == "logistic" ? 1 : classes();
  EXPECT_EQ(model->num_parameters(), blocks * (data.cols + 1));

  std::vector<float> params(model->num_parameters(), 5.0f);
  Rng rng(1);
  model->init(params.data(), rng);
  for (float p : params) EXPECT_EQ(p, 0.0f);

  // At zero parameters every row loses log(number of classes).
  std::vector<std::uint32_t> rows(data.rows);
  std::iota(rows.begin(), rows.end(), 0u);
  LossStats stats;
  model->evaluate(*k, data, RowSelection{rows.data(), rows.size()}, params.data(), &stats);
  EXPECT_EQ(stats.count, data.rows);
  EXPECT_NEAR(stats.loss_sum, data.rows * std::log(double(classes())), 1e-9);
}

INSTANTIATE_TEST_SUITE_P(Models, ModelTest,
                         ::testing::Values(Case{"logistic", true}, Case{"logistic", false},
                                           Case{"softmax", true}, Case{"softmax", false}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.type + (info.param.sparse ? "Csr" : "Dense");
                         });

TEST(ModelRegularizer, ClosedFormSkipsBiases) {
  auto logistic = make_model(section("logistic", 0.5), 2, 2);
  const std::vector<float> w = {1, 2, 5};  // weights 1, 2; bias 5
  EXPECT_DOUBLE_EQ(logistic->regularizer(w.data()), 0.25 * (1 + 4));
  auto softmax = make_model(section("softmax", 2.0), 1, 3);
  const std::vector<float> v = {1, 9, -2, 9, 3, 9};  // (weight, bias) per class
  EXPECT_DOUBLE_EQ(softmax->regularizer(v.data()), 1.0 * (1 + 4 + 9));
}

TEST(ModelWidth, SparseTestSetWithFewerColumnsUsesTheModelWidth) {
  // A CSR test set whose highest feature index is lower than the training set's.
  const Dataset narrow = random_dataset(6, 3, 2, true, 37);
  auto model = make_model(section("logistic", 1.0), 5, 2);
  const auto params = random_vector(model->num_parameters(), 1.0f, 38);
  std::vector<float> grad(params.size());
  const std::vector<std::uint32_t> rows = {0, 1, 3};
  auto k = make_cpu_backend();
  model->gradient(*k, narrow, RowSelection{rows.data(), rows.size()}, params.data(),
                  grad.data(), nullptr);
  // Features 3 and 4 never occur, so only the L2 term moves them.
  EXPECT_NEAR(grad[3], params[3], 1e-7);
  EXPECT_NEAR(grad[4], params[4], 1e-7);
}

TEST(ModelWidth, DataWiderThanTheModelIsRejected) {
  const Dataset wide = random_dataset(6, 7, 3, true, 47);
  auto model = make_model(section("softmax", 0.0), 5, 3);
  std::vector<float> params(model->num_parameters(), 0.0f), grad(params.size());
  const std::vector<std::uint32_t> rows = {0};
  auto k = make_cpu_backend();
  EXPECT_THROW(model->gradient(*k, wide, RowSelection{rows.data(), 1}, params.data(), grad.data(),
                               nullptr),
               DataError);
}

TEST(MakeModel, RejectsWhatItCannotBuild) {
  auto expect_error = [](const std::string& type, std::size_t features, std::size_t classes,
                         const std::string& mention) {
    try {
      make_model(section(type, 0.0), features, classes);
      ADD_FAILURE() << "no error for type " << type << ", " << features << " features, "
                    << classes << " classes";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(mention), std::string::npos)
          << "message \"" << e.what() << "\" does not mention \"" << mention << "\"";
    }
  };
  expect_error("mlp", 10, 2, "mlp");
  expect_error("", 10, 2, "unknown");
  expect_error("synthetic", 10, 2, "synthetic");
  expect_error("logistic", 10, 3, "3 classes");
  expect_error("logistic", 0, 2, "feature");
  expect_error("softmax", 0, 10, "feature");
  expect_error("softmax", 10, 0, "class");
  EXPECT_THROW(make_model(section("logistic", -1.0), 10, 2), std::invalid_argument);
  EXPECT_NO_THROW(make_model(section("logistic", 0.0), 10, 2));
  EXPECT_NO_THROW(make_model(section("softmax", 0.0), 10, 2));
}

}  // namespace
}  // namespace pstwin
