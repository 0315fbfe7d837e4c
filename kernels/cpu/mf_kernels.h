// Internal to kernels/cpu/: the matrix-factorisation kernel as a free function. CpuBackend
// (cpu_backend.cc) forwards to it; its contract and Cost formula are those of
// KernelBackend::matrix_factorization in kernels/backend.h.
#pragma once

#include <cstddef>

#include "kernels/cost.h"
#include "kernels/matrix.h"

namespace pstwin::cpu {

/// See KernelBackend::matrix_factorization. Squared errors are summed in double, in batch order;
/// gradient rows are accumulated in batch order, so results are bit-reproducible.
Cost matrix_factorization(const float* rows, std::size_t n_rows, std::size_t rank,
                          const MfBatch& batch, float mean, float l2, float* grad,
                          LossStats* stats);

}  // namespace pstwin::cpu
