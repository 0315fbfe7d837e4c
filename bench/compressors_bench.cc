// Throughput of the CPU compressors (kernels/compression.h) in GB/s of float32 input, packing and
// unpacking 1M values (4 MB, a mid-sized model's gradient), and error feedback around topk.
// "GB/s" counts the uncompressed bytes (4 per value) per second, the rate at which a worker can
// feed gradients through the compressor; compare it with the link's rate to see when compressing
// pays.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "kernels/compression.h"

namespace pstwin {
namespace {

constexpr std::size_t kValues = 1 << 20;

std::vector<float> gradient() {
  std::mt19937 gen(1);
  std::normal_distribution<float> d(0.0f, 1e-2f);
  std::vector<float> g(kValues);
  for (float& v : g) v = d(gen);
  return g;
}

void rate(benchmark::State& state) {
  state.counters["GB/s"] = benchmark::Counter(static_cast<double>(state.iterations()) * 4.0 * kValues / 1e9,
                                              benchmark::Counter::kIsRate);
}

void BM_Compress(benchmark::State& state) {
  const auto f = static_cast<ValueFormat>(state.range(0));
  const std::vector<float> g = gradient();
  std::vector<std::uint8_t> out;
  const CompressParams p{.format = f, .topk_ratio = 0.01, .seed = 1};
  for (auto _ : state) {
    compress(p, g.data(), g.size(), out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetLabel(std::string(value_format_name(f)) + ", " + std::to_string(out.size()) + " bytes");
  rate(state);
}

void BM_Decompress(benchmark::State& state) {
  const auto f = static_cast<ValueFormat>(state.range(0));
  const std::vector<float> g = gradient();
  std::vector<std::uint8_t> packed;
  compress(CompressParams{.format = f, .topk_ratio = 0.01, .seed = 1}, g.data(), g.size(), packed);
  std::vector<float> y(kValues);
  for (auto _ : state) {
    decompress(f, packed.data(), packed.size(), kValues, y.data());
    benchmark::DoNotOptimize(y.data());
  }
  state.SetLabel(std::string(value_format_name(f)));
  rate(state);
}

void BM_TopKWithErrorFeedback(benchmark::State& state) {
  const std::vector<float> g = gradient();
  std::vector<float> residual(kValues, 0.0f);
  std::vector<std::uint8_t> out;
  const CompressParams p{.format = ValueFormat::kTopK, .topk_ratio = 0.01};
  for (auto _ : state) {
    compress_with_feedback(p, g.data(), residual.data(), kValues, out);
    benchmark::DoNotOptimize(out.data());
  }
  rate(state);
}

BENCHMARK(BM_Compress)->DenseRange(1, kMaxValueFormat)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Decompress)->DenseRange(1, kMaxValueFormat)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TopKWithErrorFeedback)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace pstwin

BENCHMARK_MAIN();
