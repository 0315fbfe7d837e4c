// The lines between `calibrate --hostfile` and its two processes, and how both sides' rounds
// combine, against figures worked out by hand.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "cli/calibrate_peer_lines.h"
#include "cli/calibrate_transports.h"

namespace pstwin::cli {
namespace {

/// What `f` throws (std::runtime_error), or "" when it does not.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(CalibratePeerLines, RoundsComeBackExactly) {
  const std::vector<EchoRound> echo = {{1.25e-5, 3.0e-6, 4.4e-5}, {0.1 + 0.2, 0, 7e-310}};
  const std::vector<EchoRound> back = parse_echo_lines(echo_lines(echo), "a");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].receive_s, 0.1 + 0.2);  // every bit of a double survives the text
  EXPECT_EQ(back[1].process_s, 7e-310);
  EXPECT_EQ(back[0].send_s, 3.0e-6);

  DriverRounds d;
  d.encoded = {136, 1048};
  d.rounds = {{{2e-3, 1e-4, 2e-4, 5e-4}}, {{3e-3, 1e-4, 2e-4, 6e-4}}};
  const std::string text = driver_size_lines(0, d) + driver_size_lines(1, d) + driver_end_line(2);
  EXPECT_EQ(text.substr(0, 11), "size 0 136\n");
  const DriverRounds r = parse_driver_lines(text, "b", 2, 1);
  EXPECT_EQ(r.encoded, d.encoded);
  ASSERT_EQ(r.rounds.size(), 2u);
  EXPECT_EQ(r.rounds[1][0].process_s, 6e-4);
  EXPECT_EQ(parse_endpoint_line("endpoint tcp://10.0.0.3:5555", "a"), "tcp://10.0.0.3:5555");
}

TEST(CalibratePeerLines, WhatIsNotALineOfTheirsIsRefusedNamingTheHost) {
  EXPECT_EQ(error_of([] { parse_endpoint_line("Welcome to host a", "a"); }),
            "host a: the echo peer's line 1 'Welcome to host a': expected 'endpoint tcp://HOST:PORT' (is pstwin "
            "installed at the same path there?)");
  EXPECT_NE(error_of([] { parse_endpoint_line("endpoint tcp://*:*", "a"); }).find("needs a host and port"),
            std::string::npos);
  EXPECT_EQ(error_of([] { parse_echo_lines("echo 1e-5 -2e-6 0\nend echo 1\n", "a"); }),
            "host a: the echo peer's line 2 'echo 1e-5 -2e-6 0': expected 'echo RECEIVE_S SEND_S PROCESS_S' "
            "(seconds >= 0)");
  EXPECT_EQ(error_of([] { parse_echo_lines("echo 1 2 nan\nend echo 1\n", "a"); }).substr(0, 38),
            "host a: the echo peer's line 2 'echo 1");
  EXPECT_EQ(error_of([] { parse_echo_lines("echo 1 2 3\n", "a"); }),
            "host a: the echo peer's report ends without its 'end echo' line (1 rounds read): it was cut short");
  EXPECT_EQ(error_of([] { parse_echo_lines("echo 1 2 3\nend echo 2\n", "a"); }),
            "host a: the echo peer's line 3 'end echo 2': counts other than the 1 rounds above it");
  // Two sizes of two rounds asked; the first has one.
  EXPECT_EQ(error_of([] { parse_driver_lines("size 0 136\nround 0 1 1 1 1\nsize 1 1048\n", "b", 2, 2); }),
            "host b: the driver's line 3 'size 1 1048': the size before has 1 rounds, not 2");
  EXPECT_EQ(error_of([] { parse_driver_lines("size 0 136\nround 1 1 1 1 1\n", "b", 1, 1); }),
            "host b: the driver's line 2 'round 1 1 1 1 1': expected 'round INDEX WALL_S SEND_S RECEIVE_S "
            "PROCESS_S' (seconds >= 0) of the size above");
  EXPECT_EQ(error_of([] { parse_driver_lines("size 0 136\nround 0 1 1 1 1\n", "b", 1, 1); }),
            "host b: the driver's report ends without its 'end drive' line (1 of 1 sizes read): it was cut short");
  EXPECT_EQ(error_of([] { parse_driver_lines("size 0 136\nround 0 1 1 1 1\nend drive 2\n", "b", 2, 1); }),
            "host b: the driver's line 3 'end drive 2': expected after 2 sizes, 'end drive 2'");
}

TEST(CalibratePeerLines, BothProcessesChargeTheirOwnIoThreads) {
  // One size, one kept round. Driver: wall 2 ms, send 0.1 ms, receive 0.2 ms, its process 0.5
  // ms (0.2 ms of I/O thread). Echo peer: receive 0.1, send 0.1, its process 0.4 (0.2 of I/O).
  // I/O in all: 0.4 ms, half to sending and half to receiving. Send = (0.1 + 0.1 + 0.2) / 2 =
  // 0.2 ms; receive = (0.2 + 0.1 + 0.2) / 2 = 0.25 ms; one way = 1 ms.
  DriverRounds d;
  d.encoded = {1000};
  d.rounds = {{{2e-3, 1e-4, 2e-4, 5e-4}}};
  const std::vector<EchoRound> echo = {{9, 9, 9} /* the warm-up: not used */, {1e-4, 1e-4, 4e-4}};
  const std::vector<TransportSample> s = combine_rounds("zmq", d, echo, 1);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_DOUBLE_EQ(s[0].seconds, 1e-3);
  EXPECT_DOUBLE_EQ(s[0].send_cpu_s, 2e-4);
  EXPECT_DOUBLE_EQ(s[0].receive_cpu_s, 2.5e-4);
  EXPECT_EQ(s[0].bytes, 1000);
  // In one process the driver's process time holds both nodes' (the echo's process_s is 0): the
  // same figures from a process of 0.9 ms.
  d.rounds = {{{2e-3, 1e-4, 2e-4, 9e-4}}};
  const std::vector<TransportSample> one = combine_rounds("zmq", d, {{0, 0, 0}, {1e-4, 1e-4, 0}}, 1);
  EXPECT_DOUBLE_EQ(one[0].send_cpu_s, 2e-4);
  EXPECT_DOUBLE_EQ(one[0].receive_cpu_s, 2.5e-4);
  EXPECT_THROW(combine_rounds("zmq", d, {{1e-4, 1e-4, 4e-4}}, 1), std::invalid_argument);  // no warm-up
}

}  // namespace
}  // namespace pstwin::cli
