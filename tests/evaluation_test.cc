// Evaluation: snapshot assembly by clock, final snapshots, staleness reports and the parameters'
// hash, each against values worked out by hand.
#include "runtime/roles/evaluation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "kernels/backend.h"
#include "runtime/data/dataset.h"
#include "runtime/errors.h"
#include "runtime/model/model.h"
#include "tests/null_sink.h"

namespace pstwin {
namespace {

// Dense model of 5 keys, one float each, on 2 ranges: [0, 3) and [3, 5).
const std::vector<KeyRange> kRanges = {{0, 3}, {3, 5}};

Message snapshot(std::uint32_t range, std::int64_t clock, std::vector<float> values,
                 std::int64_t time_us) {
  Message m;
  m.header.type = MsgType::kSnapshot;
  m.header.range = range;
  m.header.clock = clock;
  m.header.time_us = time_us;
  m.values = std::move(values);
  return m;
}

TEST(EvaluationPasses, CostsBothForwardPassesByTheLogisticFormula) {
  // What `pstwin calibrate` times and evaluate_model runs: a forward pass over the chosen train
  // rows, one over the chosen test rows. Logistic, 4 features (kernels/cost_formulas.h), n rows
  // holding N stored entries: flops 2N + n(4 + 2*10); bytes 8n + (16n + 8N) + 4(min(4, N) + 1).
  const Dataset train = parse_libsvm("+1 1:1 2:1\n-1 3:1\n+1 1:1 2:1 4:1\n", "train.svm");
  const Dataset test = parse_libsvm("+1 1:1\n-1 4:1\n", "test.svm");
  ModelSection section;
  section.type = "logistic";
  const auto model = make_model(section, 4, 2);
  const std::vector<float> params = {1, -1, 2, 0, 0.5f};  // 4 weights, then the bias
  const std::vector<std::uint32_t> train_rows = {0, 2}, test_rows = {0, 1};
  LossStats train_stats, test_stats;
  const auto cpu = make_cpu_backend();
  const Cost c = evaluation_passes(*model, *cpu, train, RowSelection{train_rows.data(), 2}, test,
                                   RowSelection{test_rows.data(), 2}, params.data(), &train_stats,
                                   &test_stats);
  // Train rows 0 and 2: n = 2, N = 5: 10 + 48 = 58 flops, 16 + 32 + 40 + 20 = 108 bytes.
  // Test rows 0 and 1: n = 2, N = 2: 4 + 48 = 52 flops, 16 + 32 + 16 + 12 = 76 bytes.
  EXPECT_DOUBLE_EQ(c.flops, 58 + 52);
  EXPECT_DOUBLE_EQ(c.bytes, 108 + 76);
  EXPECT_EQ(train_stats.count, 2u);
  EXPECT_EQ(test_stats.count, 2u);
  // Margins: train row 0 z = 1 - 1 + 0.5 = 0.5 (label 1, right), row 2 z = 0.5 (right); test
  // row 0 z = 1.5 (label 1, right), row 1 z = 0.5 (label 0, wrong).
  EXPECT_EQ(train_stats.correct, 2u);
  EXPECT_EQ(test_stats.correct, 1u);
  EXPECT_NEAR(test_stats.loss_sum, std::log1p(std::exp(-1.5)) + std::log1p(std::exp(0.5)), 1e-6);
}

TEST(ParamsSha256, IsTheHashOfLittleEndianFloat32) {
  // python3: hashlib.sha256(struct.pack('<2f', 1.0, -2.5)).hexdigest()
  EXPECT_EQ(params_sha256({1.0f, -2.5f}),
            "48943f7a0ea247f8e3c9386d0c5822fe181d323a9289980426638cc4e72a43e1");
  // The synthetic model keeps no values: the hash of no bytes.
  EXPECT_EQ(params_sha256({}), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(SnapshotAssembler, HandsOutAClockOnceEveryRangeIsIn) {
  SnapshotAssembler a(kRanges, 1, 5);
  EXPECT_FALSE(a.add(snapshot(1, 4, {4, 5}, 2'500'000)));
  EXPECT_FALSE(a.add(snapshot(0, 8, {9, 9, 9}, 1'000'000)));  // another clock
  EXPECT_FALSE(a.add(snapshot(1, 4, {7, 7}, 9'000'000)));     // a promoted primary's repeat
  std::optional<RangeAssembly> done = a.add(snapshot(0, 4, {1, 2, 3}, 1'500'000));
  ASSERT_TRUE(done);
  EXPECT_EQ(done->params(), (std::vector<float>{1, 2, 3, 4, 5}));
  EXPECT_EQ(done->clock(), 4);
  EXPECT_DOUBLE_EQ(done->time_s(), 2.5);  // the later stamp; the repeat's is ignored
  // Clock 4 is forgotten: its range 1 starts a fresh assembly.
  EXPECT_FALSE(a.add(snapshot(1, 4, {4, 5}, 3'000'000)));
  a.clear();
  EXPECT_FALSE(a.add(snapshot(1, 8, {6, 6}, 3'000'000)));  // clock 8's range 0 was dropped
}

TEST(SnapshotAssembler, RefusesUnknownRangesAndWrongSizes) {
  SnapshotAssembler a(kRanges, 1, 5);
  try {
    a.add(snapshot(2, 0, {}, 0));
    FAIL() << "no error";
  } catch (const ProtocolError& e) {
    EXPECT_EQ(std::string(e.what()), "scheduler: snapshot of unknown key range 2");
  }
  EXPECT_THROW(a.add(snapshot(1, 0, {1, 2, 3}, 0)), ProtocolError);
}

TEST(RangeAssembly, FinalsTakeTheSmallestClockAndRowsOfSeveralValues) {
  // A sparse model's ranges count keys of 2 floats each.
  RangeAssembly finals(kRanges, 2, 10, "final snapshot");
  EXPECT_TRUE(finals.add(snapshot(1, 7, {1, 2, 3, 4}, 0)));
  EXPECT_FALSE(finals.complete());
  EXPECT_EQ(finals.ranges_in(), (std::vector<bool>{false, true}));
  EXPECT_TRUE(finals.add(snapshot(0, 6, {0, 0, 0, 0, 0, 9}, 0)));
  EXPECT_FALSE(finals.add(snapshot(0, 5, {0, 0, 0, 0, 0, 0}, 0)));
  EXPECT_TRUE(finals.complete());
  EXPECT_EQ(finals.clock(), 6);
  EXPECT_EQ(finals.params(), (std::vector<float>{0, 0, 0, 0, 0, 9, 1, 2, 3, 4}));
  RangeAssembly other(kRanges, 2, 10, "final snapshot");
  try {
    other.add(snapshot(0, 6, {1}, 0));
    FAIL() << "no error";
  } catch (const ProtocolError& e) {
    EXPECT_EQ(std::string(e.what()), "scheduler: final snapshot size does not match its range");
  }
}

TEST(RangeAssembly, TheSyntheticModelKeepsNoValues) {
  RangeAssembly finals(kRanges, 1, 0, "final snapshot");
  Message m = snapshot(0, 3, {}, 0);
  m.virtual_values = 3;
  EXPECT_TRUE(finals.add(m));
  EXPECT_TRUE(finals.params().empty());
}

class StalenessSink : public testing_support::NullSink {
 public:
  void staleness(std::int64_t s, std::uint64_t count) override { seen.emplace_back(s, count); }
  void updates_applied(std::uint64_t n) override { updates += n; }
  std::vector<std::pair<std::int64_t, std::uint64_t>> seen;
  std::uint64_t updates = 0;
};

TEST(ReportStaleness, PassesTheHistogramAndCountsRangeZerosUpdates) {
  StalenessSink sink;
  Message m = snapshot(0, 2, {}, 0);
  m.keys = {0, 3};
  m.lengths = {5, 2};
  report_staleness(m, sink);
  m.header.range = 1;  // every range applies every gradient: only range 0's count counts
  report_staleness(m, sink);
  EXPECT_EQ(sink.seen.size(), 4u);
  EXPECT_EQ(sink.seen[1], (std::pair<std::int64_t, std::uint64_t>{3, 2}));
  EXPECT_EQ(sink.updates, 7u);
  m.lengths.pop_back();
  EXPECT_THROW(report_staleness(m, sink), ProtocolError);
}

}  // namespace
}  // namespace pstwin
