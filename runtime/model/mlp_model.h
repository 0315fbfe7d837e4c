// The multi-layer perceptron for dense classification (model type "mlp").
#pragma once

#include <cstddef>
#include <memory>

#include "runtime/model/model.h"

namespace pstwin {

/// Builds an MLP: features -> hidden[0] -> ... -> hidden[H-1] -> classes, ReLU after each hidden
/// layer, softmax cross-entropy on the output logits, L2 (section.l2) on the weights only.
///
/// Parameter layout (one flat float32 vector; key k is element k), layer by layer from the input:
/// layer l maps fan_in = d_l to fan_out = d_{l+1} (d_0 = features, d_{H+1} = classes) and stores
///   W_l: d_l x d_{l+1}, row-major (W_l[i][j] at offset_l + i * d_{l+1} + j, input i to unit j),
///   b_l: d_{l+1} floats right after W_l.
/// So a layer computes A_{l+1} = act(A_l W_l + b_l) on a batch A_l of rows.
///
/// init() draws W_l in layout order from the Rng, uniform in [-r, r] with r = sqrt(6 / d_l)
/// for hidden layers (He et al., ICCV 2015, for ReLU) and r = sqrt(6 / (d_l + d_{l+1})) for the
/// output layer (Glorot and Bengio, AISTATS 2010), so the loss at init is close to log(classes);
/// biases start at 0. The same seed gives the same parameters.
///
/// CSR data is gathered into dense rows (KernelBackend::gather_rows) before the first product.
/// The model holds no mutable state: concurrent calls from several threads are safe.
/// Throws std::invalid_argument (naming "mlp") for no features, no classes, an empty hidden
/// list, a zero width, a negative or non-finite l2, or more than 2^40 parameters.
std::unique_ptr<Model> make_mlp_model(const ModelSection& section, std::size_t features,
                                      std::size_t num_classes);

}  // namespace pstwin
