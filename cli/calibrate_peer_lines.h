// What the two processes of `pstwin calibrate --hostfile` print on stdout and calibrate reads
// back: the echo peer's endpoint, then each side's rounds (cli/calibrate_transports.h), one a
// line. Whatever comes back crossed an ssh session, so every line is checked.
#pragma once

#include <string>
#include <vector>

#include "cli/calibrate_transports.h"

namespace pstwin::cli {

/// "endpoint tcp://HOST:PORT\n": the line the echo peer prints first, once it listens.
std::string endpoint_line(const std::string& endpoint);

/// The endpoint of an endpoint_line (without its newline), from `host`'s echo peer. Throws
/// std::runtime_error naming `host` and quoting the line when it is not "endpoint " followed by a
/// tcp:// endpoint with a port (net/tcp_address.h).
std::string parse_endpoint_line(const std::string& line, const std::string& host);

/// The echo peer's rounds: "echo RECEIVE_S SEND_S PROCESS_S" per round (CPU seconds, exact
/// decimal doubles), then "end echo N" (N: the rounds).
std::string echo_lines(const std::vector<EchoRound>& rounds);

/// The driver's rounds of size `size_index`: "size INDEX ENCODED_BYTES", then "round INDEX WALL_S
/// SEND_S RECEIVE_S PROCESS_S" per kept round.
std::string driver_size_lines(std::size_t size_index, const DriverRounds& rounds);

/// "end drive N\n" (N: the sizes), the driver's last line.
std::string driver_end_line(std::size_t sizes);

/// Reads echo_lines back from `text` (what `host`'s echo peer printed after its endpoint line).
/// Throws std::runtime_error naming `host` and the line when a line is not one of those forms, a
/// figure is not a finite number >= 0, or the "end echo" line is missing or counts otherwise.
std::vector<EchoRound> parse_echo_lines(const std::string& text, const std::string& host);

/// Reads the driver's lines back from `text` (everything `host`'s driver printed), expecting
/// `sizes` sizes, in order, of `repetitions` rounds each and the end line. Throws
/// std::runtime_error naming `host` and the line otherwise (as parse_echo_lines; an encoded size
/// must be >= 1).
DriverRounds parse_driver_lines(const std::string& text, const std::string& host, std::size_t sizes,
                                int repetitions);

}  // namespace pstwin::cli
