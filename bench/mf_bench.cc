// Throughput of the matrix-factorisation kernel at the shapes of scenarios/movielens-mf.json:
// rank 20, a worker's compact batch (256 ratings over the rows they touch), and the scheduler's
// evaluation over the whole model (10,334 rows). Counters "flop/s" and "bytes/s" come from each
// call's returned Cost, as in kernels_bench.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/backend.h"

namespace pstwin {
namespace {

/// `count` ratings over `rows` parameter rows: users in [0, users), items in [users, rows).
struct MfProblem {
  std::vector<std::uint32_t> user, item;
  std::vector<float> rating, table, grad;
  MfBatch batch;

  MfProblem(std::size_t count, std::size_t users, std::size_t rows, std::size_t rank) {
    std::mt19937 gen(1);
    std::uniform_int_distribution<std::uint32_t> u(0, static_cast<std::uint32_t>(users - 1));
    std::uniform_int_distribution<std::uint32_t> i(static_cast<std::uint32_t>(users),
                                                   static_cast<std::uint32_t>(rows - 1));
    std::normal_distribution<float> normal(0.0f, 0.1f);
    for (std::size_t j = 0; j < count; ++j) {
      user.push_back(u(gen));
      item.push_back(i(gen));
      rating.push_back(static_cast<float>(1 + gen() % 5));
    }
    table.resize(rows * (rank + 1));
    for (auto& x : table) x = normal(gen);
    grad.resize(table.size());
    batch = MfBatch{count, user.data(), item.data(), rating.data()};
  }
};

void run(benchmark::State& state, std::size_t count, std::size_t users, std::size_t rows,
         bool with_grad) {
  const std::size_t rank = 20;
  MfProblem p(count, users, rows, rank);
  auto k = make_cpu_backend();
  Cost total;
  LossStats stats;
  for (auto _ : state) {
    total += k->matrix_factorization(p.table.data(), rows, rank, p.batch, 3.5f, 0.05f,
                                     with_grad ? p.grad.data() : nullptr, &stats);
    benchmark::DoNotOptimize(stats.loss_sum);
  }
  state.counters["flop/s"] = benchmark::Counter(total.flops, benchmark::Counter::kIsRate);
  state.counters["bytes/s"] = benchmark::Counter(total.bytes, benchmark::Counter::kIsRate);
}

/// A worker's step: 256 ratings over a compact table of the (at most 512) rows they touch.
void BM_MfWorkerBatch(benchmark::State& state) { run(state, 256, 256, 512, true); }
BENCHMARK(BM_MfWorkerBatch);

/// The scheduler's test evaluation: 10,084 ratings against the whole model, forward only.
void BM_MfEvaluate(benchmark::State& state) { run(state, 10084, 610, 10334, false); }
BENCHMARK(BM_MfEvaluate);

}  // namespace
}  // namespace pstwin

BENCHMARK_MAIN();
