// The pstwin subcommands. Each takes its arguments after the subcommand name and returns the
// process exit status: 0 success, 1 a run failed, 2 bad input (scenario, flag or data).
#pragma once

#include <string>
#include <vector>

namespace pstwin::cli {

/// `pstwin simulate SCENARIO.json [--out DIR] [--set /ptr=value ...] [--jobs N] [--quiet]`
int simulate_command(const std::vector<std::string>& args);

/// `pstwin node --role R --scheduler tcp://HOST:PORT [...] SCENARIO.json`: one node of a real job.
int node_command(const std::vector<std::string>& args);

/// `pstwin launch SCENARIO.json [--transport zmq|ucx|inproc] [--out DIR] [--hostfile FILE] [...]`
int launch_command(const std::vector<std::string>& args);

/// `pstwin keygen FILE`: writes a new job key pair.
int keygen_command(const std::vector<std::string>& args);

/// `pstwin sweep SCENARIO.json --grid /ptr=v1,v2,... [--seeds N] [--jobs N] [--out DIR] [--set ...]`
int sweep_command(const std::vector<std::string>& args);

/// `pstwin validate SCENARIO.json [--set /ptr=value ...]`
int validate_command(const std::vector<std::string>& args);

/// `pstwin calibrate [SCENARIO.json ...] --out FILE [--transport T] [--device D] [--quick]
/// [--max-message B] [--hostfile F [--ssh-command C]]`: measures this machine (with a hostfile,
/// the transport between its first two machines) and writes a cluster section to include
/// (cli/calibrate_command.cc).
int calibrate_command(const std::vector<std::string>& args);

/// `pstwin calibrate-peer echo|drive ...`: internal, one of the two processes `calibrate --hostfile`
/// starts on the machines it measures between (cli/calibrate_peer_command.cc).
int calibrate_peer_command(const std::vector<std::string>& args);

/// `pstwin --version`: pstwin's version and commit, and the versions of the SimGrid and ZeroMQ
/// libraries it runs with and of the CUDA it was built with ("not built" without), on stdout.
int version_command();

}  // namespace pstwin::cli
