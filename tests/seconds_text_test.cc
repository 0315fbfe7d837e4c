// seconds_text: durations in messages read as a person writes them.
#include "runtime/seconds_text.h"

#include <gtest/gtest.h>

namespace pstwin {
namespace {

TEST(SecondsText, ShortestFormWithSixSignificantDigits) {
  EXPECT_EQ(seconds_text(300.0), "300");  // std::to_string gave "300.000000"
  EXPECT_EQ(seconds_text(0.2), "0.2");
  EXPECT_EQ(seconds_text(1.3502431), "1.35024");
  EXPECT_EQ(seconds_text(1e-6), "1e-06");
}

}  // namespace
}  // namespace pstwin
