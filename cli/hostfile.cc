#include "cli/hostfile.h"
#include "runtime/count_text.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace pstwin::cli {

std::vector<HostSlots> read_hostfile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read hostfile " + path);
  std::vector<HostSlots> hosts;
  std::string line;
  for (int line_no = 1; std::getline(in, line); ++line_no) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream fields(line);
    HostSlots h;
    if (!(fields >> h.host)) continue;
    std::string extra;
    if (fields >> extra) {
      if (extra.rfind("slots=", 0) != 0)
        throw std::runtime_error(path + ":" + std::to_string(line_no) + ": expected 'slots=N', got '" + extra + "'");
      try {
        std::size_t used = 0;
        const int n = std::stoi(extra.substr(6), &used);
        if (used != extra.size() - 6 || n < 1) throw std::invalid_argument("slots");
        h.slots = static_cast<unsigned>(n);
      } catch (const std::exception&) {
        throw std::runtime_error(path + ":" + std::to_string(line_no) +
                                 ": slots must be a positive integer, got '" + extra.substr(6) + "'");
      }
      if (fields >> extra)
        throw std::runtime_error(path + ":" + std::to_string(line_no) + ": unexpected '" + extra + "'");
    }
    hosts.push_back(h);
  }
  if (hosts.empty()) throw std::runtime_error("hostfile " + path + " lists no hosts");
  return hosts;
}

std::size_t total_slots(const std::vector<HostSlots>& hosts) {
  std::size_t n = 0;
  for (const auto& h : hosts) n += h.slots;
  return n;
}

std::vector<std::string> assign_hosts(const std::vector<HostSlots>& hosts, std::size_t count) {
  if (count > total_slots(hosts))
    throw std::invalid_argument("the hostfile has " + count_text(total_slots(hosts), "slot") + " for " +
                                count_text(count, "role"));
  std::vector<std::string> out;
  for (const auto& h : hosts)
    for (unsigned s = 0; s < h.slots && out.size() < count; ++s) out.push_back(h.host);
  return out;
}

std::vector<std::string> split_words(const std::string& command) {
  std::vector<std::string> words;
  std::istringstream in(command);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<std::string> over_ssh(const std::string& ssh_command, const std::string& host, const std::string& cwd,
                                  const std::vector<std::string>& argv) {
  std::string command = "cd " + shell_quote(cwd) + " && exec";
  for (const auto& a : argv) command.append(" ").append(shell_quote(a));
  std::vector<std::string> line = split_words(ssh_command);
  line.push_back(host);
  line.push_back(command);
  return line;
}

}  // namespace pstwin::cli
