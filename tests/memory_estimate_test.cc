// The memory a run needs (runtime/memory_estimate.h), against byte counts worked out by hand from
// the formula's terms. A trial's validate said nothing of a 398M-parameter MLP on a9a.
#include "runtime/memory_estimate.h"

#include <gtest/gtest.h>

#include <limits>

namespace pstwin {
namespace {

Scenario run_of(const std::string& model, ConsistencyMode mode, std::uint32_t workers, std::uint32_t servers) {
  Scenario s;
  s.model.type = model;
  ConsistencyVariant v;
  v.name = "v";
  v.config.mode = mode;
  s.consistency = {v};
  s.cluster.workers = workers;
  s.cluster.servers = servers;
  return s;
}

// a9a's 123 features, 2 classes, hidden [1048576, 256]: P = 123*1048576 + 1048576 + 1048576*256
// + 256 + 256*2 + 2 = 398459650; a9a-stragglers' 16 workers, 4 servers, batch 128, sgd.
TEST(MemoryEstimate, WideMlpOnA9aUnderBsp) {
  Scenario s = run_of("mlp", ConsistencyMode::kBsp, 16, 4);
  s.model.hidden = {1048576, 256};
  s.training.batch_size = 128;
  const MemoryEstimate m = estimate_memory(s, ModelKeys{398459650, 1, false});
  EXPECT_EQ(m.parameters, 398459650u);
  // ceil(P / 4) = 99614913 keys, x (params + aggregate + 16 buffered gradients) x 4 bytes.
  EXPECT_EQ(m.server_bytes, 99614913ull * 18 * 4);  // 7172273736
  // (2P + 128 x (1048576 + 256) x 2) x 4 = (796919300 + 268500992) x 4.
  EXPECT_EQ(m.worker_bytes, 4261681168ull);
  EXPECT_EQ(m.scheduler_bytes, 3187677200ull);  // 2P x 4
  // Scheduler + P x 18 x 4 over the servers + 16 workers.
  EXPECT_EQ(m.job_bytes, 3187677200ull + 398459650ull * 18 * 4 + 16 * 4261681168ull);  // 100063670688
}

TEST(MemoryEstimate, AsynchronousServersBufferNoGradientsAndReplicasAndOptimizerStateCount) {
  // 10 keys in blocks of 4 (3 blocks), 2 copies of each over 3 servers: 2 blocks = 8 keys on the
  // fullest; adam keeps 2 floats per parameter: 8 x (2 + 2) x 4 = 128 bytes.
  Scenario s = run_of("logistic", ConsistencyMode::kAsp, 5, 3);
  s.training.optimizer = "adam";
  s.training.batch_size = 32;
  s.fault_tolerance.replication = 2;
  s.partition.scheme = PartitionScheme::kConsistentHash;
  s.partition.block_keys = 4;
  const MemoryEstimate m = estimate_memory(s, ModelKeys{10, 1, false});
  EXPECT_EQ(m.server_bytes, 128u);
  EXPECT_EQ(m.worker_bytes, 80u);     // 2 x 10 x 4: a linear model keeps no activations
  EXPECT_EQ(m.scheduler_bytes, 80u);
  EXPECT_EQ(m.job_bytes, 80u + 10 * 2 * 4 * 4 + 5 * 80u);  // 800
  // Momentum keeps one slot, under range partitioning: ceil(10 / 3) = 4 keys x 2 copies.
  s.training.optimizer = "momentum";
  s.partition.scheme = PartitionScheme::kRange;
  EXPECT_EQ(estimate_memory(s, ModelKeys{10, 1, false}).server_bytes, 4u * 2 * 3 * 4);
}

TEST(MemoryEstimate, HybridBspBuffersOneGradientPerHost) {
  Scenario s = run_of("logistic", ConsistencyMode::kBsp, 8, 1);
  s.cluster.workers_per_host = 4;
  s.consistency.front().config.sync = SyncMode::kHybrid;
  // 2 hosts push: 100 keys x (2 + 2) x 4.
  EXPECT_EQ(estimate_memory(s, ModelKeys{100, 1, false}).server_bytes, 1600u);
  s.consistency.front().config.sync = SyncMode::kPs;
  EXPECT_EQ(estimate_memory(s, ModelKeys{100, 1, false}).server_bytes, 100u * 10 * 4);
}

TEST(MemoryEstimate, ASparseWorkerHoldsABatchsRowsOnly) {
  Scenario s = run_of("mf", ConsistencyMode::kAsp, 2, 1);
  s.training.batch_size = 16;
  // At most 2 x 16 rows of 8 floats, twice (rows and their gradient): 32 x 8 x 2 x 4.
  const MemoryEstimate m = estimate_memory(s, ModelKeys{1000, 8, true});
  EXPECT_EQ(m.parameters, 8000u);
  EXPECT_EQ(m.worker_bytes, 2048u);
  EXPECT_EQ(m.server_bytes, 8000u * 2 * 4);
}

TEST(MemoryEstimate, SyntheticValuesAreVirtual) {
  const MemoryEstimate m = estimate_memory(run_of("synthetic", ConsistencyMode::kBsp, 64, 8), ModelKeys{1u << 30, 1, false});
  EXPECT_EQ(m.parameters, 1u << 30);
  EXPECT_EQ(m.server_bytes + m.worker_bytes + m.scheduler_bytes + m.job_bytes, 0u);
}

TEST(MemoryEstimate, ACountPastSixtyFourBitsSaturatesRatherThanWraps) {
  const MemoryEstimate m =
      estimate_memory(run_of("logistic", ConsistencyMode::kBsp, 4, 1), ModelKeys{1ull << 62, 8, false});
  EXPECT_EQ(m.parameters, std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(m.job_bytes, std::numeric_limits<std::uint64_t>::max());
}

TEST(MemoryEstimate, BytesReadInBinaryUnits) {
  EXPECT_EQ(bytes_text(1), "1 byte");
  EXPECT_EQ(bytes_text(512), "512 bytes");
  EXPECT_EQ(bytes_text(1536), "1.50 KiB");
  EXPECT_EQ(bytes_text(1023 * 1024), "1023 KiB");
  EXPECT_EQ(bytes_text(7172273736ull), "6.68 GiB");
  EXPECT_EQ(bytes_text(100063670688ull), "93.2 GiB");
}

}  // namespace
}  // namespace pstwin
