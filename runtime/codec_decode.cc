// The wire decoder of Message (layout in codec.h): every count and length read from a frame is
// checked against the bytes that came before anything is allocated or copied.
#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "runtime/byte_order.h"
#include "runtime/codec.h"
#include "runtime/codec_layout.h"
#include "runtime/count_text.h"
#include "runtime/errors.h"
#include "runtime/packed_values.h"

namespace pstwin {
namespace {

using namespace byte_order;
using namespace codec_layout;

// Builds "decode <type>: <what>" errors once the type is known.
class DecodeError {
 public:
  explicit DecodeError(std::string_view type) : prefix_("decode " + std::string(type) + ": ") {}
  [[noreturn]] void fail(const std::string& what) const { throw ProtocolError(prefix_ + what); }

 private:
  std::string prefix_;
};


// Consumes `count` items of `item_bytes` from `remain`, failing if they do not fit. Divides
// instead of multiplying, so a count near 2^64 cannot overflow the check.
void take(const DecodeError& err, std::size_t& remain, std::uint64_t count,
          std::size_t item_bytes, const char* what) {
  if (count > remain / item_bytes) {
    err.fail("truncated: header says " + std::to_string(count) + " " + what + " (" +
             std::to_string(item_bytes) + " bytes each) but " + std::to_string(remain) +
             " bytes remain");
  }
  remain -= static_cast<std::size_t>(count) * item_bytes;
}

}  // namespace

Message decode(const std::uint8_t* data, std::size_t size, std::size_t max_bytes,
               std::uint64_t max_range_keys) {
  Message msg;
  decode_into(data, size, msg, max_bytes, max_range_keys);
  return msg;
}

namespace {
// How much of a piece is copied before it is hashed: small enough to be still in L1 or L2 when
// the hash reads it back, large enough that each copy and each hash update is one long run.
constexpr std::size_t kGatherStretchBytes = 64 * 1024;

}  // namespace

void append_values(std::span<const std::uint8_t> piece, std::vector<float>& out, FrameHasher* hasher) {
  for (std::size_t at = 0; at < piece.size(); at += kGatherStretchBytes) {
    const std::size_t n = std::min(kGatherStretchBytes, piece.size() - at);
    const std::size_t from = out.size();
    const std::uint8_t* bytes = piece.data() + at;
    if (reinterpret_cast<std::uintptr_t>(bytes) % alignof(float) == 0) {
      const auto* first = reinterpret_cast<const float*>(bytes);
      out.insert(out.end(), first, first + n / sizeof(float));
    } else {
      out.resize(from + n / sizeof(float));
      std::memcpy(out.data() + from, bytes, n);
    }
    if (hasher) hasher->add(reinterpret_cast<const std::uint8_t*>(out.data() + from), n);
  }
}

namespace {

// The values section of a split frame: the second part, apart from the head.
struct ValuesPart {
  const std::uint8_t* bytes;
  std::size_t size;
  // The vector `bytes` lies in, when the receiver placed them there (decode_split_adopting), or
  // the one `pieces` are to be gathered into: plain float32 values are then swapped into the
  // message instead of copied.
  std::vector<float>* adopt = nullptr;
  // The values in pieces, `size` bytes in all, to be gathered into *adopt (bytes is null).
  std::span<const std::span<const std::uint8_t>> pieces = {};
  // Values the receiver gathered into *adopt itself, hashed on the way (decode_split_hashed):
  // the head up to the values section, then the values, were added to it.
  FrameHasher* hashed = nullptr;
};

// Appends `pieces` (each a whole number of float32 values) to `out`, in order, within its
// capacity: no zero-filling. Each stretch goes to `hasher` (null: none) right after it is copied.
void gather_values(std::span<const std::span<const std::uint8_t>> pieces, std::vector<float>& out,
                   FrameHasher* hasher) {
  for (const std::span<const std::uint8_t> piece : pieces) append_values(piece, out, hasher);
}

// decode_into of a whole frame (`values` null), or of a split one: `data` its header part and
// `values` its values section.
void decode_frame(const std::uint8_t* data, std::size_t size, const ValuesPart* values, Message& msg,
                  std::size_t max_bytes, std::uint64_t max_range_keys, FrameChecksum checksum) {
  const DecodeError early("message");
  if (values && (values->size > max_bytes || size > max_bytes - values->size)) {
    early.fail("header part of " + std::to_string(size) + " bytes and values part of " +
               std::to_string(values->size) + " bytes exceed the limit of " + std::to_string(max_bytes) +
               " bytes");
  }
  if (size > max_bytes) {
    early.fail(std::to_string(size) + " bytes exceeds the limit of " + std::to_string(max_bytes) +
               " bytes");
  }
  // Magic and version first: a message of another format version (whose header may be shorter)
  // is named as such rather than as truncated.
  if (size >= 5 && std::memcmp(data, kMagic, 4) != 0) {
    early.fail("bad magic " + hex32(load_u32(data)) + ", expected \"PSTW\"");
  }
  if (size >= 5 && data[4] != kWireVersion) {
    early.fail("unknown format version " + std::to_string(data[4]) + " (this build reads " +
               std::to_string(kWireVersion) + ")");
  }
  if (size < kMinMessageBytes) {
    early.fail("truncated: " + std::to_string(size) + " bytes, less than the " +
               std::to_string(kMinMessageBytes) + "-byte minimum (header and checksum)");
  }
  if (data[5] == 0 || data[5] > kMaxMsgType) {
    early.fail("unknown message type " + std::to_string(data[5]) + " (valid: 1.." +
               std::to_string(kMaxMsgType) + ")");
  }
  msg.header = MessageHeader{};
  msg.virtual_values = 0;
  // A reused message may have carried packed values: none unless this frame has them.
  msg.value_format = ValueFormat::kFloat32;
  msg.packed_count = 0;
  msg.packed.clear();
  MessageHeader& h = msg.header;
  h.type = static_cast<MsgType>(data[5]);
  const DecodeError err(msg_type_name(h.type));

  const std::uint8_t mode = data[6];
  if (mode > kKeyRange) err.fail("unknown key mode " + std::to_string(mode) + " (valid: 0, 1, 2)");
  if (data[7] > kMaxReplicaOp)
    err.fail("unknown replicated operation " + std::to_string(data[7]) + " (valid: 0.." +
             std::to_string(kMaxReplicaOp) + ")");
  h.op = static_cast<ReplicaOp>(data[7]);
  if ((h.op == ReplicaOp::kNone) != (h.type != MsgType::kReplicate))
    err.fail(h.type == MsgType::kReplicate ? std::string("no replicated operation")
                                           : "replicated operation " +
                                                 std::string(replica_op_name(h.op)) +
                                                 " on a message that is not a replicate");
  const ValueFormat format =
      packed_values::read_format(load_u32(data + 76), "decode " + std::string(msg_type_name(h.type)) + ": ");
  const bool packed = format != ValueFormat::kFloat32;
  h.flags = load_u32(data + 8);
  h.sender = load_u32(data + 12);
  h.receiver = load_u32(data + 16);
  h.epoch = load_u32(data + 20);
  h.range = load_u32(data + 24);
  h.subject = load_u32(data + 28);
  h.request_id = load_u64(data + 32);
  h.seq = load_u64(data + 40);
  h.clock = static_cast<std::int64_t>(load_u64(data + 48));
  h.version = static_cast<std::int64_t>(load_u64(data + 56));
  h.time_us = static_cast<std::int64_t>(load_u64(data + 64));
  h.loss = std::bit_cast<float>(load_u32(data + 72));
  const std::uint64_t n_k = load_u64(data + 80);
  const std::uint64_t n_v = load_u64(data + 88);
  const std::uint64_t n_l = load_u64(data + 96);
  const std::uint64_t n_d = load_u64(data + 104);

  // Validate every count against the bytes actually present before allocating anything.
  if (mode == kNoKeys && n_k != 0) {
    err.fail("key mode 0 (no keys) but header says " + count_text(n_k, "key"));
  }
  if (mode != kNoKeys && n_k == 0) {
    err.fail("key mode " + std::to_string(mode) + " with 0 keys (an empty key list is mode 0)");
  }
  if (n_l != 0 && n_l != n_k) {
    err.fail("header says " + count_text(n_l, "length") + " for " + count_text(n_k, "key") +
             "; expected 0 or one per key");
  }
  // A range costs 8 payload bytes whatever its length, so bound its expansion separately (see the
  // declaration): by the receiver's key count and by the memory of the largest message.
  if (mode == kKeyRange && n_k > max_bytes / sizeof(Key)) {
    err.fail("key range of " + std::to_string(n_k) + " keys exceeds the " +
             std::to_string(max_bytes / sizeof(Key)) + " keys allowed by the " +
             std::to_string(max_bytes) + "-byte limit");
  }
  if (mode == kKeyRange && n_k > max_range_keys) {
    err.fail("key range of " + count_text(n_k, "key") + " exceeds the job's " + count_text(max_range_keys, "key"));
  }
  std::size_t remain = size - kMinMessageBytes;
  if (mode == kExplicitKeys) take(err, remain, n_k, 8, "keys");
  if (mode == kKeyRange) take(err, remain, 1, 8, "first-key fields");
  // Packed values take what the lengths and data leave; their count is bounded as a range's is.
  if (packed && n_v > max_bytes / sizeof(float))
    err.fail(std::to_string(n_v) + " packed values exceed the " + std::to_string(max_bytes / sizeof(float)) +
             " values allowed by the " + std::to_string(max_bytes) + "-byte limit");
  // Where the values section starts in the frame (a split frame's tail follows there).
  const std::size_t head_bytes = size - kMinMessageBytes - remain + kWireHeaderBytes;
  if (values && !packed && (values->size % 4 != 0 || values->size / 4 != n_v))
    err.fail("values part of " + std::to_string(values->size) + " bytes, but the header says " +
             std::to_string(n_v) + " values (" + std::to_string(n_v) + " x 4 bytes)");
  if (!packed && !values) take(err, remain, n_v, 4, "values");
  take(err, remain, n_l, 4, "lengths");
  take(err, remain, n_d, 1, "data bytes");
  const std::size_t packed_size = !packed ? 0 : values ? values->size : remain;
  if (!values) remain -= packed_size;
  if (remain != 0) {
    err.fail(std::to_string(remain) + " trailing bytes after " + std::to_string(n_k) + " keys, " +
             std::to_string(n_v) + " values, " + std::to_string(n_l) + " lengths and " +
             std::to_string(n_d) + " data bytes" + (values ? " in the header part" : ""));
  }
  const std::uint32_t stored_crc = load_u32(data + size - kCrcBytes);
  std::uint32_t computed_crc = stored_crc;
  const bool verify = checksum == FrameChecksum::kVerify;
  // Where the values section's bytes lie: in the frame, in the values part, or, for one that came
  // in pieces, where they are gathered now, hashed as they are copied.
  const std::uint8_t* value_bytes = values ? values->bytes : data + head_bytes;
  if (values && !values->pieces.empty()) {
    std::vector<float>& gather = *values->adopt;
    gather.clear();
    gather.reserve(values->size / sizeof(float));
    FrameHasher hasher;
    if (verify) hasher.add(data, head_bytes);
    gather_values(values->pieces, gather, verify ? &hasher : nullptr);
    if (verify) {
      hasher.add(data + head_bytes, size - kCrcBytes - head_bytes);
      computed_crc = hasher.digest();
    }
    value_bytes = reinterpret_cast<const std::uint8_t*>(gather.data());
  } else if (values && values->hashed) {
    if (verify) {
      values->hashed->add(data + head_bytes, size - kCrcBytes - head_bytes);
      computed_crc = values->hashed->digest();
    }
  } else if (verify) {
    computed_crc = values ? split_checksum(data, head_bytes, values->bytes, values->size, data + head_bytes,
                                           size - kCrcBytes - head_bytes)
                          : frame_checksum(data, size - kCrcBytes);
  }
  if (stored_crc != computed_crc) {
    err.fail("checksum mismatch: message says " + hex32(stored_crc) + ", bytes give " +
             hex32(computed_crc));
  }

  const std::uint8_t* p = data + kWireHeaderBytes;
  msg.keys.clear();
  if (mode == kExplicitKeys) {
    assign_array(msg.keys, p, n_k);
    p += n_k * 8;
    for (std::size_t i = 1; i < msg.keys.size(); ++i) {
      if (msg.keys[i] <= msg.keys[i - 1]) {
        err.fail("keys not strictly increasing: key[" + std::to_string(i) + "] = " +
                 std::to_string(msg.keys[i]) + " follows key[" + std::to_string(i - 1) +
                 "] = " + std::to_string(msg.keys[i - 1]));
      }
    }
  } else if (mode == kKeyRange) {
    const Key first = load_u64(p);
    p += 8;
    // The last key, first + n_k - 1, must not pass 2^64 - 1.
    if (n_k - 1 > std::numeric_limits<Key>::max() - first) {
      err.fail("key range of " + std::to_string(n_k) + " keys from " + std::to_string(first) +
               " overflows 64-bit keys");
    }
    msg.keys.resize(n_k);
    for (std::uint64_t i = 0; i < n_k; ++i) msg.keys[i] = first + i;
  }
  if (packed) {
    msg.values.clear();
    packed_values::take_packed(msg, format, n_v, value_bytes, packed_size,
                               "decode " + std::string(msg_type_name(h.type)) + ": ");
  } else if (values && values->adopt && kHostIsLittleEndian) {
    msg.values.swap(*values->adopt);  // n_v values exactly: checked with the part's length above
  } else {
    assign_array(msg.values, value_bytes, n_v);
  }
  if (!values) p += packed ? packed_size : n_v * 4;
  assign_array(msg.lengths, p, n_l);
  p += n_l * 4;
  msg.data.assign(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n_d));
}

}  // namespace

void decode_into(const std::uint8_t* data, std::size_t size, Message& msg, std::size_t max_bytes,
                 std::uint64_t max_range_keys, FrameChecksum checksum) {
  decode_frame(data, size, nullptr, msg, max_bytes, max_range_keys, checksum);
}

void decode_split_into(const std::uint8_t* head, std::size_t head_size, const std::uint8_t* values,
                       std::size_t values_size, Message& msg, std::size_t max_bytes,
                       std::uint64_t max_range_keys, FrameChecksum checksum) {
  const ValuesPart part{values, values_size};
  decode_frame(head, head_size, &part, msg, max_bytes, max_range_keys, checksum);
}

void decode_split_gathering(const std::uint8_t* head, std::size_t head_size,
                            std::span<const std::span<const std::uint8_t>> pieces, std::vector<float>& gather,
                            Message& msg, std::size_t max_bytes, std::uint64_t max_range_keys,
                            FrameChecksum checksum) {
  if (pieces.empty()) {
    decode_split_into(head, head_size, nullptr, 0, msg, max_bytes, max_range_keys, checksum);
    return;
  }
  std::size_t total = 0;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (pieces[i].size() % sizeof(float) != 0)
      throw ProtocolError("decode: values piece " + std::to_string(i + 1) + " of " + std::to_string(pieces.size()) +
                          " is " + std::to_string(pieces[i].size()) + " bytes, not a whole number of values");
    total += pieces[i].size();  // cannot overflow: the pieces lie in memory
  }
  const ValuesPart part{nullptr, total, &gather, pieces};
  decode_frame(head, head_size, &part, msg, max_bytes, max_range_keys, checksum);
}

void decode_split_adopting(const std::uint8_t* head, std::size_t head_size, std::vector<float>& values,
                           Message& msg, std::size_t max_bytes, std::uint64_t max_range_keys,
                           FrameChecksum checksum) {
  const ValuesPart part{reinterpret_cast<const std::uint8_t*>(values.data()), values.size() * sizeof(float),
                        &values};
  decode_frame(head, head_size, &part, msg, max_bytes, max_range_keys, checksum);
}

std::size_t checked_values_offset(const std::uint8_t* head, std::size_t head_size) {
  const DecodeError err("message");
  if (head_size < kMinMessageBytes)
    err.fail("truncated: header part of " + std::to_string(head_size) + " bytes, less than the " +
             std::to_string(kMinMessageBytes) + "-byte minimum (header and checksum)");
  if (std::memcmp(head, kMagic, 4) != 0) err.fail("bad magic " + hex32(load_u32(head)) + ", expected \"PSTW\"");
  if (head[4] != kWireVersion)
    err.fail("unknown format version " + std::to_string(head[4]) + " (this build reads " +
             std::to_string(kWireVersion) + ")");
  const std::uint8_t mode = head[6];
  const std::uint64_t n_k = load_u64(head + 80);
  std::size_t remain = head_size - kMinMessageBytes;
  if (mode == kExplicitKeys) take(err, remain, n_k, 8, "keys");
  if (mode == kKeyRange) take(err, remain, 1, 8, "first-key fields");
  return head_size - kCrcBytes - remain;
}

void decode_split_hashed(const std::uint8_t* head, std::size_t head_size, std::vector<float>& values,
                         FrameHasher* hashed, Message& msg, std::size_t max_bytes, std::uint64_t max_range_keys,
                         FrameChecksum checksum) {
  if (checksum == FrameChecksum::kVerify && hashed == nullptr)
    throw std::invalid_argument("decode_split_hashed: kVerify needs the hash of what came");
  ValuesPart part{reinterpret_cast<const std::uint8_t*>(values.data()), values.size() * sizeof(float), &values};
  part.hashed = hashed;
  decode_frame(head, head_size, &part, msg, max_bytes, max_range_keys, checksum);
}

}  // namespace pstwin
