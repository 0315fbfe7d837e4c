// CpuMeter (net/cpu_meter.h): a real node's CPU, split into its role's thread and the whole
// process. Nothing is timed against a wall clock: each thread burns CPU until its own CPU-time
// clock, read independently of the meter, says it has used a given amount.
#include "net/cpu_meter.h"

#include <gtest/gtest.h>
#include <time.h>

#include <optional>
#include <thread>

namespace pstwin::net {
namespace {

double thread_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Spins in the calling thread until it has used `seconds` of CPU since the call.
void burn(double seconds) {
  const double until = thread_cpu_s() + seconds;
  volatile double sink = 0;
  while (thread_cpu_s() < until)
    for (int i = 0; i < 1000; ++i) sink = sink + 1.0;
}

TEST(CpuMeter, CountsTheRoleThreadAloneAndTheOtherThreadsInTheProcess) {
  const CpuMeter meter;  // this thread is the "role's"
  burn(0.05);
  // Another thread (ZeroMQ's I/O thread, in a node) burns 0.08 s while this one waits in join.
  std::thread other([] { burn(0.08); });
  other.join();
  const CpuUse use = meter.use();
  EXPECT_GE(use.role_thread_s, 0.05);
  // The join sleeps; what this thread used beyond its burn is the meter's and the loop's overhead.
  EXPECT_LT(use.role_thread_s, 0.075);
  EXPECT_GE(use.process_s - use.role_thread_s, 0.08);
  EXPECT_GE(use.wall_s * std::thread::hardware_concurrency(), use.process_s);
}

TEST(CpuMeter, CountsFromItsConstructionOnly) {
  burn(0.05);
  const CpuMeter meter;
  const CpuUse use = meter.use();
  EXPECT_LT(use.role_thread_s, 0.025);
  EXPECT_LT(use.process_s, 0.025);
}

TEST(CpuMeter, CanBeReadFromAnotherThread) {
  // The role's thread is the one that built the meter, whichever thread reads it.
  std::optional<CpuMeter> meter;
  meter.emplace();
  burn(0.05);
  CpuUse use;
  std::thread reader([&] {
    burn(0.03);
    use = meter->use();
  });
  reader.join();
  EXPECT_GE(use.role_thread_s, 0.05);
  EXPECT_LT(use.role_thread_s, 0.075);
  EXPECT_GE(use.process_s, 0.08);
}

}  // namespace
}  // namespace pstwin::net
