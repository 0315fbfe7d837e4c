#include "net/zmq_identity.h"

#include <sstream>

namespace pstwin::net {

int to_ms(double seconds) { return static_cast<int>(seconds * 1000.0); }

std::string format_seconds(double s) {
  std::ostringstream out;
  out << s << " s";
  return out.str();
}

// Strings here are built with append: GCC 12 warns falsely (-Wrestrict) on "literal" + string.
std::string node_identity(NodeId id) { return std::string("n").append(std::to_string(id)); }

std::optional<NodeId> parse_node_identity(const std::string& identity, char prefix) {
  if (identity.size() < 2 || identity.size() > 11 || identity[0] != prefix) return std::nullopt;
  std::uint64_t id = 0;
  for (std::size_t i = 1; i < identity.size(); ++i) {
    if (identity[i] < '0' || identity[i] > '9') return std::nullopt;
    id = id * 10 + static_cast<std::uint64_t>(identity[i] - '0');
  }
  if (id > 0xffffffffULL) return std::nullopt;
  return static_cast<NodeId>(id);
}

std::string printable(const std::string& s) {
  std::string out;
  for (unsigned char c : s.substr(0, 32)) out += (c >= 32 && c < 127) ? static_cast<char>(c) : '?';
  return out;
}

}  // namespace pstwin::net
