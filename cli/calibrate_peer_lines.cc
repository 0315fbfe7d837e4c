// The lines between calibrate and its two remote processes: written exactly, read suspiciously.
#include "cli/calibrate_peer_lines.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "net/tcp_address.h"

namespace pstwin::cli {

namespace {

/// `x` as the shortest text that reads back as the same double.
std::string exact(double x) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", x);
  return text;
}

/// Says what is wrong with line `number` ("...") of `host`'s `who`.
[[noreturn]] void bad_line(const std::string& host, const std::string& who, std::size_t number,
                           const std::string& line, const std::string& why) {
  throw std::runtime_error("host " + host + ": the " + who + "'s line " + std::to_string(number) + " '" + line +
                           "': " + why);
}

/// The words of a line.
std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

/// A figure of a line: a finite number >= 0, read whole.
bool read_figure(const std::string& word, double& x) {
  // strtod, not stod: a tiny (subnormal) figure is a figure, not an error.
  char* end = nullptr;
  x = std::strtod(word.c_str(), &end);
  return !word.empty() && end == word.c_str() + word.size() && std::isfinite(x) && x >= 0;
}

/// A count or index of a line: digits only.
bool read_count(const std::string& word, std::size_t& n) {
  if (word.empty() || word.size() > 18 || word.find_first_not_of("0123456789") != std::string::npos) return false;
  n = std::stoull(word);
  return true;
}

/// The lines of `text`, without their newlines (a last line without one included).
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

std::string endpoint_line(const std::string& endpoint) { return "endpoint " + endpoint + "\n"; }

std::string parse_endpoint_line(const std::string& line, const std::string& host) {
  const std::vector<std::string> w = words_of(line);
  const std::string expected = "expected 'endpoint tcp://HOST:PORT' (is pstwin installed at the same path there?)";
  if (w.size() != 2 || w[0] != "endpoint") bad_line(host, "echo peer", 1, line, expected);
  try {
    const net::TcpEndpoint e = net::parse_tcp_endpoint(w[1]);
    if (e.port == "*" || e.host == "*") bad_line(host, "echo peer", 1, line, "an endpoint to dial needs a host and port");
  } catch (const std::invalid_argument& e) {
    bad_line(host, "echo peer", 1, line, e.what());
  }
  return w[1];
}

std::string echo_lines(const std::vector<EchoRound>& rounds) {
  std::string out;
  for (const EchoRound& r : rounds)
    out += "echo " + exact(r.receive_s) + " " + exact(r.send_s) + " " + exact(r.process_s) + "\n";
  return out + "end echo " + std::to_string(rounds.size()) + "\n";
}

std::string driver_size_lines(std::size_t size_index, const DriverRounds& rounds) {
  std::string out = "size " + std::to_string(size_index) + " " + exact(rounds.encoded.at(size_index)) + "\n";
  for (const DriverRound& r : rounds.rounds.at(size_index))
    out += "round " + std::to_string(size_index) + " " + exact(r.wall_s) + " " + exact(r.send_s) + " " +
           exact(r.receive_s) + " " + exact(r.process_s) + "\n";
  return out;
}

std::string driver_end_line(std::size_t sizes) { return "end drive " + std::to_string(sizes) + "\n"; }

std::vector<EchoRound> parse_echo_lines(const std::string& text, const std::string& host) {
  std::vector<EchoRound> rounds;
  const std::vector<std::string> lines = lines_of(text);
  bool ended = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::size_t number = i + 2;  // after the endpoint line
    const std::vector<std::string> w = words_of(lines[i]);
    if (ended) bad_line(host, "echo peer", number, lines[i], "nothing may follow the 'end echo' line");
    if (w.size() == 3 && w[0] == "end" && w[1] == "echo") {
      std::size_t n = 0;
      if (!read_count(w[2], n) || n != rounds.size())
        bad_line(host, "echo peer", number, lines[i], "counts other than the " + std::to_string(rounds.size()) +
                                                          " rounds above it");
      ended = true;
      continue;
    }
    EchoRound r;
    if (w.size() != 4 || w[0] != "echo" || !read_figure(w[1], r.receive_s) || !read_figure(w[2], r.send_s) ||
        !read_figure(w[3], r.process_s))
      bad_line(host, "echo peer", number, lines[i], "expected 'echo RECEIVE_S SEND_S PROCESS_S' (seconds >= 0)");
    rounds.push_back(r);
  }
  if (!ended)
    throw std::runtime_error("host " + host + ": the echo peer's report ends without its 'end echo' line (" +
                             std::to_string(rounds.size()) + " rounds read): it was cut short");
  return rounds;
}

DriverRounds parse_driver_lines(const std::string& text, const std::string& host, std::size_t sizes,
                                int repetitions) {
  DriverRounds out;
  const std::vector<std::string> lines = lines_of(text);
  bool ended = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::size_t number = i + 1;
    const std::string& line = lines[i];
    const std::vector<std::string> w = words_of(line);
    if (ended) bad_line(host, "driver", number, line, "nothing may follow the 'end drive' line");
    std::size_t index = 0;
    if (w.size() == 3 && w[0] == "end" && w[1] == "drive") {
      if (!read_count(w[2], index) || index != sizes || out.encoded.size() != sizes)
        bad_line(host, "driver", number, line, "expected after " + std::to_string(sizes) + " sizes, 'end drive " +
                                                   std::to_string(sizes) + "'");
      if (!out.rounds.empty() && out.rounds.back().size() != static_cast<std::size_t>(repetitions))
        bad_line(host, "driver", number, line, "the last size has " + std::to_string(out.rounds.back().size()) +
                                                   " rounds, not " + std::to_string(repetitions));
      ended = true;
      continue;
    }
    if (w.size() == 3 && w[0] == "size") {
      double encoded = 0;
      if (!read_count(w[1], index) || index != out.encoded.size() || index >= sizes || !read_figure(w[2], encoded) ||
          encoded < 1)
        bad_line(host, "driver", number, line, "expected 'size " + std::to_string(out.encoded.size()) +
                                                   " ENCODED_BYTES' (" + std::to_string(sizes) + " sizes)");
      if (!out.rounds.empty() && out.rounds.back().size() != static_cast<std::size_t>(repetitions))
        bad_line(host, "driver", number, line, "the size before has " + std::to_string(out.rounds.back().size()) +
                                                   " rounds, not " + std::to_string(repetitions));
      out.encoded.push_back(encoded);
      out.rounds.emplace_back();
      continue;
    }
    DriverRound r;
    if (w.size() != 6 || w[0] != "round" || !read_count(w[1], index) || out.encoded.empty() ||
        index != out.encoded.size() - 1 || !read_figure(w[2], r.wall_s) || !read_figure(w[3], r.send_s) ||
        !read_figure(w[4], r.receive_s) || !read_figure(w[5], r.process_s))
      bad_line(host, "driver", number, line,
               "expected 'round INDEX WALL_S SEND_S RECEIVE_S PROCESS_S' (seconds >= 0) of the size above");
    out.rounds.back().push_back(r);
  }
  if (!ended)
    throw std::runtime_error("host " + host + ": the driver's report ends without its 'end drive' line (" +
                             std::to_string(out.encoded.size()) + " of " + std::to_string(sizes) +
                             " sizes read): it was cut short");
  return out;
}

}  // namespace pstwin::cli
