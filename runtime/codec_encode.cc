// The wire encoder of Message (layout in codec.h), little-endian through runtime/byte_order.h:
// sizes, whole frames, split frames' header parts and values sections.
#include <bit>
#include <cstring>
#include <limits>
#include <string>

#include "runtime/byte_order.h"
#include "runtime/codec.h"
#include "runtime/codec_layout.h"
#include "runtime/errors.h"
#include "runtime/packed_values.h"

namespace pstwin {
namespace {

using namespace byte_order;
using namespace codec_layout;

// Checks the message's invariants (payload shape, op only on kReplicate) and picks the key mode. O(keys), allocates nothing.
KeyMode key_mode_of(const Message& msg) {
  const std::vector<Key>& keys = msg.keys;
  if ((msg.header.op == ReplicaOp::kNone) != (msg.header.type != MsgType::kReplicate))
    throw ProtocolError("encode " + std::string(msg_type_name(msg.header.type)) +
                        ": replicated operation " + std::string(replica_op_name(msg.header.op)) +
                        (msg.header.type == MsgType::kReplicate ? " on a replicate"
                                                                : " on a message that is not a replicate"));
  if (!msg.lengths.empty() && msg.lengths.size() != keys.size()) {
    throw ProtocolError("encode " + std::string(msg_type_name(msg.header.type)) + ": " +
                        std::to_string(msg.lengths.size()) + " lengths for " +
                        std::to_string(keys.size()) + " keys; expected none or one per key");
  }
  packed_values::check_for_encode(msg);
  if (keys.empty()) return kNoKeys;
  for (std::size_t i = 1; i < keys.size(); ++i) {
    if (keys[i] <= keys[i - 1]) {
      throw ProtocolError("encode " + std::string(msg_type_name(msg.header.type)) +
                          ": keys must be strictly increasing, but key[" + std::to_string(i) +
                          "] = " + std::to_string(keys[i]) + " follows key[" +
                          std::to_string(i - 1) + "] = " + std::to_string(keys[i - 1]));
    }
  }
  // n strictly increasing keys spanning exactly n-1 must be consecutive.
  return keys.back() - keys.front() == keys.size() - 1 ? kKeyRange : kExplicitKeys;
}

// Total stored plus virtual values; throws if the count cannot be represented.
std::uint64_t value_count(const Message& msg) {
  if (msg.value_format != ValueFormat::kFloat32) return msg.packed_count;
  const std::uint64_t stored = msg.values.size();
  if (msg.virtual_values > std::numeric_limits<std::uint64_t>::max() - stored) {
    throw ProtocolError("encode: value count overflows (virtual_values = " +
                        std::to_string(msg.virtual_values) + ")");
  }
  return stored + msg.virtual_values;
}

std::size_t encoded_size_for(const Message& msg, KeyMode mode) {
  constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
  const std::uint64_t n_v = value_count(msg);
  const std::size_t key_bytes =
      mode == kNoKeys ? 0 : mode == kKeyRange ? sizeof(std::uint64_t) : msg.keys.size() * 8;
  const std::size_t length_bytes = msg.lengths.size() * 4;
  std::size_t total = kMinMessageBytes + key_bytes + length_bytes + msg.data.size();  // cannot overflow: vectors
  if (msg.value_format != ValueFormat::kFloat32) return total + packed_values::section_bytes(msg);
  if (n_v > (kMax - total) / 4) {                                   // are bounded by memory
    throw ProtocolError("encode: message with " + std::to_string(n_v) +
                        " values is too large to encode");
  }
  return total + static_cast<std::size_t>(n_v) * 4;
}

// Bytes of the values section: 4 per stored or virtual value, or the packed bytes.
std::size_t values_bytes(const Message& msg) {
  if (msg.value_format != ValueFormat::kFloat32) return packed_values::section_bytes(msg);
  return (msg.values.size() + static_cast<std::size_t>(msg.virtual_values)) * 4;
}

// The fixed header and the keys; returns where the values section starts.
std::uint8_t* write_head(const Message& msg, KeyMode mode, std::uint8_t* p) {
  const MessageHeader& h = msg.header;
  std::memcpy(p, kMagic, 4);
  p[4] = kWireVersion;
  p[5] = static_cast<std::uint8_t>(h.type);
  p[6] = mode;
  p[7] = static_cast<std::uint8_t>(h.op);
  store_u32(p + 8, h.flags);
  store_u32(p + 12, h.sender);
  store_u32(p + 16, h.receiver);
  store_u32(p + 20, h.epoch);
  store_u32(p + 24, h.range);
  store_u32(p + 28, h.subject);
  store_u64(p + 32, h.request_id);
  store_u64(p + 40, h.seq);
  store_u64(p + 48, static_cast<std::uint64_t>(h.clock));
  store_u64(p + 56, static_cast<std::uint64_t>(h.version));
  store_u64(p + 64, static_cast<std::uint64_t>(h.time_us));
  store_u32(p + 72, std::bit_cast<std::uint32_t>(h.loss));
  store_u32(p + 76, static_cast<std::uint32_t>(msg.value_format));  // bytes 77..79 stay 0
  store_u64(p + 80, msg.keys.size());
  store_u64(p + 88, value_count(msg));
  store_u64(p + 96, msg.lengths.size());
  store_u64(p + 104, msg.data.size());
  p += kWireHeaderBytes;
  if (mode == kExplicitKeys) {
    store_array(p, msg.keys.data(), msg.keys.size());
    p += msg.keys.size() * 8;
  } else if (mode == kKeyRange) {
    store_u64(p, msg.keys.front());
    p += 8;
  }
  return p;
}

// The values section (packed bytes, or stored values then virtual ones as zeros); returns its end.
std::uint8_t* write_values(const Message& msg, std::uint8_t* p) {
  if (!msg.packed.empty()) std::memcpy(p, msg.packed.data(), msg.packed.size());
  p += msg.packed.size();
  store_array(p, msg.values.data(), msg.values.size());
  p += msg.values.size() * 4;
  if (msg.virtual_values > 0) std::memset(p, 0, msg.virtual_values * 4);
  return p + msg.virtual_values * 4;
}

// Lengths and data; returns where the checksum goes.
std::uint8_t* write_tail(const Message& msg, std::uint8_t* p) {
  store_array(p, msg.lengths.data(), msg.lengths.size());
  p += msg.lengths.size() * 4;
  if (!msg.data.empty()) std::memcpy(p, msg.data.data(), msg.data.size());
  return p + msg.data.size();
}

}  // namespace

std::size_t encoded_size(const Message& msg) { return encoded_size_for(msg, key_mode_of(msg)); }

std::vector<std::uint8_t> encode(const Message& msg) {
  std::vector<std::uint8_t> out(encoded_size(msg));
  encode_into(msg, out.data(), out.size());
  return out;
}

std::size_t encode_into(const Message& msg, std::uint8_t* out, std::size_t capacity,
                        FrameChecksum checksum) {
  const KeyMode mode = key_mode_of(msg);
  const std::size_t size = encoded_size_for(msg, mode);
  if (capacity < size)
    throw ProtocolError("encode " + std::string(msg_type_name(msg.header.type)) + ": needs " +
                        std::to_string(size) + " bytes, the buffer has " + std::to_string(capacity));
  std::uint8_t* p = write_head(msg, mode, out);
  p = write_values(msg, p);
  p = write_tail(msg, p);
  store_u32(p, checksum == FrameChecksum::kVerify ? frame_checksum(out, size - kCrcBytes) : 0);
  return size;
}

std::size_t values_section_size(const Message& msg) {
  key_mode_of(msg);  // the same checks as encoded_size
  return values_bytes(msg);
}

const std::uint8_t* values_in_place(const Message& msg) {
  if (msg.value_format != ValueFormat::kFloat32)
    return msg.packed.empty() ? nullptr : msg.packed.data();
  if (!kHostIsLittleEndian || msg.virtual_values > 0 || msg.values.empty()) return nullptr;
  return reinterpret_cast<const std::uint8_t*>(msg.values.data());
}

void write_values_section(const Message& msg, std::uint8_t* out) { write_values(msg, out); }

std::size_t values_offset(const std::uint8_t* head) {
  const std::uint8_t mode = head[6];
  return kWireHeaderBytes + (mode == kExplicitKeys ? load_u64(head + 80) * 8 : mode == kKeyRange ? 8 : 0);
}

std::size_t encode_split_into(const Message& msg, std::uint8_t* out, std::size_t capacity,
                              const std::uint8_t* values, FrameChecksum checksum) {
  const KeyMode mode = key_mode_of(msg);
  const std::size_t values_size = values_bytes(msg);
  const std::size_t size = encoded_size_for(msg, mode) - values_size;
  if (capacity < size)
    throw ProtocolError("encode " + std::string(msg_type_name(msg.header.type)) + ": its header part needs " +
                        std::to_string(size) + " bytes, the buffer has " + std::to_string(capacity));
  std::uint8_t* tail = write_head(msg, mode, out);
  std::uint8_t* p = write_tail(msg, tail);
  std::uint32_t sum = 0;
  if (checksum == FrameChecksum::kVerify)
    sum = split_checksum(out, static_cast<std::size_t>(tail - out), values, values_size, tail,
                         static_cast<std::size_t>(p - tail));
  store_u32(p, sum);
  return size;
}

}  // namespace pstwin
