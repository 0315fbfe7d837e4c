// The linear models (binary logistic and multinomial softmax regression) and make_model.
#include <cmath>
#include <stdexcept>
#include <string>

#include "runtime/errors.h"
#include "runtime/model/mlp_model.h"
#include "runtime/model/model.h"

namespace pstwin {
namespace {

/// Shared by both linear models: `classes` parameter rows of `features` weights then one bias,
/// row-major, so row c starts at c * (features + 1). L2 applies to the weights only.
class LinearModel : public Model {
 public:
  LinearModel(std::size_t features, std::size_t classes, double l2)
      : features_(features), classes_(classes), l2_(l2) {}

  std::uint64_t num_parameters() const override { return classes_ * (features_ + 1); }

  void init(float* params, Rng& /*rng*/) const override {
    for (std::uint64_t i = 0; i < num_parameters(); ++i) params[i] = 0.0f;
  }

  double regularizer(const float* params) const override {
    if (l2_ == 0.0) return 0.0;
    double sum = 0.0;
    for (std::size_t c = 0; c < classes_; ++c) {
      const float* w = params + c * (features_ + 1);
      for (std::size_t j = 0; j < features_; ++j) sum += static_cast<double>(w[j]) * w[j];
    }
    return 0.5 * l2_ * sum;
  }

  Cost gradient(KernelBackend& k, const Dataset& data, RowSelection sel, const float* params,
                float* grad, LossStats* stats) const override {
    Cost cost = data_term(k, data, sel, params, grad, stats);
    if (l2_ != 0.0) {
      const float lambda = static_cast<float>(l2_);
      for (std::size_t c = 0; c < classes_; ++c) {
        const std::size_t row = c * (features_ + 1);
        cost += k.axpy(grad + row, params + row, features_, lambda);  // weights, not the bias
      }
    }
    return cost;
  }

  Cost evaluate(KernelBackend& k, const Dataset& data, RowSelection sel, const float* params,
                LossStats* stats) const override {
    return data_term(k, data, sel, params, nullptr, stats);
  }

 protected:
  /// The kernel call for the mean data loss (and its gradient when grad is non-null).
  virtual Cost data_term(KernelBackend& k, const Dataset& data, RowSelection sel,
                         const float* params, float* grad, LossStats* stats) const = 0;

  /// data.view(features_), checked to have exactly the model's width: a wider CSR matrix would
  /// index past the parameters. Throws DataError naming the data source otherwise.
  FeatureView view(const Dataset& data) const {
    FeatureView v = data.view(features_);
    if (v.cols() != features_) {
      throw DataError(data.source, 0,
                      "the data has " + std::to_string(v.cols()) + " feature columns; the " +
                          name() + " model was built for " + std::to_string(features_));
    }
    return v;
  }

  std::size_t features_;
  std::size_t classes_;
  double l2_;
};

/// Binary logistic regression: params are d weights then the bias; labels from labels01.
class LogisticModel final : public LinearModel {
 public:
  LogisticModel(std::size_t features, double l2) : LinearModel(features, 1, l2) {}
  std::string name() const override { return "logistic"; }

 protected:
  Cost data_term(KernelBackend& k, const Dataset& data, RowSelection sel, const float* params,
                 float* grad, LossStats* stats) const override {
    if (data.labels01.size() != data.rows) {
      throw DataError(data.source, 0, "binary labels (labels01) are missing for the logistic model");
    }
    return k.logistic(view(data), data.labels01.data(), sel, params, grad, stats);
  }
};

/// Multinomial regression: a k x (d+1) block, class c's weights then its bias; labels from labels.
class SoftmaxModel final : public LinearModel {
 public:
  SoftmaxModel(std::size_t features, std::size_t classes, double l2)
      : LinearModel(features, classes, l2) {}
  std::string name() const override { return "softmax"; }

 protected:
  Cost data_term(KernelBackend& k, const Dataset& data, RowSelection sel, const float* params,
                 float* grad, LossStats* stats) const override {
    if (data.labels.size() != data.rows) {
      throw DataError(data.source, 0, "class labels are missing for the softmax model");
    }
    return k.softmax(view(data), data.labels.data(), classes_, sel, params, grad, stats);
  }
};

}  // namespace

std::unique_ptr<Model> make_model(const ModelSection& section, std::size_t features,
                                  std::size_t num_classes) {
  const std::string& type = section.type;
  if (type == "synthetic") {
    throw std::invalid_argument(
        "model type \"synthetic\" has no math: it only prices compute and traffic, so it cannot "
        "be built as a trainable model");
  }
  if (type == "mlp") return make_mlp_model(section, features, num_classes);
  if (type != "logistic" && type != "softmax") {
    throw std::invalid_argument("unknown model type \"" + type +
                                "\" (expected \"logistic\", \"softmax\" or \"mlp\")");
  }
  if (features == 0) {
    throw std::invalid_argument("a " + type + " model needs at least one feature; the data has 0");
  }
  if (!(section.l2 >= 0.0) || !std::isfinite(section.l2)) {
    throw std::invalid_argument("the L2 coefficient of a " + type +
                                " model must be a finite number >= 0, not " +
                                std::to_string(section.l2));
  }
  if (type == "logistic") {
    if (num_classes > 2) {
      throw std::invalid_argument("a logistic model is binary, but the data has " +
                                  std::to_string(num_classes) +
                                  " classes; use model type \"softmax\"");
    }
    return std::make_unique<LogisticModel>(features, section.l2);
  }
  if (num_classes == 0) {
    throw std::invalid_argument("a softmax model needs at least one class; the data has 0");
  }
  return std::make_unique<SoftmaxModel>(features, num_classes, section.l2);
}

}  // namespace pstwin
