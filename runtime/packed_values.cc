#include "runtime/packed_values.h"

#include "runtime/byte_order.h"
#include "runtime/errors.h"

namespace pstwin::packed_values {

void check_for_encode(const Message& msg) {
  if (msg.value_format == ValueFormat::kFloat32) {
    if (!msg.packed.empty() || msg.packed_count != 0)
      throw ProtocolError("encode " + std::string(msg_type_name(msg.header.type)) +
                          ": packed bytes with value format none");
    return;
  }
  const std::string where = "encode " + std::string(msg_type_name(msg.header.type)) + ": ";
  if (!msg.values.empty() || msg.virtual_values != 0)
    throw ProtocolError(where + "packed values (" + std::string(value_format_name(msg.value_format)) +
                        ") together with plain ones");
  if (auto problem = packed_problem(msg.value_format, msg.packed.data(), msg.packed.size(), msg.packed_count);
      !problem.empty())
    throw ProtocolError(where + problem);
}

std::size_t section_bytes(const Message& msg) {
  if (msg.value_format != ValueFormat::kFloat32) return msg.packed.size();
  return (msg.values.size() + msg.virtual_values) * 4;  // overflow is checked by the codec first
}

ValueFormat read_format(std::uint32_t reserved, const std::string& where) {
  const std::uint32_t format = reserved & 0xffu;
  if (reserved >> 8)
    throw ProtocolError(where + "reserved bytes 77..79 are " + byte_order::hex32(reserved >> 8) + ", must be 0");
  if (format > kMaxValueFormat)
    throw ProtocolError(where + "unknown value format " + std::to_string(format) + " (valid: 0.." +
                        std::to_string(kMaxValueFormat) + ")");
  return static_cast<ValueFormat>(format);
}

void take_packed(Message& msg, ValueFormat f, std::uint64_t n, const std::uint8_t* bytes, std::size_t size,
                 const std::string& where) {
  if (auto problem = packed_problem(f, bytes, size, static_cast<std::size_t>(n)); !problem.empty())
    throw ProtocolError(where + problem);
  msg.value_format = f;
  msg.packed_count = n;
  msg.packed.assign(bytes, bytes + size);
}

}  // namespace pstwin::packed_values
