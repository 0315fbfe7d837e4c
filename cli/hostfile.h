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

/// Slots over all hosts.
std::size_t total_slots(const std::vector<HostSlots>& hosts);

/// Assigns `count` roles to hosts in order, each host taking up to its slots before the next:
/// the host of each role. Throws std::invalid_argument when count exceeds total_slots(hosts).
std::vector<std::string> assign_hosts(const std::vector<HostSlots>& hosts, std::size_t count);

/// Splits a command line such as "ssh -i key" into words at spaces and tabs (no quoting).
std::vector<std::string> split_words(const std::string& command);

/// Quotes `s` for a POSIX shell (single quotes), for commands run over ssh.
std::string shell_quote(const std::string& s);

/// The command line that runs `argv` on `host` through `ssh_command` (split_words), as
/// "SSH... HOST 'cd CWD && exec ARGV...'": the same paths must exist on every host.
std::vector<std::string> over_ssh(const std::string& ssh_command, const std::string& host, const std::string& cwd,
                                  const std::vector<std::string>& argv);

}  // namespace pstwin::cli
