#include "net/message_limit.h"

#include <limits>

namespace pstwin::net {

std::int64_t zmq_part_limit(std::size_t max_message_bytes) {
  constexpr auto kMax = static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max());
  if (max_message_bytes > kMax / 2) return -1;
  return static_cast<std::int64_t>(2 * max_message_bytes);
}

std::optional<std::string> oversize_parts(const ReceivedParts& parts, std::size_t max_message_bytes) {
  const std::size_t head = parts.head.size(), values = parts.values.size();
  // Each part is below ZeroMQ's limit (zmq_part_limit), so their sum cannot wrap.
  if (head + values <= max_message_bytes) return std::nullopt;
  return std::to_string(head + values) + " bytes, over the " + std::to_string(max_message_bytes) +
         "-byte message limit";
}

std::string oversize_send_error(const Message& msg, std::size_t size, std::size_t max_message_bytes) {
  return "node " + std::to_string(msg.header.sender) + ": will not send a " +
         std::string(msg_type_name(msg.header.type)) + " of key range " + std::to_string(msg.header.range) +
         " to node " + std::to_string(msg.header.receiver) + ": " + std::to_string(size) +
         " bytes, over the " + std::to_string(max_message_bytes) +
         "-byte message limit, which its receiver would drop; use more servers, so that each key range is smaller";
}

}  // namespace pstwin::net
