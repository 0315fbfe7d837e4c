// MfModel: biased matrix factorisation on ratings, dense (whole-vector) and sparse (touched rows)
// gradients through KernelBackend::matrix_factorization.
#include "runtime/model/mf_model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "runtime/data/ratings.h"
#include "runtime/errors.h"
#include "runtime/count_text.h"

namespace pstwin {

MfModel::MfModel(std::size_t num_users, std::size_t num_items, double train_mean, std::size_t rank,
                 double l2, double init_scale)
    : users_(num_users),
      items_(num_items),
      mean_(static_cast<float>(train_mean)),
      rank_(rank),
      l2_(l2),
      init_scale_(init_scale) {
  if (rank == 0) throw std::invalid_argument("an mf model needs rank >= 1");
  if (!(l2 >= 0.0) || !std::isfinite(l2))
    throw std::invalid_argument("the L2 coefficient of an mf model must be a finite number >= 0");
  if (!(init_scale >= 0.0) || !std::isfinite(init_scale))
    throw std::invalid_argument("init_scale of an mf model must be a finite number >= 0");
  if (num_users == 0 || num_items == 0)
    throw std::invalid_argument("an mf model needs at least one user and one item");
}

void MfModel::init(float* params, Rng& rng) const {
  const std::size_t w = width();
  for (std::size_t r = 0; r < users_ + items_; ++r) {
    float* row = params + r * w;
    row[0] = 0.0f;
    for (std::size_t f = 1; f < w; ++f) row[f] = static_cast<float>(init_scale_ * rng.normal());
  }
}

double MfModel::metric(const LossStats& stats) const {
  return stats.count ? std::sqrt(stats.loss_sum / static_cast<double>(stats.count)) : 0.0;
}

const Ratings& MfModel::ratings_of(const Dataset& data) const {
  if (!data.ratings)
    throw DataError(data.source, 0, "the mf model needs ratings data (data format \"ratings\")");
  const Ratings& r = *data.ratings;
  if (r.num_users != users_ || r.num_items != items_)
    throw DataError(data.source, 0,
                    "the ratings have " + count_text(r.num_users, "user") + " and " +
                        count_text(r.num_items, "item") + "; the mf model was built for " +
                        std::to_string(users_) + " and " + std::to_string(items_));
  return r;
}

template <typename RowOf>
Cost MfModel::run(KernelBackend& k, const Dataset& data, RowSelection sel, const float* rows,
                  std::size_t n_rows, RowOf row_of, float* grad, LossStats* stats) const {
  const Ratings& r = ratings_of(data);
  std::vector<std::uint32_t> user_row(sel.count), item_row(sel.count);
  std::vector<float> rating(sel.count);
  for (std::size_t j = 0; j < sel.count; ++j) {
    const std::uint32_t idx = sel.rows[j];
    if (idx >= r.size())
      throw std::out_of_range("mf: rating " + std::to_string(idx) + " of " + std::to_string(r.size()));
    user_row[j] = row_of(r.user[idx]);
    item_row[j] = row_of(users_ + r.item[idx]);
    rating[j] = r.value[idx];
  }
  const MfBatch batch{sel.count, user_row.data(), item_row.data(), rating.data()};
  return k.matrix_factorization(rows, n_rows, rank_, batch, mean_, static_cast<float>(l2_), grad,
                                stats);
}

Cost MfModel::gradient(KernelBackend& k, const Dataset& data, RowSelection sel, const float* params,
                       float* grad, LossStats* stats) const {
  auto identity = [](std::uint64_t key) { return static_cast<std::uint32_t>(key); };
  return run(k, data, sel, params, users_ + items_, identity, grad, stats);
}

Cost MfModel::evaluate(KernelBackend& k, const Dataset& data, RowSelection sel, const float* params,
                       LossStats* stats) const {
  auto identity = [](std::uint64_t key) { return static_cast<std::uint32_t>(key); };
  return run(k, data, sel, params, users_ + items_, identity, nullptr, stats);
}

std::vector<std::uint64_t> MfModel::batch_keys(const Dataset& data, RowSelection sel) const {
  const Ratings& r = ratings_of(data);
  std::vector<std::uint64_t> keys;
  keys.reserve(2 * sel.count);
  for (std::size_t j = 0; j < sel.count; ++j) {
    const std::uint32_t idx = sel.rows[j];
    if (idx >= r.size())
      throw std::out_of_range("mf: rating " + std::to_string(idx) + " of " + std::to_string(r.size()));
    keys.push_back(r.user[idx]);
    keys.push_back(users_ + r.item[idx]);
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

Cost MfModel::sparse_gradient(KernelBackend& k, const Dataset& data, RowSelection sel,
                              const std::vector<std::uint64_t>& keys, const float* rows,
                              float* grad, LossStats* stats) const {
  auto slot = [&keys](std::uint64_t key) {
    const auto it = std::lower_bound(keys.begin(), keys.end(), key);
    if (it == keys.end() || *it != key)
      throw std::invalid_argument("mf: the batch touches key " + std::to_string(key) +
                                  ", which is not among the pulled keys");
    return static_cast<std::uint32_t>(it - keys.begin());
  };
  Cost cost = run(k, data, sel, rows, keys.size(), slot, grad, stats);
  cost.bytes += 40.0 * static_cast<double>(sel.count);
  return cost;
}

std::unique_ptr<Model> make_mf_model(const ModelSection& section, const Dataset& train) {
  if (!train.ratings)
    throw std::invalid_argument("model type \"mf\" needs ratings data (data format \"ratings\")");
  const Ratings& r = *train.ratings;
  return std::make_unique<MfModel>(r.num_users, r.num_items, r.train_mean, section.rank,
                                   section.l2, section.init_scale);
}

}  // namespace pstwin
