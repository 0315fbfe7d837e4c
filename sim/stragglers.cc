#include "sim/stragglers.h"

namespace pstwin {

StragglerModel::StragglerModel(const std::vector<StragglerSpec>& specs, std::uint32_t workers,
                               std::uint64_t seed) {
  workers_.reserve(workers);
  for (std::uint32_t w = 0; w < workers; ++w) workers_.emplace_back(specs, w, seed);
}

}  // namespace pstwin
