// The defaults of Model's optional parts: the accuracy metric, and the sparse interface that
// dense models do not have.
#include <stdexcept>

#include "runtime/model/model.h"

namespace pstwin {

double Model::metric(const LossStats& stats) const {
  return stats.count ? static_cast<double>(stats.correct) / static_cast<double>(stats.count) : 0.0;
}

std::vector<std::uint64_t> Model::batch_keys(const Dataset& /*data*/, RowSelection /*sel*/) const {
  throw std::logic_error("the " + name() + " model is dense: it has no per-batch keys");
}

Cost Model::sparse_gradient(KernelBackend& /*k*/, const Dataset& /*data*/, RowSelection /*sel*/,
                            const std::vector<std::uint64_t>& /*keys*/, const float* /*rows*/,
                            float* /*grad*/, LossStats* /*stats*/) const {
  throw std::logic_error("the " + name() + " model is dense: use gradient()");
}

}  // namespace pstwin
