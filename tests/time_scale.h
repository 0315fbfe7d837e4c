// How much slower than normal a test run is allowed to be, for tests that wait on real time and
// do not run the pstwin binary (net_*): sim_test_support.h's time_scale(), which those tests
// cannot include (it needs the binary's path).
#pragma once

#include <cstdlib>

namespace pstwin::testing_support {

/// PSTWIN_TEST_TIME_SCALE, default 1: the sanitizer runs set it (tests/sanitizers/run.sh), and a
/// test scales its timeouts and the bounds that follow from them by it.
inline double net_time_scale() {
  const char* text = std::getenv("PSTWIN_TEST_TIME_SCALE");
  return text && std::atof(text) >= 1.0 ? std::atof(text) : 1.0;
}

}  // namespace pstwin::testing_support
