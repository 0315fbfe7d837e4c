// Matrix factorisation: the kernel against finite differences, and MfModel's layout, sparse
// (touched rows) gradient against its dense gradient, keys, metric and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <vector>

#include "runtime/data/ratings.h"
#include "runtime/errors.h"
#include "runtime/model/mf_model.h"
#include "tests/kernel_test_problems.h"

namespace pstwin {
namespace {

using testing::close;
using testing::random_vector;

/// The full per-batch objective in double: mean over ratings of e^2 + l2 (|row_u|^2 + |row_i|^2).
double objective(const std::vector<float>& rows, std::size_t rank, const MfBatch& b, double mean,
                 double l2) {
  const std::size_t w = rank + 1;
  double sum = 0.0;
  for (std::size_t j = 0; j < b.count; ++j) {
    const float* u = rows.data() + b.user_row[j] * w;
    const float* i = rows.data() + b.item_row[j] * w;
    double pred = mean + u[0] + i[0];
    double norms = static_cast<double>(u[0]) * u[0] + static_cast<double>(i[0]) * i[0];
    for (std::size_t f = 1; f < w; ++f) {
      pred += static_cast<double>(u[f]) * i[f];
      norms += static_cast<double>(u[f]) * u[f] + static_cast<double>(i[f]) * i[f];
    }
    const double e = b.rating[j] - pred;
    sum += e * e + l2 * norms;
  }
  return sum / static_cast<double>(b.count);
}

TEST(MfKernel, GradientMatchesFiniteDifferencesAndLossIsTheSquaredErrors) {
  auto k = make_cpu_backend();
  // rank 11: not a multiple of the eight-wide inner loops. Row 3 is touched by no rating; rows 0
  // and 5 by several, and row 2 is both a "user" and an "item" row.
  const std::size_t rank = 11, n_rows = 7, w = rank + 1;
  const std::vector<std::uint32_t> user = {0, 0, 1, 2, 5, 0};
  const std::vector<std::uint32_t> item = {4, 5, 5, 6, 2, 6};
  const std::vector<float> rating = {4.0f, 3.5f, 1.0f, 5.0f, 2.5f, 3.0f};
  const MfBatch batch{user.size(), user.data(), item.data(), rating.data()};
  std::vector<float> rows = random_vector(n_rows * w, 0.4f, 3);
  const float mean = 3.2f, l2 = 0.07f;

  std::vector<float> grad(n_rows * w, 99.0f);
  LossStats stats;
  const Cost cost = k->matrix_factorization(rows.data(), n_rows, rank, batch, mean, l2,
                                            grad.data(), &stats);
  EXPECT_EQ(stats.count, 6u);
  EXPECT_EQ(stats.correct, 0u);
  EXPECT_TRUE(close(stats.loss_sum, 6.0 * objective(rows, rank, batch, mean, 0.0), 1e-5, 1e-6));
  for (std::size_t f = 0; f < w; ++f) EXPECT_EQ(grad[3 * w + f], 0.0f) << "untouched row";

  const double h = 1e-3;
  for (std::size_t p = 0; p < rows.size(); ++p) {
    std::vector<float> plus = rows, minus = rows;
    plus[p] += static_cast<float>(h);
    minus[p] -= static_cast<float>(h);
    const double fd = (objective(plus, rank, batch, mean, l2) -
                       objective(minus, rank, batch, mean, l2)) /
                      (static_cast<double>(plus[p]) - minus[p]);
    EXPECT_TRUE(close(grad[p], fd, 2e-3, 2e-4)) << "parameter " << p << ": " << grad[p] << " vs " << fd;
  }

  // Cost: count (2r+6) + count (8r+10) flops; 12 count + 4w min(n_rows, 2 count) + 4w n_rows bytes.
  EXPECT_DOUBLE_EQ(cost.flops, 6.0 * (2 * 11 + 6) + 6.0 * (8 * 11 + 10));
  EXPECT_DOUBLE_EQ(cost.bytes, 12.0 * 6 + 4.0 * 12 * 7 + 4.0 * 12 * 7);
  LossStats fwd;
  const Cost fwd_cost = k->matrix_factorization(rows.data(), n_rows, rank, batch, mean, l2,
                                                nullptr, &fwd);
  EXPECT_EQ(fwd.loss_sum, stats.loss_sum);
  EXPECT_DOUBLE_EQ(fwd_cost.flops, 6.0 * (2 * 11 + 6));
}

TEST(MfKernel, EmptyBatchAndBadRowIndex) {
  auto k = make_cpu_backend();
  std::vector<float> rows(3 * 3, 1.0f), grad(9, 5.0f);
  LossStats s;
  k->matrix_factorization(rows.data(), 3, 2, MfBatch{}, 0.0f, 0.1f, grad.data(), &s);
  EXPECT_EQ(s.count, 0u);
  EXPECT_EQ(grad, std::vector<float>(9, 0.0f));
  const std::uint32_t u = 0, i = 3;
  const float r = 1.0f;
  EXPECT_THROW(k->matrix_factorization(rows.data(), 3, 2, MfBatch{1, &u, &i, &r}, 0.0f, 0.1f,
                                       grad.data(), &s),
               std::out_of_range);
}

/// A ratings Dataset over 5 users and 6 items.
Dataset toy_ratings() {
  auto r = std::make_shared<Ratings>();
  r->user = {0, 1, 4, 4, 2, 0, 3};
  r->item = {5, 0, 5, 2, 2, 1, 3};
  r->value = {4, 3, 5, 2, 1, 4.5, 3};
  r->num_users = 5;
  r->num_items = 6;
  r->train_mean = 3.21;
  Dataset d;
  d.source = "toy";
  d.rows = r->size();
  d.ratings = r;
  return d;
}

ModelSection mf_section(std::uint64_t rank, double l2) {
  ModelSection s;
  s.type = "mf";
  s.rank = rank;
  s.l2 = l2;
  s.init_scale = 0.3;
  return s;
}

TEST(MfModel, LayoutInitMetricAndKeys) {
  const Dataset data = toy_ratings();
  const auto model = make_mf_model(mf_section(4, 0.05), data);
  EXPECT_EQ(model->name(), "mf");
  EXPECT_TRUE(model->sparse());
  EXPECT_EQ(model->values_per_key(), 5u);
  EXPECT_EQ(model->num_parameters(), (5u + 6u) * 5u);
  EXPECT_EQ(model->metric_name(), "rmse");
  EXPECT_FALSE(model->higher_is_better());
  LossStats s;
  s.loss_sum = 8.0;
  s.count = 2;
  EXPECT_DOUBLE_EQ(model->metric(s), 2.0);

  std::vector<float> params(model->num_parameters(), 7.0f);
  Rng rng(1);
  model->init(params.data(), rng);
  double sq = 0;
  for (std::size_t row = 0; row < 11; ++row) {
    EXPECT_EQ(params[row * 5], 0.0f) << "biases start at zero";
    for (std::size_t f = 1; f < 5; ++f) sq += params[row * 5 + f] * params[row * 5 + f];
  }
  EXPECT_NEAR(std::sqrt(sq / 44.0), 0.3, 0.12);

  // Ratings 2 (user 4, item 5) and 5 (user 0, item 1): users are keys 0..4, items 5 + item.
  const std::vector<std::uint32_t> sel = {2, 5, 2};
  EXPECT_EQ(model->batch_keys(data, RowSelection{sel.data(), sel.size()}),
            (std::vector<std::uint64_t>{0, 4, 6, 10}));
}

TEST(MfModel, SparseGradientEqualsTheDenseGradientOnTheTouchedRows) {
  const Dataset data = toy_ratings();
  const auto model = make_mf_model(mf_section(3, 0.1), data);
  const std::size_t w = model->values_per_key();
  auto k = make_cpu_backend();
  const auto params = random_vector(model->num_parameters(), 0.5f, 11);
  const std::vector<std::uint32_t> sel_rows = {0, 2, 3, 6, 2};
  const RowSelection sel{sel_rows.data(), sel_rows.size()};

  std::vector<float> dense(model->num_parameters());
  LossStats dense_stats;
  model->gradient(*k, data, sel, params.data(), dense.data(), &dense_stats);

  const auto keys = model->batch_keys(data, sel);
  std::vector<float> rows, sparse(keys.size() * w);
  for (auto key : keys) rows.insert(rows.end(), params.begin() + key * w, params.begin() + (key + 1) * w);
  LossStats sparse_stats;
  model->sparse_gradient(*k, data, sel, keys, rows.data(), sparse.data(), &sparse_stats);
  EXPECT_EQ(sparse_stats.loss_sum, dense_stats.loss_sum);
  EXPECT_EQ(sparse_stats.count, 5u);

  std::vector<bool> touched(model->num_parameters() / w, false);
  for (std::size_t s = 0; s < keys.size(); ++s) {
    touched[keys[s]] = true;
    for (std::size_t f = 0; f < w; ++f) EXPECT_EQ(sparse[s * w + f], dense[keys[s] * w + f]);
  }
  for (std::size_t key = 0; key < touched.size(); ++key) {
    if (touched[key]) continue;
    for (std::size_t f = 0; f < w; ++f) EXPECT_EQ(dense[key * w + f], 0.0f) << "key " << key;
  }

  // A key missing from the pulled set is an error, not a silent zero.
  std::vector<std::uint64_t> fewer(keys.begin() + 1, keys.end());
  EXPECT_THROW(model->sparse_gradient(*k, data, sel, fewer, rows.data() + w, sparse.data(), nullptr),
               std::invalid_argument);
}

TEST(MfModel, EvaluateGivesTheRmseOfTheMeanPredictorAtZeroParameters) {
  const Dataset data = toy_ratings();
  const auto model = make_mf_model(mf_section(2, 0.0), data);
  auto k = make_cpu_backend();
  const std::vector<float> zeros(model->num_parameters(), 0.0f);
  std::vector<std::uint32_t> all(data.rows);
  for (std::uint32_t i = 0; i < all.size(); ++i) all[i] = i;
  LossStats s;
  model->evaluate(*k, data, RowSelection{all.data(), all.size()}, zeros.data(), &s);
  double sq = 0;
  for (float r : data.ratings->value) sq += (r - 3.21f) * (r - 3.21f);
  EXPECT_NEAR(model->metric(s), std::sqrt(sq / 7.0), 1e-6);
  EXPECT_EQ(model->regularizer(zeros.data()), 0.0);
}

TEST(MfModel, ErrorsNameTheProblem) {
  Dataset no_ratings;
  no_ratings.source = "plain";
  EXPECT_THROW(make_mf_model(mf_section(4, 0.0), no_ratings), std::invalid_argument);
  EXPECT_THROW(make_mf_model(mf_section(0, 0.0), toy_ratings()), std::invalid_argument);
  EXPECT_THROW(make_mf_model(mf_section(4, -1.0), toy_ratings()), std::invalid_argument);
  const auto model = make_mf_model(mf_section(2, 0.0), toy_ratings());
  auto k = make_cpu_backend();
  std::vector<float> params(model->num_parameters());
  const std::uint32_t row = 0;
  EXPECT_THROW(model->evaluate(*k, no_ratings, RowSelection{&row, 1}, params.data(), nullptr),
               DataError);
  // A dense model has no sparse interface.
  ModelSection lin;
  lin.type = "logistic";
  const auto logistic = make_model(lin, 3, 2);
  EXPECT_FALSE(logistic->sparse());
  EXPECT_EQ(logistic->values_per_key(), 1u);
  EXPECT_EQ(logistic->metric_name(), "accuracy");
  EXPECT_THROW(logistic->batch_keys(no_ratings, RowSelection{}), std::logic_error);
}

}  // namespace
}  // namespace pstwin
