// How much slower than normal a test run is allowed to be (PSTWIN_TEST_TIME_SCALE), in a header
// of its own so that tests which do not run the pstwin binary (net_*) can use it without
// sim_test_support.h, which needs the binary's path.
#pragma once

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace pstwin::testing_support {

/// How much to stretch real-time timeouts of launched jobs: PSTWIN_TEST_TIME_SCALE, default 1.
/// The sanitizer runs set it (tests/sanitizers/run.sh) because instrumented processes run several
/// times slower and would miss heartbeats; tests scale their timeouts and the bounds that follow
/// from them by it, and assert the same things. Set but empty, or not a number of at least 1, it
/// is refused naming it (std::invalid_argument), as the binary refuses its variables (README,
/// "Environment variables"): a silent 1 would make a sanitizer run fail on timeouts instead.
inline double time_scale() {
  const char* text = std::getenv("PSTWIN_TEST_TIME_SCALE");
  if (text == nullptr) return 1.0;
  char* end = nullptr;
  const double scale = std::strtod(text, &end);
  if (*text == '\0' || *end != '\0' || !(scale >= 1.0) || scale > 1e6)
    throw std::invalid_argument(std::string("PSTWIN_TEST_TIME_SCALE must be a number from 1 to 1e6, not '") + text +
                                "'");
  return scale;
}

}  // namespace pstwin::testing_support
