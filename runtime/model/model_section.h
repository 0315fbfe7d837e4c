// ModelSection: which model to train and its hyperparameters, the scenario's "model" section as
// plain data. It lives with the models, below the scenario reader (runtime/scenario/), so that
// make_model needs nothing from the layer above it (DESIGN.md, "Layers").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pstwin {

/// "model", a section of Scenario (runtime/scenario/scenario.h).
struct ModelSection {
  std::string type;           ///< "logistic", "softmax", "mlp" or "synthetic"
  double l2 = 0.0;            ///< L2 coefficient lambda: loss + lambda/2 * ||w||^2 (biases excluded);
                              ///< mf: lambda * (||row_u||^2 + ||row_i||^2) per rating (mf_model.h)
  std::uint64_t parameters = 0;        ///< synthetic: number of float32 parameters
  double flops_per_iteration = 0.0;    ///< synthetic: worker compute per iteration
  double bytes_per_iteration = 0.0;    ///< synthetic: worker memory traffic per iteration
  std::vector<std::uint32_t> hidden;   ///< mlp: width of each hidden (ReLU) layer, input side first
  std::uint64_t rank = 0;              ///< mf: length of the user and item factor vectors
  double init_scale = 0.1;             ///< mf: factors start as init_scale * N(0, 1); biases at 0
};

}  // namespace pstwin
