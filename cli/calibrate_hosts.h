// `pstwin calibrate --hostfile`: timing a transport between two machines of a hostfile, one
// pstwin process on each (cli/calibrate_peer_command.cc), started as `launch --hostfile` starts
// its nodes.
#pragma once

#include <string>
#include <vector>

#include "cli/calibrate_transports.h"
#include "cli/hostfile.h"

namespace pstwin::cli {

/// How calibrate reaches the two machines.
struct HostPairSettings {
  std::string echo_host;   ///< runs the echo peer (the hostfile's first host)
  std::string drive_host;  ///< runs the driver (its second)
  std::string ssh_command = "ssh";  ///< words, then the host, then one shell command (as launch)
  /// A folder both machines see at the same path (as launch's output folder): the CURVE key file
  /// goes there for the run and is removed after.
  std::string key_dir;
  double connect_timeout_s = 30.0;  ///< each side's wait for the other to join
};

/// The first two hosts of `hosts` (a hostfile's, in order), or throws std::invalid_argument
/// naming `path` and saying why one host cannot measure a transport between machines.
std::pair<std::string, std::string> first_two_hosts(const std::vector<HostSlots>& hosts, const std::string& path);

/// Times `transport` ("zmq" or "zmq-curve") between the two machines of `s`: starts
/// `pstwin calibrate-peer echo` on echo_host through the ssh command (`cd CWD && exec pstwin
/// ...`, the same paths on both machines, as launch), reads its endpoint, starts `calibrate-peer
/// drive` on drive_host with it, which runs the sizes and repetitions of measure_transport, and
/// combines both sides' rounds (combine_rounds: each process charged its own I/O threads).
/// Both processes end by themselves (their timeouts); when calibrate gives up on them first (a
/// report malformed or cut short, either ending badly, nothing heard for kEchoReplyTimeout_s
/// plus the connect timeout plus 30 s, the echo peer not done 30 s after the driver), they are
/// killed. Throws std::runtime_error naming the host and what went wrong:
/// a process that ended before its report (with how it ended), a line that is not what it
/// should be (cli/calibrate_peer_lines.h), a key file that cannot be written.
std::vector<TransportSample> measure_transport_between(const HostPairSettings& s, const std::string& transport,
                                                       const std::vector<std::size_t>& sizes, int repetitions);

}  // namespace pstwin::cli
