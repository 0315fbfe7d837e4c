// StragglerHold (net/straggler_hold.h): how long a real worker is held after a compute, from
// job-clock readings given by hand (nothing is timed).
#include "net/straggler_hold.h"

#include <gtest/gtest.h>

#include <vector>

#include "runtime/straggler_schedule.h"

namespace pstwin::net {
namespace {

// Keeps the events it is given.
class EventList : public MetricsSink {
 public:
  void staleness(std::int64_t, std::uint64_t) override {}
  void updates_applied(std::uint64_t) override {}
  void bytes_to_servers(std::uint64_t) override {}
  void eval(EvalRow) override {}
  void event(double time_s, const std::string& type, nlohmann::json fields) override {
    fields["time_s"] = time_s;
    fields["type"] = type;
    events.push_back(fields);
  }
  void finish(const std::string&, bool, const std::string&) override {}
  std::vector<nlohmann::json> events;
};

StragglerSpec slow(std::uint32_t worker, double factor, double start_s, double end_s) {
  StragglerSpec s;
  s.kind = StragglerSpec::Kind::kSlowWorkers;
  s.workers = {worker};
  s.factor = factor;
  s.start_s = start_s;
  s.end_s = end_s;
  return s;
}

TEST(StragglerHold, ASlowWorkerIsHeldTwiceItsComputeUnderFactorThree) {
  StragglerHold hold({slow(1, 3.0, 0.0, 100.0)}, 1, 7);
  EventList sink;
  hold.mark(10.0);  // the role got its parameters at 10 s ...
  EXPECT_DOUBLE_EQ(hold.after_compute(10.5, sink), 1.0);  // ... and computed for 0.5 s
  EXPECT_DOUBLE_EQ(hold.compute_s(), 1.5);
  ASSERT_EQ(sink.events.size(), 1u);
  // The iteration began when the compute did, as in the simulation.
  EXPECT_EQ(sink.events[0], (nlohmann::json{{"type", "straggler_start"}, {"time_s", 10.0}, {"worker", 1},
                                            {"factor", 3.0}, {"kind", "slow"}, {"iteration", 0}}));
  hold.mark(12.0);
  EXPECT_DOUBLE_EQ(hold.after_compute(12.25, sink), 0.5);
  EXPECT_DOUBLE_EQ(hold.compute_s(), 2.25);
  EXPECT_EQ(sink.events.size(), 1u);  // still inside the window: no new event
}

TEST(StragglerHold, OtherWorkersAndTimesOutsideTheWindowAreNotHeld) {
  StragglerHold peer({slow(1, 3.0, 0.0, 100.0)}, 0, 7);
  EventList sink;
  peer.mark(1.0);
  EXPECT_DOUBLE_EQ(peer.after_compute(1.5, sink), 0.0);
  EXPECT_DOUBLE_EQ(peer.compute_s(), 0.5);
  // A window in wall seconds of the job: [20 s, 30 s).
  StragglerHold later({slow(0, 3.0, 20.0, 30.0)}, 0, 7);
  later.mark(5.0);
  EXPECT_DOUBLE_EQ(later.after_compute(6.0, sink), 0.0);
  later.mark(25.0);
  EXPECT_DOUBLE_EQ(later.after_compute(26.0, sink), 2.0);
  later.mark(30.0);
  EXPECT_DOUBLE_EQ(later.after_compute(31.0, sink), 0.0);
  ASSERT_EQ(sink.events.size(), 2u);
  EXPECT_EQ(sink.events[0]["type"], "straggler_start");
  EXPECT_EQ(sink.events[0]["iteration"], 1);
  EXPECT_EQ(sink.events[1]["type"], "straggler_end");
  EXPECT_EQ(sink.events[1]["iteration"], 2);
  EXPECT_DOUBLE_EQ(sink.events[1]["time_s"].get<double>(), 30.0);
}

TEST(StragglerHold, HoldsFollowTheSameScheduleAsTheSimulation) {
  // Transient stragglers: which iterations are slow depends only on the seed and the worker.
  StragglerSpec t;
  t.kind = StragglerSpec::Kind::kTransient;
  t.probability = 0.3;
  t.factor = 4.0;
  StragglerSchedule schedule({t}, 2, 11);
  StragglerHold hold({t}, 2, 11);
  EventList a, b;
  int slowed = 0;
  for (int i = 0; i < 200; ++i) {
    const double factor = schedule.next_factor(i, a);
    hold.mark(i);
    const double held = hold.after_compute(i + 0.25, b);
    EXPECT_DOUBLE_EQ(held, (factor - 1.0) * 0.25) << "iteration " << i;
    slowed += factor > 1.0;
  }
  EXPECT_EQ(a.events, b.events);
  EXPECT_GT(slowed, 30);  // about 60 of 200
}

}  // namespace
}  // namespace pstwin::net
