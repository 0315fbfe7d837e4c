// Hostfiles for `pstwin launch --hostfile`: which machines the roles of a job run on.
#pragma once

#include <string>
#include <vector>

namespace pstwin::cli {

/// A machine and how many roles it takes in each round of the assignment.
struct HostSlots {
  std::string host;
  unsigned slots = 1;
};

/// Reads a hostfile: one machine per line, "HOST" or "HOST slots=N" (N >= 1), '#' comments and
/// blank lines ignored (the format of MPI hostfiles). Throws std::runtime_error naming the file
/// and line for a malformed line or a file with no hosts.
std::vector<HostSlots> read_hostfile(const std::string& path);

/// Assigns `count` roles to hosts in order, each host taking up to its slots before the next,
/// and wrapping around: the host of each role.
std::vector<std::string> assign_hosts(const std::vector<HostSlots>& hosts, std::size_t count);

/// Quotes `s` for a POSIX shell (single quotes), for commands run over ssh.
std::string shell_quote(const std::string& s);

}  // namespace pstwin::cli
