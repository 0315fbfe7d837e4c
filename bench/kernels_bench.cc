// Throughput of the CPU kernels on shapes pstwin trains: a9a-like sparse logistic regression,
// MNIST-like dense softmax, the element-wise optimizer kernels over 1M parameters, and the MLP's
// matrix products and whole gradient at the shapes of scenarios/fmnist-mlp.json.
// Counters "flop/s" and "bytes/s" come from each call's returned Cost, so they show how close
// the roofline model's inputs are to what the CPU achieves.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/backend.h"
#include "runtime/model/model.h"
#include "runtime/rng.h"

namespace pstwin {
namespace {

/// Adds the Cost-derived rate counters after a benchmark loop.
void report(benchmark::State& state, const Cost& total) {
  state.counters["flop/s"] = benchmark::Counter(total.flops, benchmark::Counter::kIsRate);
  state.counters["bytes/s"] = benchmark::Counter(total.bytes, benchmark::Counter::kIsRate);
}

/// `count` batches of `batch` row indices drawn uniformly from [0, rows).
std::vector<std::vector<std::uint32_t>> batches(std::size_t rows, std::size_t batch,
                                                std::size_t count, std::mt19937& gen) {
  std::uniform_int_distribution<std::uint32_t> pick(0, static_cast<std::uint32_t>(rows - 1));
  std::vector<std::vector<std::uint32_t>> out(count, std::vector<std::uint32_t>(batch));
  for (auto& b : out) {
    for (auto& r : b) r = pick(gen);
  }
  return out;
}

/// a9a-like: 32,768 rows, 123 binary features, 14 distinct stored ones per row.
struct SparseBinary {
  std::vector<std::uint64_t> row_ptr;
  std::vector<std::uint32_t> col_idx;
  std::vector<float> values, labels01;
  FeatureView view;

  SparseBinary() {
    const std::size_t rows = 32768, cols = 123, nnz = 14;
    std::mt19937 gen(1);
    std::vector<std::uint32_t> all(cols);
    for (std::uint32_t j = 0; j < cols; ++j) all[j] = j;
    row_ptr.push_back(0);
    for (std::size_t i = 0; i < rows; ++i) {
      std::shuffle(all.begin(), all.end(), gen);
      std::vector<std::uint32_t> picked(all.begin(), all.begin() + nnz);
      std::sort(picked.begin(), picked.end());
      col_idx.insert(col_idx.end(), picked.begin(), picked.end());
      values.insert(values.end(), nnz, 1.0f);
      row_ptr.push_back(col_idx.size());
      labels01.push_back(static_cast<float>(gen() % 2));
    }
    view.sparse = true;
    view.csr = CsrView{rows, cols, row_ptr.data(), col_idx.data(), values.data()};
  }
};

void BM_LogisticCsr(benchmark::State& state) {
  static const SparseBinary data;
  std::mt19937 gen(2);
  const auto sel = batches(data.view.rows(), static_cast<std::size_t>(state.range(0)), 16, gen);
  std::vector<float> params(data.view.cols() + 1, 0.01f), grad(params.size());
  auto k = make_cpu_backend();
  LossStats stats;
  Cost total;
  std::size_t i = 0;
  for (auto _ : state) {
    const auto& b = sel[i++ % sel.size()];
    total += k->logistic(data.view, data.labels01.data(), RowSelection{b.data(), b.size()},
                         params.data(), grad.data(), &stats);
    benchmark::DoNotOptimize(grad.data());
    benchmark::ClobberMemory();
  }
  report(state, total);
}
BENCHMARK(BM_LogisticCsr)->Arg(256)->Arg(4096);

/// MNIST-like: 8,192 rows of 784 dense features in [0, 1], 10 classes.
struct DenseImages {
  std::vector<float> values;
  std::vector<std::int32_t> labels;
  FeatureView view;

  DenseImages() {
    const std::size_t rows = 8192, cols = 784;
    std::mt19937 gen(3);
    std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
    values.resize(rows * cols);
    for (auto& v : values) v = pixel(gen);
    for (std::size_t i = 0; i < rows; ++i) labels.push_back(static_cast<std::int32_t>(gen() % 10));
    view.sparse = false;
    view.dense = DenseView{rows, cols, values.data()};
  }
};

void BM_SoftmaxDense(benchmark::State& state) {
  static const DenseImages data;
  const std::size_t classes = 10;
  std::mt19937 gen(4);
  const auto sel = batches(data.view.rows(), static_cast<std::size_t>(state.range(0)), 16, gen);
  std::vector<float> params(classes * (data.view.cols() + 1), 0.001f), grad(params.size());
  auto k = make_cpu_backend();
  LossStats stats;
  Cost total;
  std::size_t i = 0;
  for (auto _ : state) {
    const auto& b = sel[i++ % sel.size()];
    total += k->softmax(data.view, data.labels.data(), classes, RowSelection{b.data(), b.size()},
                        params.data(), grad.data(), &stats);
    benchmark::DoNotOptimize(grad.data());
    benchmark::ClobberMemory();
  }
  report(state, total);
}
BENCHMARK(BM_SoftmaxDense)->Arg(256);

constexpr std::size_t kVectorLength = 1 << 20;  // 1M float32 parameters

void BM_Axpy(benchmark::State& state) {
  std::vector<float> acc(kVectorLength, 1.0f), g(kVectorLength, 0.5f);
  auto k = make_cpu_backend();
  Cost total;
  for (auto _ : state) {
    total += k->axpy(acc.data(), g.data(), kVectorLength, 1e-3f);
    benchmark::ClobberMemory();
  }
  report(state, total);
}
BENCHMARK(BM_Axpy);

void BM_SgdUpdate(benchmark::State& state) {
  std::vector<float> w(kVectorLength, 1.0f), g(kVectorLength, 0.5f);
  auto k = make_cpu_backend();
  Cost total;
  for (auto _ : state) {
    total += k->sgd_update(w.data(), g.data(), kVectorLength, 1e-3f);
    benchmark::ClobberMemory();
  }
  report(state, total);
}
BENCHMARK(BM_SgdUpdate);

void BM_MomentumUpdate(benchmark::State& state) {
  std::vector<float> w(kVectorLength, 1.0f), v(kVectorLength, 0.0f), g(kVectorLength, 0.5f);
  auto k = make_cpu_backend();
  Cost total;
  for (auto _ : state) {
    total += k->momentum_update(w.data(), v.data(), g.data(), kVectorLength, 1e-3f, 0.9f);
    benchmark::ClobberMemory();
  }
  report(state, total);
}
BENCHMARK(BM_MomentumUpdate);

void BM_AdagradUpdate(benchmark::State& state) {
  std::vector<float> w(kVectorLength, 1.0f), h(kVectorLength, 0.0f), g(kVectorLength, 0.5f);
  auto k = make_cpu_backend();
  Cost total;
  for (auto _ : state) {
    total += k->adagrad_update(w.data(), h.data(), g.data(), kVectorLength, 1e-3f, 1e-8f, 0.125f);
    benchmark::ClobberMemory();
  }
  report(state, total);
}
BENCHMARK(BM_AdagradUpdate);

void BM_AdamUpdate(benchmark::State& state) {
  std::vector<float> w(kVectorLength, 1.0f), m(kVectorLength, 0.0f), v(kVectorLength, 0.0f),
      g(kVectorLength, 0.5f);
  auto k = make_cpu_backend();
  Cost total;
  std::uint64_t t = 0;
  for (auto _ : state) {
    total += k->adam_update(w.data(), m.data(), v.data(), g.data(), kVectorLength, 1e-3f, 0.9f,
                            0.999f, 1e-8f, ++t, 0.125f);
    benchmark::ClobberMemory();
  }
  report(state, total);
}
BENCHMARK(BM_AdamUpdate);

/// C = op(A) op(B) at the shapes of a 784-128-10 MLP on a batch of 64 (fmnist-mlp.json):
/// args (trans_a, trans_b, m, n, k). Forward: X W0 (NN, 64x128x784); backward: dW0 = X^T D
/// (TN, 784x128x64) and dA1 = D W1^T (NT, 64x128x10); and a 256-row evaluation chunk.
void BM_Gemm(benchmark::State& state) {
  const bool ta = state.range(0) != 0, tb = state.range(1) != 0;
  const auto m = static_cast<std::size_t>(state.range(2)), n = static_cast<std::size_t>(state.range(3)),
             kk = static_cast<std::size_t>(state.range(4));
  std::mt19937 gen(5);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> a(m * kk), b(kk * n), c(m * n);
  for (auto& x : a) x = value(gen);
  for (auto& x : b) x = value(gen);
  auto k = make_cpu_backend();
  Cost total;
  for (auto _ : state) {
    total += k->gemm(ta, tb, m, n, kk, 1.0f, a.data(), ta ? m : kk, b.data(), tb ? kk : n, 0.0f,
                     c.data(), n);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  report(state, total);
}
BENCHMARK(BM_Gemm)
    ->ArgNames({"ta", "tb", "m", "n", "k"})
    ->Args({0, 0, 64, 128, 784})
    ->Args({1, 0, 784, 128, 64})
    ->Args({0, 1, 64, 128, 10})
    ->Args({0, 0, 256, 128, 784});

/// One worker step of the fmnist-mlp.json model: the full gradient (gather, forward, softmax
/// cross-entropy, backward, L2) of a 784-128-10 MLP on a batch of 64 dense images.
void BM_MlpGradient(benchmark::State& state) {
  static const DenseImages data;
  Dataset ds;
  ds.source = "bench";
  ds.rows = data.view.rows();
  ds.cols = data.view.cols();
  ds.sparse = false;
  ds.values = data.values;
  ds.labels = data.labels;
  ds.num_classes = 10;
  ModelSection section;
  section.type = "mlp";
  section.hidden = {128};
  section.l2 = 1e-5;
  const auto model = make_model(section, ds.cols, ds.num_classes);
  std::vector<float> params(model->num_parameters()), grad(params.size());
  Rng rng(1);
  model->init(params.data(), rng);
  std::mt19937 gen(6);
  const auto sel = batches(ds.rows, static_cast<std::size_t>(state.range(0)), 16, gen);
  auto k = make_cpu_backend();
  LossStats stats;
  Cost total;
  std::size_t i = 0;
  for (auto _ : state) {
    const auto& b = sel[i++ % sel.size()];
    total += model->gradient(*k, ds, RowSelection{b.data(), b.size()}, params.data(), grad.data(),
                             &stats);
    benchmark::DoNotOptimize(grad.data());
    benchmark::ClobberMemory();
  }
  report(state, total);
}
BENCHMARK(BM_MlpGradient)->Arg(64);

}  // namespace
}  // namespace pstwin

BENCHMARK_MAIN();
