// Checking a model's gradient against central finite differences of its full loss.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "runtime/model/model.h"
#include "tests/kernel_test_problems.h"

namespace pstwin::testing {

/// Expects grad[i] to match (L(w + h e_i) - L(w - h e_i)) / 2h for every parameter i, within
/// close(rel, abs), where L is the mean data loss over `sel` plus the model's regularizer.
inline void expect_gradient_matches_finite_differences(const Model& model, KernelBackend& k,
                                                       const Dataset& data, RowSelection sel,
                                                       const std::vector<float>& params,
                                                       const std::vector<float>& grad, float step,
                                                       double rel, double abs) {
  auto full_loss = [&](const std::vector<float>& w) {
    LossStats s;
    model.evaluate(k, data, sel, w.data(), &s);
    return s.loss_sum / s.count + model.regularizer(w.data());
  };
  for (std::size_t i = 0; i < params.size(); ++i) {
    std::vector<float> plus = params, minus = params;
    plus[i] += step;
    minus[i] -= step;
    // Divide by the step as actually represented in float, not the nominal one.
    const double fd = (full_loss(plus) - full_loss(minus)) / (double(plus[i]) - double(minus[i]));
    EXPECT_TRUE(close(grad[i], fd, rel, abs))
        << "parameter " << i << ": gradient " << grad[i] << ", finite difference " << fd;
  }
}

}  // namespace pstwin::testing
