// The CUDA kernels on device pointers (no host transfers), timed with CUDA events (manual time).
// Each memory-bound kernel reports GBps: the bytes of its Cost formula (kernels/cost_formulas.h,
// the bytes the simulation prices it by) over the measured time. BM_CopyDeviceToDevice is the
// practical ceiling: a cudaMemcpy device to device, counting bytes read plus bytes written.
// BM_Gemm compares pstwin's gemm (row-major, through cuBLAS) with a direct cublasSgemm call on
// the same shapes, in GFLOPs. bench/gpu_check.sh runs this and prints each kernel's share of the
// copy bandwidth. Built only when the build has CUDA; needs a GPU to run.
#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <type_traits>
#include <vector>

#include "kernels/cost_formulas.h"
#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/device_kernels.h"

namespace pstwin {
namespace {

using cuda::Workspace;

/// A device array filled once from the host: a block of 1M values uniform in [lo, hi), tiled
/// (the values do not change the timings; the tiling keeps set-up short for 256 MiB arrays).
template <typename T>
class DeviceArray {
 public:
  explicit DeviceArray(std::size_t n, double lo = -1.0, double hi = 1.0, std::uint32_t seed = 1) {
    PSTWIN_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&p_), std::max<std::size_t>(n, 1) * sizeof(T)));
    if constexpr (std::is_arithmetic_v<T>) {
      std::vector<T> block(std::min<std::size_t>(n, std::size_t{1} << 20));
      std::mt19937 gen(seed);
      std::uniform_real_distribution<double> u(lo, hi);
      for (auto& x : block) x = static_cast<T>(u(gen));
      for (std::size_t done = 0; done < n; done += block.size()) {
        const std::size_t count = std::min(block.size(), n - done);
        PSTWIN_CUDA_CHECK(cudaMemcpy(p_ + done, block.data(), count * sizeof(T), cudaMemcpyHostToDevice));
      }
    } else {
      PSTWIN_CUDA_CHECK(cudaMemset(p_, 0, std::max<std::size_t>(n, 1) * sizeof(T)));
    }
  }
  ~DeviceArray() { cudaFree(p_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  T* get() const { return p_; }

 private:
  T* p_ = nullptr;
};

/// The stream every benchmark runs on, and a cuBLAS handle bound to it.
struct Device {
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  Device() {
    PSTWIN_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    PSTWIN_CUDA_CHECK(cublasCreate(&blas));
    PSTWIN_CUDA_CHECK(cublasSetStream(blas, stream));
  }
};

Device& device() {
  static Device d;
  return d;
}

/// Times `launch` with CUDA events around each iteration (after one warm-up) and reports
/// GBps = bytes / time and GFLOPs = flops / time over all iterations.
template <typename Launch>
void time_on_device(benchmark::State& state, Cost per_iteration, Launch launch) {
  cudaStream_t s = device().stream;
  cudaEvent_t start, stop;
  PSTWIN_CUDA_CHECK(cudaEventCreate(&start));
  PSTWIN_CUDA_CHECK(cudaEventCreate(&stop));
  launch();
  PSTWIN_CUDA_CHECK(cudaStreamSynchronize(s));
  double total_s = 0.0;
  for (auto _ : state) {
    PSTWIN_CUDA_CHECK(cudaEventRecord(start, s));
    launch();
    PSTWIN_CUDA_CHECK(cudaEventRecord(stop, s));
    PSTWIN_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    PSTWIN_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    state.SetIterationTime(ms * 1e-3);
    total_s += ms * 1e-3;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  const double iterations = static_cast<double>(state.iterations());
  state.counters["GBps"] = per_iteration.bytes * iterations / total_s * 1e-9;
  state.counters["GFLOPs"] = per_iteration.flops * iterations / total_s * 1e-9;
  state.counters["bytes_per_call"] = per_iteration.bytes;
}

// ---- The practical ceiling.

void BM_CopyDeviceToDevice(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  DeviceArray<float> src(n), dst(n);
  const double bytes = 4.0 * static_cast<double>(n);
  time_on_device(state, Cost{0.0, 2.0 * bytes}, [&] {  // read + write, as the kernels count
    PSTWIN_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), 4 * n, cudaMemcpyDeviceToDevice, device().stream));
  });
}

// ---- Element-wise kernels: aggregation and the optimizer steps.

void BM_Axpy(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  DeviceArray<float> acc(n), g(n, -1, 1, 2);
  time_on_device(state, cost::axpy(static_cast<double>(n)),
                 [&] { cuda::axpy(acc.get(), g.get(), n, 1e-3f, device().stream); });
}

void BM_Sgd(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  DeviceArray<float> w(n), g(n, -1, 1, 2);
  time_on_device(state, cost::sgd(static_cast<double>(n)),
                 [&] { cuda::sgd_update(w.get(), g.get(), n, 1e-3f, device().stream); });
}

void BM_Momentum(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  DeviceArray<float> w(n), v(n, -1, 1, 3), g(n, -1, 1, 2);
  time_on_device(state, cost::momentum(static_cast<double>(n)),
                 [&] { cuda::momentum_update(w.get(), v.get(), g.get(), n, 1e-3f, 0.9f, device().stream); });
}

void BM_Adagrad(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  DeviceArray<float> w(n), h(n, 0, 1, 3), g(n, -1, 1, 2);
  time_on_device(state, cost::adagrad(static_cast<double>(n)), [&] {
    cuda::adagrad_update(w.get(), h.get(), g.get(), n, 1e-2f, 1e-8f, 1.0f, device().stream);
  });
}

void BM_Adam(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  DeviceArray<float> w(n), m(n, -1, 1, 3), v(n, 0, 1, 4), g(n, -1, 1, 2);
  time_on_device(state, cost::adam(static_cast<double>(n)), [&] {
    cuda::adam_update(w.get(), m.get(), v.get(), g.get(), n, 1e-3f, 0.9f, 0.999f, 1e-8f, 10, 1.0f,
                      device().stream);
  });
}

// Sizes: 16M and 64M floats (64 MiB and 256 MiB per array: several times H200's 60 MB L2), and
// 64M + 3 (misaligned tail; the float4 body is the same).
// Fixed iteration counts keep the run short and predictable (the set-up runs once).
#define PSTWIN_TIMING(n) ->Iterations(n)->UseManualTime()->Unit(benchmark::kMicrosecond)
#define PSTWIN_VECTOR_SIZES ->Arg(1 << 24)->Arg(1 << 26)->Arg((1 << 26) + 3) PSTWIN_TIMING(200)
BENCHMARK(BM_CopyDeviceToDevice) PSTWIN_VECTOR_SIZES;
BENCHMARK(BM_Axpy) PSTWIN_VECTOR_SIZES;
BENCHMARK(BM_Sgd) PSTWIN_VECTOR_SIZES;
BENCHMARK(BM_Momentum) PSTWIN_VECTOR_SIZES;
BENCHMARK(BM_Adagrad) PSTWIN_VECTOR_SIZES;
BENCHMARK(BM_Adam) PSTWIN_VECTOR_SIZES;

// ---- MLP row kernels.

void BM_BiasRelu(benchmark::State& state) {
  const auto rows = static_cast<std::size_t>(state.range(0)), cols = static_cast<std::size_t>(state.range(1));
  DeviceArray<float> z(rows * cols), bias(cols, -1, 1, 2);
  time_on_device(state, cost::bias_activation(static_cast<double>(rows), static_cast<double>(cols), true),
                 [&] { cuda::bias_activation(z.get(), bias.get(), rows, cols, true, device().stream); });
}
// 256 MiB: 1024 columns (float4 path) and 1000 columns (scalar path).
BENCHMARK(BM_BiasRelu)->Args({1 << 16, 1024})->Args({1 << 16, 1000}) PSTWIN_TIMING(200);

void BM_SoftmaxXent(benchmark::State& state) {
  const auto rows = static_cast<std::size_t>(state.range(0)), k = static_cast<std::size_t>(state.range(1));
  DeviceArray<float> z(rows * k, -3, 3), dz(rows * k);
  std::vector<std::int32_t> host_labels(rows);
  for (std::size_t i = 0; i < rows; ++i) host_labels[i] = static_cast<std::int32_t>(i % k);
  DeviceArray<std::int32_t> labels(rows);
  PSTWIN_CUDA_CHECK(cudaMemcpy(labels.get(), host_labels.data(), 4 * rows, cudaMemcpyHostToDevice));
  DeviceArray<cuda::DeviceStats> stats(1);
  Workspace ws;
  time_on_device(state, cost::softmax_xent(static_cast<double>(rows), static_cast<double>(k), true), [&] {
    cuda::softmax_xent(z.get(), labels.get(), rows, k, dz.get(), 1.0f / static_cast<float>(rows), stats.get(), ws,
                       device().stream);
  });
}
// 10 classes (Fashion-MNIST's), 4M rows; 1000 classes, 64K rows: 160 MiB and 250 MiB of logits.
BENCHMARK(BM_SoftmaxXent)->Args({1 << 22, 10})->Args({1 << 16, 1000}) PSTWIN_TIMING(200);

// ---- Matrix factorisation: forward and the gradient of the touched rows.

void BM_MfGradient(benchmark::State& state) {
  const auto n_rows = static_cast<std::size_t>(state.range(0)), rank = static_cast<std::size_t>(state.range(1));
  const auto count = static_cast<std::size_t>(state.range(2));
  DeviceArray<float> table(n_rows * (rank + 1), -0.1, 0.1), grad(n_rows * (rank + 1)), rating(count, 1, 5);
  std::vector<std::uint32_t> users(count), items(count);
  std::mt19937 gen(7);
  for (std::size_t j = 0; j < count; ++j) {
    users[j] = static_cast<std::uint32_t>(gen() % (n_rows / 2));
    items[j] = static_cast<std::uint32_t>(n_rows / 2 + gen() % (n_rows / 2));
  }
  DeviceArray<std::uint32_t> du(count), di(count);
  PSTWIN_CUDA_CHECK(cudaMemcpy(du.get(), users.data(), 4 * count, cudaMemcpyHostToDevice));
  PSTWIN_CUDA_CHECK(cudaMemcpy(di.get(), items.data(), 4 * count, cudaMemcpyHostToDevice));
  DeviceArray<cuda::DeviceStats> stats(1);
  Workspace ws;
  time_on_device(state,
                 cost::matrix_factorization(static_cast<double>(count), static_cast<double>(n_rows),
                                            static_cast<double>(rank), true),
                 [&] {
                   cuda::matrix_factorization(table.get(), n_rows, rank, du.get(), di.get(), rating.get(), count,
                                              3.5f, 0.05f, grad.get(), stats.get(), ws, device().stream);
                 });
}
// A table of 1M rows of rank 32 (132 MiB), 1M ratings; rank 20 (MovieLens's scenario), 256K.
BENCHMARK(BM_MfGradient)->Args({1 << 20, 32, 1 << 20})->Args({1 << 18, 20, 1 << 18}) PSTWIN_TIMING(100);

// ---- Matrix products: pstwin's row-major gemm against cuBLAS called directly.

void BM_Gemm(benchmark::State& state, bool direct) {
  const auto m = static_cast<std::size_t>(state.range(0)), n = static_cast<std::size_t>(state.range(1));
  const auto k = static_cast<std::size_t>(state.range(2));
  DeviceArray<float> a(m * k), b(k * n, -1, 1, 2), c(m * n);
  const float alpha = 1.0f, beta = 0.0f;
  time_on_device(state, cost::gemm(static_cast<double>(m), static_cast<double>(n), static_cast<double>(k), false), [&] {
    if (direct) {  // the row-major product as cuBLAS users write it by hand
      PSTWIN_CUDA_CHECK(cublasSgemm(device().blas, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m),
                                    static_cast<int>(k), &alpha, b.get(), static_cast<int>(n), a.get(),
                                    static_cast<int>(k), &beta, c.get(), static_cast<int>(n)));
    } else {
      cuda::gemm(device().blas, false, false, m, n, k, alpha, a.get(), k, b.get(), n, beta, c.get(), n,
                 device().stream);
    }
  });
}
// A square product, and the MLP's layer (batch 256, 784 inputs, 128 hidden).
#define PSTWIN_GEMM_SHAPES ->Args({4096, 4096, 4096})->Args({256, 128, 784}) PSTWIN_TIMING(50)
BENCHMARK_CAPTURE(BM_Gemm, pstwin, false) PSTWIN_GEMM_SHAPES;
BENCHMARK_CAPTURE(BM_Gemm, cublas, true) PSTWIN_GEMM_SHAPES;

}  // namespace
}  // namespace pstwin

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "cuda_kernels_bench: no CUDA GPU here; nothing to measure\n");
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
