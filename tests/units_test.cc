// Unit parsers for scenario quantities (runtime/scenario/units.h).
#include "runtime/scenario/units.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace pstwin {
namespace {

TEST(Units, BandwidthBitsAndBytes) {
  EXPECT_DOUBLE_EQ(parse_bandwidth_Bps("10Gbps"), 1.25e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth_Bps("8bps"), 1.0);
  EXPECT_DOUBLE_EQ(parse_bandwidth_Bps("100 Mbps"), 12.5e6);
  EXPECT_DOUBLE_EQ(parse_bandwidth_Bps("1Tbps"), 1.25e11);
  EXPECT_DOUBLE_EQ(parse_bandwidth_Bps("900GBps"), 9e11);
  EXPECT_DOUBLE_EQ(parse_bandwidth_Bps("1KBps"), 1e3);
  EXPECT_DOUBLE_EQ(parse_bandwidth_Bps("2MiBps"), 2.0 * 1048576.0);
  EXPECT_DOUBLE_EQ(parse_bandwidth_Bps("1GiBps"), 1073741824.0);
  EXPECT_DOUBLE_EQ(parse_bandwidth_Bps("1TBps"), 1e12);
}

TEST(Units, DurationUnits) {
  EXPECT_DOUBLE_EQ(parse_duration_s("50us"), 5e-5);
  EXPECT_DOUBLE_EQ(parse_duration_s("10ns"), 1e-8);
  EXPECT_DOUBLE_EQ(parse_duration_s("1.5ms"), 1.5e-3);
  EXPECT_DOUBLE_EQ(parse_duration_s("10s"), 10.0);
  EXPECT_DOUBLE_EQ(parse_duration_s("2min"), 120.0);
  EXPECT_DOUBLE_EQ(parse_duration_s("1h"), 3600.0);
  EXPECT_DOUBLE_EQ(parse_duration_s("0s"), 0.0);
}

TEST(Units, ByteSizes) {
  EXPECT_DOUBLE_EQ(parse_bytes("1MiB"), 1048576.0);
  EXPECT_DOUBLE_EQ(parse_bytes("1MB"), 1e6);
  EXPECT_DOUBLE_EQ(parse_bytes("3B"), 3.0);
  EXPECT_DOUBLE_EQ(parse_bytes("2KiB"), 2048.0);
  EXPECT_DOUBLE_EQ(parse_bytes("1TiB"), 1099511627776.0);
  EXPECT_DOUBLE_EQ(parse_bytes("4GB"), 4e9);
}

TEST(Units, FlopsAnyCaseAndSimGridSpelling) {
  EXPECT_DOUBLE_EQ(parse_flops("15TFlops"), 1.5e13);
  EXPECT_DOUBLE_EQ(parse_flops("15Tflops"), 1.5e13);
  EXPECT_DOUBLE_EQ(parse_flops("2GFLOPS"), 2e9);
  EXPECT_DOUBLE_EQ(parse_flops("100flops"), 100.0);
  EXPECT_DOUBLE_EQ(parse_flops("1Tf"), 1e12);
  EXPECT_DOUBLE_EQ(parse_flops("3Gf"), 3e9);
  EXPECT_DOUBLE_EQ(parse_flops("7f"), 7.0);
  EXPECT_DOUBLE_EQ(parse_flops("1Pflops"), 1e15);
  EXPECT_DOUBLE_EQ(parse_flops("5Kflops"), 5e3);
}

TEST(Units, NumberForms) {
  EXPECT_DOUBLE_EQ(parse_duration_s("1e-3s"), 1e-3);
  EXPECT_DOUBLE_EQ(parse_duration_s("2E2 ms"), 0.2);
  EXPECT_DOUBLE_EQ(parse_duration_s(".5s"), 0.5);
  EXPECT_DOUBLE_EQ(parse_duration_s("5.s"), 5.0);
  EXPECT_DOUBLE_EQ(parse_duration_s("+3s"), 3.0);
  EXPECT_DOUBLE_EQ(parse_duration_s("  4 s  "), 4.0);
  // An "e" not followed by digits starts the unit, not an exponent.
  EXPECT_THROW(parse_bytes("5eB"), std::invalid_argument);
}

TEST(Units, RejectsBadInput) {
  for (const char* text : {"", "s", "10", "10 ", "abc", "-1s", "1..2s", "inf s", "nan s", "0x10s", "1e999s",
                           "10 s s", "10sec", "1Ms"})
    EXPECT_THROW(parse_duration_s(text), std::invalid_argument) << '"' << text << '"';
  for (const char* text : {"10Gbs", "10gbps", "10GB", "10 G bps", "-10Gbps"})
    EXPECT_THROW(parse_bandwidth_Bps(text), std::invalid_argument) << text;
  for (const char* text : {"1mflops", "1TF", "1Tflop", "1T", "1e400Tf"})
    EXPECT_THROW(parse_flops(text), std::invalid_argument) << text;
  for (const char* text : {"1b", "1Kib", "1MiBps"})
    EXPECT_THROW(parse_bytes(text), std::invalid_argument) << text;
}

TEST(Units, MessageNamesTextAndAcceptedUnits) {
  try {
    parse_bandwidth_Bps("10Gbs");
    FAIL() << "expected an exception";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("\"10Gbs\""), std::string::npos) << what;
    EXPECT_NE(what.find("unknown unit \"Gbs\""), std::string::npos) << what;
    EXPECT_NE(what.find("Gbps"), std::string::npos) << what;
    EXPECT_NE(what.find("GiBps"), std::string::npos) << what;
  }
  try {
    parse_duration_s("-1s");
    FAIL() << "expected an exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("negative"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pstwin
