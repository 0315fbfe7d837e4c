#include "net/cpu_meter.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace pstwin::net {

namespace {

double clock_seconds(clockid_t clock, const char* which) {
  timespec t{};
  if (clock_gettime(clock, &t) != 0)
    throw std::runtime_error(std::string("CPU meter: clock_gettime(") + which + ") failed: " + std::strerror(errno));
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

CpuMeter::CpuMeter() : wall_start_(std::chrono::steady_clock::now()) {
  if (const int err = pthread_getcpuclockid(pthread_self(), &thread_clock_); err != 0)
    throw std::runtime_error(std::string("CPU meter: pthread_getcpuclockid failed: ") + std::strerror(err));
  thread_start_s_ = clock_seconds(thread_clock_, "the role's thread");
  process_start_s_ = clock_seconds(CLOCK_PROCESS_CPUTIME_ID, "CLOCK_PROCESS_CPUTIME_ID");
}

CpuUse CpuMeter::use() const {
  CpuUse u;
  // The thread first: the process's clock, read after it, then covers at least as much, so
  // process_s >= role_thread_s holds.
  u.role_thread_s = clock_seconds(thread_clock_, "the role's thread") - thread_start_s_;
  u.process_s = clock_seconds(CLOCK_PROCESS_CPUTIME_ID, "CLOCK_PROCESS_CPUTIME_ID") - process_start_s_;
  u.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
  return u;
}

}  // namespace pstwin::net
