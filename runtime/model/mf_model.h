// Matrix factorisation for recommendation: the classic sparse parameter-server model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/model/model.h"

namespace pstwin {

/// Biased matrix factorisation (Koren, Bell and Volinsky, IEEE Computer 2009) over ratings data
/// (Dataset::ratings). Prediction for user u and item i:
///   r_hat = mu + b_u + b_i + p_u . q_i
/// where mu is the training split's mean rating, a constant of the model (not a parameter), and
/// the biases b and factor vectors p, q (length `rank`) are parameters.
///
/// Parameter layout: U user rows, then I item rows, each row [bias, factor_1..factor_rank] of
/// w = 1 + rank floats; key k is row k (values_per_key() = w): user u is key u, item i is key
/// U + i. num_parameters() = (U + I) * w. Initial parameters: biases 0, factors init_scale *
/// N(0, 1) from the scheduler's Rng.
///
/// Loss of one rating: e^2 + l2 * (||row_u||^2 + ||row_i||^2) with e = r - r_hat, so only the
/// rows a mini-batch touches are regularised, once per rating that touches them; the gradient is
/// the mean over the batch (KernelBackend::matrix_factorization). Reported losses (train_loss,
/// test_loss) are the mean squared error alone: regularizer() is 0, because the L2 term is
/// counted per rating rather than over the parameter vector. Test metric: RMSE, the square root of
/// the test MSE; lower is better.
class MfModel final : public Model {
 public:
  /// Throws std::invalid_argument for rank 0, l2 < 0, init_scale < 0 or no users or items.
  MfModel(std::size_t num_users, std::size_t num_items, double train_mean, std::size_t rank,
          double l2, double init_scale);

  std::string name() const override { return "mf"; }
  std::uint64_t num_parameters() const override { return (users_ + items_) * width(); }
  void init(float* params, Rng& rng) const override;
  Cost gradient(KernelBackend& k, const Dataset& data, RowSelection sel, const float* params,
                float* grad, LossStats* stats) const override;
  Cost evaluate(KernelBackend& k, const Dataset& data, RowSelection sel, const float* params,
                LossStats* stats) const override;
  double regularizer(const float* /*params*/) const override { return 0.0; }

  std::string metric_name() const override { return "rmse"; }
  bool higher_is_better() const override { return false; }
  /// sqrt(loss_sum / count): the RMSE of the evaluated ratings (0 when there are none).
  double metric(const LossStats& stats) const override;

  std::size_t values_per_key() const override { return width(); }
  bool sparse() const override { return true; }
  std::vector<std::uint64_t> batch_keys(const Dataset& data, RowSelection sel) const override;
  /// Also charges building the batch: 40 bytes per rating (reading its user, item and rating,
  /// writing the kernel's three arrays, and the two key lookups).
  Cost sparse_gradient(KernelBackend& k, const Dataset& data, RowSelection sel,
                       const std::vector<std::uint64_t>& keys, const float* rows, float* grad,
                       LossStats* stats) const override;

  std::size_t num_users() const { return users_; }
  std::size_t num_items() const { return items_; }
  std::size_t rank() const { return rank_; }

 private:
  std::size_t width() const { return rank_ + 1; }
  /// The Ratings of `data`, checked to fit this model; throws DataError naming data.source.
  const Ratings& ratings_of(const Dataset& data) const;
  /// Runs the kernel over `sel` with each rating's rows looked up by `row_of(key)`.
  template <typename RowOf>
  Cost run(KernelBackend& k, const Dataset& data, RowSelection sel, const float* rows,
           std::size_t n_rows, RowOf row_of, float* grad, LossStats* stats) const;

  std::size_t users_;
  std::size_t items_;
  float mean_;
  std::size_t rank_;
  double l2_;
  double init_scale_;
};

/// Builds the "mf" model of `section` (rank, l2, init_scale) for the ratings in `train` (its
/// user and item counts and training mean). Throws std::invalid_argument naming the problem when
/// `train` holds no ratings or a value is out of range.
std::unique_ptr<Model> make_mf_model(const ModelSection& section, const Dataset& train);

}  // namespace pstwin
