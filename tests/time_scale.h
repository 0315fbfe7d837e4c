// How much slower than normal a test run is allowed to be (the sanitizer runs), for tests that
// wait on real time: in-process ones (net_*) as well as those that launch the binary.
#pragma once

#include <cstdlib>

namespace pstwin::testing_support {

/// How much to stretch real-time timeouts of launched jobs: PSTWIN_TEST_TIME_SCALE, default 1.
/// The sanitizer runs set it (tests/sanitizers/run.sh) because instrumented processes run several
/// times slower and would miss heartbeats; tests scale their timeouts and the bounds that follow
/// from them by it, and assert the same things.
inline double time_scale() {
  const char* text = std::getenv("PSTWIN_TEST_TIME_SCALE");
  const double scale = text ? std::atof(text) : 1.0;
  return scale >= 1.0 ? scale : 1.0;
}

}  // namespace pstwin::testing_support
