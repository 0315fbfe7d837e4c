// CUDA twins of the compressors (kernels/compression.h): the same packed bytes and the same
// unpacked values as the CPU functions, bit for bit (tests/cuda_compressors_test.cc), so a job
// may compress on either. Host arrays in and out, staged through device memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/compression.h"

namespace pstwin::cuda {

/// compress() on the current GPU: packs x[0..n) (host) into `out` (host, resized). Returns the
/// same Cost as the CPU. Throws CudaError when CUDA fails.
Cost compress_on_gpu(const CompressParams& p, const float* x, std::size_t n, std::vector<std::uint8_t>& out);

/// decompress() on the current GPU: unpacks `size` host bytes into y[0..n) (host). Validates the
/// bytes first as the CPU does (std::invalid_argument); throws CudaError when CUDA fails.
Cost decompress_on_gpu(ValueFormat f, const std::uint8_t* bytes, std::size_t size, std::size_t n, float* y);

}  // namespace pstwin::cuda
