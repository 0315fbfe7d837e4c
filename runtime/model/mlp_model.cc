// The multi-layer perceptron (model type "mlp"): layout and init in mlp_model.h; forward and
// backward passes as sequences of KernelBackend calls, so a CUDA backend runs the same code.
#include "runtime/model/mlp_model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/count_text.h"
#include "runtime/errors.h"

namespace pstwin {
namespace {

/// One dense layer's place in the flat parameter vector.
struct Layer {
  std::size_t in = 0;        ///< fan_in d_l
  std::size_t out = 0;       ///< fan_out d_{l+1}
  std::size_t weights = 0;   ///< offset of W_l (in x out, row-major)
  std::size_t bias = 0;      ///< offset of b_l (out floats)
};

/// Rows evaluated per forward pass in evaluate(), bounding its scratch memory.
constexpr std::size_t kEvalChunkRows = 256;

class MlpModel final : public Model {
 public:
  MlpModel(std::size_t features, const std::vector<std::uint32_t>& hidden, std::size_t classes,
           double l2)
      : features_(features), classes_(classes), l2_(l2) {
    std::vector<std::size_t> widths = {features};
    widths.insert(widths.end(), hidden.begin(), hidden.end());
    widths.push_back(classes);
    std::size_t offset = 0;
    for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
      Layer layer{widths[l], widths[l + 1], offset, offset + widths[l] * widths[l + 1]};
      offset = layer.bias + layer.out;
      layers_.push_back(layer);
    }
    parameters_ = offset;
  }

  std::string name() const override { return "mlp"; }
  std::uint64_t num_parameters() const override { return parameters_; }

  void init(float* params, Rng& rng) const override {
    for (std::size_t l = 0; l < layers_.size(); ++l) {
      const Layer& layer = layers_[l];
      const bool output = l + 1 == layers_.size();
      const double fan = output ? static_cast<double>(layer.in + layer.out)
                                : static_cast<double>(layer.in);
      const double r = std::sqrt(6.0 / fan);
      for (std::size_t i = 0; i < layer.in * layer.out; ++i)
        params[layer.weights + i] = static_cast<float>((2.0 * rng.uniform() - 1.0) * r);
      std::fill(params + layer.bias, params + layer.bias + layer.out, 0.0f);
    }
  }

  double regularizer(const float* params) const override {
    if (l2_ == 0.0) return 0.0;
    double sum = 0.0;
    for (const Layer& layer : layers_) {
      const float* w = params + layer.weights;
      for (std::size_t i = 0; i < layer.in * layer.out; ++i) sum += static_cast<double>(w[i]) * w[i];
    }
    return 0.5 * l2_ * sum;
  }

  Cost gradient(KernelBackend& k, const Dataset& data, RowSelection sel, const float* params,
                float* grad, LossStats* stats) const override {
    const FeatureView x = view(data);
    const std::size_t n = sel.count;
    const std::size_t depth = layers_.size();
    // acts[l] is A_l (n x d_l): acts[0] the gathered input, acts[depth] the logits, which
    // softmax_xent then overwrites in place with dLoss/dlogits.
    std::vector<std::vector<float>> acts(depth + 1);
    acts[0].resize(n * features_);
    Cost cost = k.gather_rows(x, sel, acts[0].data());  // validates the row indices
    cost += forward(k, params, n, acts);
    const std::vector<std::int32_t> labels = batch_labels(data, sel);
    float* logits = acts[depth].data();
    const float inv_n = n > 0 ? 1.0f / static_cast<float>(n) : 0.0f;
    cost += k.softmax_xent(logits, labels.data(), n, classes_, logits, inv_n, stats);

    // Backward: delta is dLoss/dZ_{l+1} (n x d_{l+1}), already divided by n.
    std::vector<float> delta = std::move(acts[depth]), previous;
    for (std::size_t l = depth; l-- > 0;) {
      const Layer& layer = layers_[l];
      // dW_l = A_l^T delta; db_l = column sums of delta. Both overwrite their slice of grad.
      cost += k.gemm(true, false, layer.in, layer.out, n, 1.0f, acts[l].data(), layer.in,
                     delta.data(), layer.out, 0.0f, grad + layer.weights, layer.out);
      cost += k.column_sums(delta.data(), n, layer.out, grad + layer.bias);
      if (l == 0) break;  // the input needs no gradient
      // dA_l = delta W_l^T, then through the ReLU that produced A_l.
      previous.resize(n * layer.in);
      cost += k.gemm(false, true, n, layer.in, layer.out, 1.0f, delta.data(), layer.out,
                     params + layer.weights, layer.out, 0.0f, previous.data(), layer.in);
      cost += k.relu_backward(previous.data(), acts[l].data(), n * layer.in);
      std::swap(delta, previous);
    }
    if (l2_ != 0.0) {
      const auto lambda = static_cast<float>(l2_);
      for (const Layer& layer : layers_)
        cost += k.axpy(grad + layer.weights, params + layer.weights, layer.in * layer.out, lambda);
    }
    return cost;
  }

  Cost evaluate(KernelBackend& k, const Dataset& data, RowSelection sel, const float* params,
                LossStats* stats) const override {
    const FeatureView x = view(data);
    const std::vector<std::int32_t> labels = batch_labels(data, sel);
    std::vector<std::vector<float>> acts(layers_.size() + 1);
    LossStats total;
    Cost cost;
    for (std::size_t start = 0; start < sel.count; start += kEvalChunkRows) {
      const std::size_t n = std::min(kEvalChunkRows, sel.count - start);
      acts[0].resize(n * features_);
      cost += k.gather_rows(x, RowSelection{sel.rows + start, n}, acts[0].data());
      cost += forward(k, params, n, acts);
      LossStats chunk;
      cost += k.softmax_xent(acts.back().data(), labels.data() + start, n, classes_, nullptr,
                             1.0f, &chunk);
      total.loss_sum += chunk.loss_sum;
      total.correct += chunk.correct;
      total.count += chunk.count;
    }
    if (stats != nullptr) *stats = total;
    return cost;
  }

 private:
  /// A_{l+1} = act(A_l W_l + b_l) for every layer, over the n rows in acts[0]; fills acts[1..].
  /// ReLU on the hidden layers, none on the logits.
  Cost forward(KernelBackend& k, const float* params, std::size_t n,
               std::vector<std::vector<float>>& acts) const {
    Cost cost;
    for (std::size_t l = 0; l < layers_.size(); ++l) {
      const Layer& layer = layers_[l];
      acts[l + 1].resize(n * layer.out);
      cost += k.gemm(false, false, n, layer.out, layer.in, 1.0f, acts[l].data(), layer.in,
                     params + layer.weights, layer.out, 0.0f, acts[l + 1].data(), layer.out);
      cost += k.bias_activation(acts[l + 1].data(), params + layer.bias, n, layer.out,
                                l + 1 < layers_.size());
    }
    return cost;
  }

  /// data.view(features_), checked to have exactly the model's width. Throws DataError naming
  /// the data source otherwise.
  FeatureView view(const Dataset& data) const {
    FeatureView v = data.view(features_);
    if (v.cols() != features_) {
      throw DataError(data.source, 0,
                      "the data has " + std::to_string(v.cols()) +
                          " feature columns; the mlp model was built for " +
                          std::to_string(features_));
    }
    return v;
  }

  /// The class labels of the selected rows, in selection order. Throws DataError when the data
  /// has no class labels, std::out_of_range for a row outside the data.
  static std::vector<std::int32_t> batch_labels(const Dataset& data, RowSelection sel) {
    if (data.labels.size() != data.rows)
      throw DataError(data.source, 0, "class labels are missing for the mlp model");
    std::vector<std::int32_t> labels(sel.count);
    for (std::size_t s = 0; s < sel.count; ++s) labels[s] = data.labels.at(sel.rows[s]);
    return labels;
  }

  std::size_t features_;
  std::size_t classes_;
  double l2_;
  std::vector<Layer> layers_;
  std::uint64_t parameters_ = 0;
};

}  // namespace

std::unique_ptr<Model> make_mlp_model(const ModelSection& section, std::size_t features,
                                      std::size_t num_classes) {
  if (features == 0)
    throw std::invalid_argument("an mlp model needs at least one feature; the data has 0");
  if (num_classes == 0)
    throw std::invalid_argument("an mlp model needs at least one class; the data has 0");
  if (section.hidden.empty())
    throw std::invalid_argument("an mlp model needs at least one hidden layer (model.hidden)");
  if (!(section.l2 >= 0.0) || !std::isfinite(section.l2))
    throw std::invalid_argument("the L2 coefficient of an mlp model must be a finite number >= 0, not " +
                                std::to_string(section.l2));
  // Count in double first so absurd widths are reported rather than overflowing.
  double parameters = 0.0;
  double in = static_cast<double>(features);
  for (std::size_t i = 0; i <= section.hidden.size(); ++i) {
    const double out = i < section.hidden.size() ? section.hidden[i] : static_cast<double>(num_classes);
    if (out == 0)
      throw std::invalid_argument("mlp hidden layer " + std::to_string(i) + " has width 0");
    parameters += (in + 1.0) * out;
    in = out;
  }
  if (parameters > std::ldexp(1.0, 40))
    throw std::invalid_argument("an mlp model of " + whole_number_text(parameters) +
                                " parameters is too large (at most 2^40 = 1099511627776)");
  return std::make_unique<MlpModel>(features, section.hidden, num_classes, section.l2);
}

}  // namespace pstwin
