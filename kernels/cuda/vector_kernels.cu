// Element-wise kernels: aggregation (axpy), the optimizer steps, ReLU backward, bias plus
// activation, and matrix scaling. Memory-bound: grid-stride loops over float4 when every array
// is 16-byte aligned (a scalar tail covers n % 4), scalar otherwise. Multiplies and adds use the
// explicitly rounded intrinsics, so nothing is fused and results match the CPU bit for bit.
#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/device_common.cuh"

namespace pstwin::cuda {

namespace {

using detail::grid_for;
using detail::kBlock;

__device__ __forceinline__ float mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ float add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ float sub(float a, float b) { return __fsub_rn(a, b); }

bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

/// Applies op(x[0][i], ..., x[N-1][i]) to every i < n; each x[a] is read and written in place
/// (inputs are simply not modified by op). Vectorised when `vec`.
template <int N, typename Op>
__global__ void map_kernel(std::size_t n, Op op, bool vec, float* __restrict__ a0,
                           float* __restrict__ a1, float* __restrict__ a2, float* __restrict__ a3) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  std::size_t scalar_from = 0;
  if (vec) {
    const std::size_t n4 = n / 4;
    for (std::size_t i = t; i < n4; i += stride) {
      float4 v0 = reinterpret_cast<float4*>(a0)[i], v1{}, v2{}, v3{};
      if constexpr (N > 1) v1 = reinterpret_cast<float4*>(a1)[i];
      if constexpr (N > 2) v2 = reinterpret_cast<float4*>(a2)[i];
      if constexpr (N > 3) v3 = reinterpret_cast<float4*>(a3)[i];
      op(v0.x, v1.x, v2.x, v3.x);
      op(v0.y, v1.y, v2.y, v3.y);
      op(v0.z, v1.z, v2.z, v3.z);
      op(v0.w, v1.w, v2.w, v3.w);
      if constexpr (Op::kWrites > 0) reinterpret_cast<float4*>(a0)[i] = v0;
      if constexpr (Op::kWrites > 1) reinterpret_cast<float4*>(a1)[i] = v1;
      if constexpr (Op::kWrites > 2) reinterpret_cast<float4*>(a2)[i] = v2;
    }
    scalar_from = n4 * 4;
  }
  for (std::size_t i = scalar_from + t; i < n; i += stride) {
    float v0 = a0[i], v1 = 0.0f, v2 = 0.0f, v3 = 0.0f;
    if constexpr (N > 1) v1 = a1[i];
    if constexpr (N > 2) v2 = a2[i];
    if constexpr (N > 3) v3 = a3[i];
    op(v0, v1, v2, v3);
    if constexpr (Op::kWrites > 0) a0[i] = v0;
    if constexpr (Op::kWrites > 1) a1[i] = v1;
    if constexpr (Op::kWrites > 2) a2[i] = v2;
  }
}

/// Launches map_kernel over n elements of the given arrays (the first Op::kWrites are written).
template <int N, typename Op>
void launch_map(const char* name, std::size_t n, Op op, cudaStream_t stream, float* a0,
                const float* a1 = nullptr, const float* a2 = nullptr, const float* a3 = nullptr) {
  if (n == 0) return;
  bool vec = aligned16(a0);
  if (N > 1) vec = vec && aligned16(a1);
  if (N > 2) vec = vec && aligned16(a2);
  if (N > 3) vec = vec && aligned16(a3);
  const std::size_t items = vec ? (n + 3) / 4 : n;
  map_kernel<N, Op><<<grid_for(items), kBlock, 0, stream>>>(
      n, op, vec, a0, const_cast<float*>(a1), const_cast<float*>(a2),
      const_cast<float*>(a3));
  check_launch(name);
}

struct AxpyOp {
  static constexpr int kWrites = 1;
  float scale;
  __device__ void operator()(float& acc, float& g, float&, float&) const {
    acc = add(acc, mul(scale, g));
  }
};

struct SgdOp {  // w + (-lr) g: the CPU's scaled_add with -lr, which rounds as w - lr g
  static constexpr int kWrites = 1;
  float neg_lr;
  __device__ void operator()(float& w, float& g, float&, float&) const {
    w = add(w, mul(neg_lr, g));
  }
};

struct MomentumOp {
  static constexpr int kWrites = 2;
  float lr, mu;
  __device__ void operator()(float& w, float& v, float& g, float&) const {
    v = add(mul(mu, v), g);
    w = sub(w, mul(lr, v));
  }
};

struct AdagradOp {
  static constexpr int kWrites = 2;
  float lr, eps, grad_scale;
  __device__ void operator()(float& w, float& h, float& g, float&) const {
    const float gi = mul(grad_scale, g);
    h = add(h, mul(gi, gi));
    w = sub(w, __fdiv_rn(mul(lr, gi), add(__fsqrt_rn(h), eps)));
  }
};

struct AdamOp {
  static constexpr int kWrites = 3;
  float lr, beta1, beta2, one_minus_b1, one_minus_b2, inv_c1, inv_c2, eps, grad_scale;
  __device__ void operator()(float& w, float& m, float& v, float& g) const {
    const float gi = mul(grad_scale, g);
    m = add(mul(beta1, m), mul(one_minus_b1, gi));
    v = add(mul(beta2, v), mul(one_minus_b2, mul(gi, gi)));
    const float m_hat = mul(m, inv_c1);
    const float v_hat = mul(v, inv_c2);
    w = sub(w, __fdiv_rn(mul(lr, m_hat), add(__fsqrt_rn(v_hat), eps)));
  }
};

struct ReluBackwardOp {
  static constexpr int kWrites = 1;
  __device__ void operator()(float& grad, float& act, float&, float&) const {
    if (!(act > 0.0f)) grad = 0.0f;
  }
};

/// z[i][j] += bias[j] (then ReLU as std::max(v, 0.0f): v < 0 ? 0 : v) over rows x cols;
/// float4 when cols % 4 == 0 and both arrays are aligned. The column of each element is
/// advanced with the grid stride instead of recomputed by a 64-bit division.
template <bool kRelu>
__global__ void bias_activation_kernel(float* __restrict__ z, const float* __restrict__ bias,
                                       std::size_t rows, std::size_t cols, bool vec) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  auto act = [](float v) { return kRelu ? (v < 0.0f ? 0.0f : v) : v; };
  const std::size_t width = vec ? cols / 4 : cols;  // columns in units of this loop's elements
  const std::size_t n = rows * width;
  const std::size_t step = stride % width;
  std::size_t col = t % width;
  for (std::size_t i = t; i < n; i += stride) {
    if (vec) {
      float4 v = reinterpret_cast<float4*>(z)[i];
      const float4 b = reinterpret_cast<const float4*>(bias)[col];
      v.x = act(add(v.x, b.x));
      v.y = act(add(v.y, b.y));
      v.z = act(add(v.z, b.z));
      v.w = act(add(v.w, b.w));
      reinterpret_cast<float4*>(z)[i] = v;
    } else {
      z[i] = act(add(z[i], bias[col]));
    }
    col += step;
    if (col >= width) col -= width;
  }
}

__global__ void scale_matrix_kernel(float* __restrict__ c, std::size_t rows, std::size_t cols,
                                    std::size_t ld, float beta) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t n = rows * cols;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    float* p = c + (i / cols) * ld + i % cols;
    *p = beta == 0.0f ? 0.0f : mul(beta, *p);
  }
}

}  // namespace

void axpy(float* acc, const float* g, std::size_t n, float scale, cudaStream_t stream) {
  launch_map<2>("axpy", n, AxpyOp{scale}, stream, acc, g);
}

void sgd_update(float* w, const float* g, std::size_t n, float lr, cudaStream_t stream) {
  launch_map<2>("sgd_update", n, SgdOp{-lr}, stream, w, g);
}

void momentum_update(float* w, float* v, const float* g, std::size_t n, float lr, float mu,
                     cudaStream_t stream) {
  launch_map<3>("momentum_update", n, MomentumOp{lr, mu}, stream, w, v, g);
}

void adagrad_update(float* w, float* h, const float* g, std::size_t n, float lr, float eps,
                    float grad_scale, cudaStream_t stream) {
  launch_map<3>("adagrad_update", n, AdagradOp{lr, eps, grad_scale}, stream, w, h, g);
}

void adam_update(float* w, float* m, float* v, const float* g, std::size_t n, float lr,
                 float beta1, float beta2, float eps, std::uint64_t t, float grad_scale,
                 cudaStream_t stream) {
  if (t == 0) throw std::invalid_argument("adam_update: the step t counts from 1, got 0");
  if (!(beta1 >= 0.0f && beta1 < 1.0f) || !(beta2 >= 0.0f && beta2 < 1.0f))
    throw std::invalid_argument("adam_update: beta1 and beta2 must lie in [0, 1), got " +
                                std::to_string(beta1) + " and " + std::to_string(beta2));
  // As on the CPU: 1 / (1 - beta^t) in double, then rounded to float once.
  const double t_d = static_cast<double>(t);
  const auto inv_c1 = static_cast<float>(1.0 / (1.0 - std::pow(static_cast<double>(beta1), t_d)));
  const auto inv_c2 = static_cast<float>(1.0 / (1.0 - std::pow(static_cast<double>(beta2), t_d)));
  launch_map<4>("adam_update", n,
                AdamOp{lr, beta1, beta2, 1.0f - beta1, 1.0f - beta2, inv_c1, inv_c2, eps,
                       grad_scale},
                stream, w, m, v, g);
}

void relu_backward(float* grad, const float* activation, std::size_t n, cudaStream_t stream) {
  launch_map<2>("relu_backward", n, ReluBackwardOp{}, stream, grad, activation);
}

void bias_activation(float* z, const float* bias, std::size_t rows, std::size_t cols, bool relu,
                     cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  const bool vec = cols % 4 == 0 && aligned16(z) && aligned16(bias);
  const std::size_t items = vec ? rows * cols / 4 : rows * cols;
  if (relu)
    bias_activation_kernel<true><<<grid_for(items), kBlock, 0, stream>>>(z, bias, rows, cols, vec);
  else
    bias_activation_kernel<false><<<grid_for(items), kBlock, 0, stream>>>(z, bias, rows, cols, vec);
  check_launch("bias_activation");
}

void scale_matrix(float* c, std::size_t rows, std::size_t cols, std::size_t ld, float beta,
                  cudaStream_t stream) {
  if (rows == 0 || cols == 0 || beta == 1.0f) return;
  scale_matrix_kernel<<<grid_for(rows * cols), kBlock, 0, stream>>>(c, rows, cols, ld, beta);
  check_launch("scale_matrix");
}

}  // namespace pstwin::cuda
