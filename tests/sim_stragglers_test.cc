// The straggler model (sim/stragglers.h over runtime/straggler_schedule.h): factors, rates,
// reproducibility, and the iterations its events name.
#include "sim/stragglers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace pstwin {
namespace {

// Collects events; the straggler model reports starts and ends through it.
class CountingSink : public MetricsSink {
 public:
  void staleness(std::int64_t, std::uint64_t) override {}
  void updates_applied(std::uint64_t) override {}
  void bytes_to_servers(std::uint64_t) override {}
  void eval(EvalRow) override {}
  void event(double, const std::string& type, nlohmann::json) override {
    if (type == "straggler_start") ++starts;
    if (type == "straggler_end") ++ends;
  }
  void finish(const std::string&, bool, const std::string&) override {}
  int starts = 0;
  int ends = 0;
};

StragglerSpec transient(double p, double factor, std::uint64_t iterations) {
  StragglerSpec s;
  s.kind = StragglerSpec::Kind::kTransient;
  s.probability = p;
  s.factor = factor;
  s.iterations = iterations;
  return s;
}

TEST(Stragglers, NoSpecsMeansFullSpeed) {
  StragglerModel m({}, 2, 1);
  CountingSink sink;
  for (int i = 0; i < 10; ++i) EXPECT_EQ(m.next_factor(1, i, sink), 1.0);
}

TEST(Stragglers, TransientRateMatchesItsProbability) {
  StragglerModel m({transient(0.1, 4.0, 1)}, 1, 7);
  CountingSink sink;
  int slowed = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const double f = m.next_factor(0, i, sink);
    ASSERT_TRUE(f == 1.0 || f == 4.0) << f;
    slowed += f > 1.0;
  }
  // Binomial(20000, 0.1): sd = 42; 5 sd either side.
  EXPECT_NEAR(slowed, 2000, 210);
  EXPECT_EQ(sink.starts, slowed);
}

TEST(Stragglers, TransientLastsItsIterations) {
  StragglerModel m({transient(1.0, 2.0, 3)}, 1, 7);
  CountingSink sink;
  for (int i = 0; i < 9; ++i) EXPECT_EQ(m.next_factor(0, i, sink), 2.0);
  EXPECT_EQ(sink.starts, 3);  // a new episode starts each time the previous one ends
  EXPECT_EQ(sink.ends, 2);    // ...and each ending is reported when the next iteration begins
}

// Keeps the iteration each start and end names.
class IterationSink : public CountingSink {
 public:
  void event(double t, const std::string& type, nlohmann::json fields) override {
    CountingSink::event(t, type, fields);
    (type == "straggler_start" ? start_at : end_at).push_back(fields["iteration"].get<int>());
  }
  std::vector<int> start_at, end_at;
};

TEST(Stragglers, EventsNameTheIterationTheyBeginAt) {
  StragglerModel m({transient(1.0, 2.0, 3)}, 2, 7);
  IterationSink sink;
  for (int i = 0; i < 9; ++i) m.next_factor(1, i, sink);
  EXPECT_EQ(sink.start_at, (std::vector<int>{0, 3, 6}));  // episodes of 3 iterations, back to back
  EXPECT_EQ(sink.end_at, (std::vector<int>{3, 6}));
}

TEST(Stragglers, SlowWorkersOnlyInTheirWindowAndOnlyThem) {
  StragglerSpec s;
  s.kind = StragglerSpec::Kind::kSlowWorkers;
  s.workers = {1};
  s.factor = 1.5;
  s.start_s = 10.0;
  s.end_s = 20.0;
  StragglerModel m({s}, 3, 1);
  CountingSink sink;
  EXPECT_EQ(m.next_factor(1, 5.0, sink), 1.0);
  EXPECT_EQ(m.next_factor(1, 10.0, sink), 1.5);
  EXPECT_EQ(m.next_factor(0, 15.0, sink), 1.0);
  EXPECT_EQ(m.next_factor(1, 19.9, sink), 1.5);
  EXPECT_EQ(m.next_factor(1, 20.0, sink), 1.0);
  EXPECT_EQ(sink.starts, 1);
  EXPECT_EQ(sink.ends, 1);
}

TEST(Stragglers, LognormalNeverSpeedsUpAndMatchesItsMedian) {
  StragglerSpec s;
  s.kind = StragglerSpec::Kind::kLognormal;
  s.mu = std::log(2.0);  // median factor 2
  s.sigma = 0.5;
  StragglerModel m({s}, 1, 3);
  CountingSink sink;
  int above_median = 0;
  const int n = 10000;
  for (int i = 0; i < n; ++i) {
    const double f = m.next_factor(0, i, sink);
    ASSERT_GE(f, 1.0);
    above_median += f > 2.0;
  }
  EXPECT_NEAR(above_median, n / 2, 250);  // 5 sd of Binomial(10000, 0.5)
}

TEST(Stragglers, DrawsDependOnIterationsNotOnTime) {
  // Two models with the same seed, queried at different times, give the same transient
  // sequence: consistency variants with different timings see the same stragglers.
  StragglerModel a({transient(0.3, 3.0, 1)}, 2, 11), b({transient(0.3, 3.0, 1)}, 2, 11);
  CountingSink sink;
  for (int i = 0; i < 200; ++i)
    EXPECT_EQ(a.next_factor(1, i * 0.1, sink), b.next_factor(1, i * 7.3, sink)) << i;
}

}  // namespace
}  // namespace pstwin
