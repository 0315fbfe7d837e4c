// ZeroMQ's multi-part messages (see zmq_parts.h).
#include "net/zmq_parts.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <span>
#include <vector>

#include "runtime/errors.h"

namespace pstwin::net {
namespace {

/// A message whose values section ZeroMQ sends from where it lies, in parts: each part holds a
/// share, and whichever part ZeroMQ's I/O thread is done with last gives the values back.
struct LentMessage {
  LentMessage(std::shared_ptr<SpareValues> spare_values, Message message)
      : spare(std::move(spare_values)), msg(std::move(message)) {}
  LentMessage(const LentMessage&) = delete;
  LentMessage& operator=(const LentMessage&) = delete;
  ~LentMessage() { spare->give(std::move(msg.values)); }
  std::shared_ptr<SpareValues> spare;
  Message msg;
};
using LentShare = std::shared_ptr<LentMessage>;

void drop_share(void*, void* hint) { delete static_cast<LentShare*>(hint); }

/// bytes[0..size) as parts of `chunk` bytes but the last, sent from where they lie; each part
/// holds a share of `owner` (null: the bytes are never freed, the shared zeros).
std::vector<zmq::message_t> chunked(const std::uint8_t* bytes, std::size_t size, std::size_t chunk,
                                    const LentShare& owner) {
  std::vector<zmq::message_t> parts;
  parts.reserve((size + chunk - 1) / chunk);
  for (std::size_t at = 0; at < size; at += chunk) {
    auto* data = const_cast<std::uint8_t*>(bytes + at);
    const std::size_t n = std::min(chunk, size - at);
    if (!owner) {
      parts.emplace_back(data, n, nullptr, nullptr);
      continue;
    }
    auto share = std::make_unique<LentShare>(owner);
    parts.emplace_back(data, n, drop_share, share.get());
    share.release();  // ZeroMQ owns it now, and calls drop_share once the part is sent
  }
  return parts;
}

/// A pool buffer lent to ZeroMQ until its I/O thread has sent it.
struct LentFrame {
  std::shared_ptr<FramePool> pool;
  Frame frame;
};

void give_frame_back(void*, void* hint) {
  std::unique_ptr<LentFrame> lent(static_cast<LentFrame*>(hint));
  lent->pool->release(std::move(lent->frame));
}

/// At least `size` zero bytes, for virtual values (the timing-only model's), which travel as
/// zeros: one block for the process, grown when a larger message needs it and never freed (ZeroMQ
/// may still be sending from an older one). calloc's fresh pages are the kernel's zero page until
/// written, so the block costs address space, not memory. The list itself is never destroyed
/// either: destroyed at exit, it would drop the last pointers to the blocks before
/// LeakSanitizer's check runs, which then reports them as leaks.
const std::uint8_t* zeros(std::size_t size) {
  static std::mutex mutex;
  static auto& blocks = *new std::vector<const std::uint8_t*>();
  static std::size_t largest = 0;
  std::lock_guard lock(mutex);
  if (size > largest) {
    auto* block = static_cast<const std::uint8_t*>(std::calloc(size, 1));
    if (block == nullptr) throw std::bad_alloc();
    blocks.push_back(block);
    largest = size;
  }
  return blocks.back();
}

/// `size` bytes written by `fill` into a part: ZeroMQ's own allocation when small, else a pool
/// buffer lent to ZeroMQ.
template <typename Fill>
zmq::message_t part_of(std::size_t size, const std::shared_ptr<FramePool>& frames, Fill fill) {
  zmq::message_t part;
  if (size < kLentPartBytes) {
    part.rebuild(size);
    fill(static_cast<std::uint8_t*>(part.data()));
    return part;
  }
  auto lent = std::make_unique<LentFrame>(LentFrame{frames, frames->acquire(size)});
  fill(lent->frame.data());
  part.rebuild(lent->frame.data(), size, give_frame_back, lent.get());
  lent.release();  // ZeroMQ owns it now, and calls give_frame_back once the part is sent
  return part;
}

}  // namespace

const std::uint8_t* values_to_send(const Message& msg) {
  if (const std::uint8_t* in_place = values_in_place(msg)) return in_place;
  if (msg.value_format == ValueFormat::kFloat32 && msg.values.empty() && msg.virtual_values > 0)
    return zeros(static_cast<std::size_t>(msg.virtual_values) * 4);
  return nullptr;
}

OutgoingParts split_for_zmq(Message msg, FrameChecksum checksum, const std::shared_ptr<FramePool>& frames,
                            const std::shared_ptr<SpareValues>& spare, std::size_t chunk_bytes) {
  const std::size_t values_size = values_section_size(msg);
  const std::size_t head_size = encoded_size(msg) - values_size;
  OutgoingParts parts;
  const std::uint8_t* values = values_in_place(msg);
  if (values_size >= kLentPartBytes && values != nullptr) {
    // Lent where it lies: moving the message keeps its vectors' memory where it is.
    parts.head = part_of(head_size, frames, [&](std::uint8_t* out) {
      encode_split_into(msg, out, head_size, values, checksum);
    });
    parts.values = chunked(values, values_size, chunk_bytes,
                           std::make_shared<LentMessage>(spare, std::move(msg)));
    return parts;
  }
  values = values_to_send(msg);
  if (values_size >= kLentPartBytes && values != nullptr) {
    // Virtual values only: the shared zeros, which nothing frees.
    parts.values = chunked(values, values_size, chunk_bytes, nullptr);
  } else if (values_size > 0) {
    // Small, or mixed stored and virtual values (rare): written out, in one part.
    parts.values.push_back(part_of(values_size, frames, [&](std::uint8_t* out) { write_values_section(msg, out); }));
    values = static_cast<const std::uint8_t*>(parts.values.back().data());
  }
  parts.head = part_of(head_size, frames, [&](std::uint8_t* out) {
    encode_split_into(msg, out, head_size, values, checksum);
  });
  spare->give(std::move(msg.values));
  return parts;
}

namespace {
std::size_t total_size(const std::vector<zmq::message_t>& parts) {
  std::size_t total = 0;
  for (const zmq::message_t& part : parts) total += part.size();
  return total;
}
}  // namespace

std::size_t values_bytes(const ReceivedParts& parts) { return total_size(parts.values); }
std::size_t values_bytes(const OutgoingParts& parts) { return total_size(parts.values); }

void check_value_parts(const ReceivedParts& parts) {
  const std::size_t count = parts.values.size();
  if (count > kMaxValueParts)
    throw ProtocolError("decode: " + std::to_string(count) + " values parts, more than the " +
                        std::to_string(kMaxValueParts) + " a message may have");
  if (count == 0) return;
  const std::size_t first = parts.values[0].size();
  const auto name = [&](std::size_t i) {
    return "values part " + std::to_string(i + 1) + " of " + std::to_string(count) + " is " +
           std::to_string(parts.values[i].size()) + " bytes";
  };
  if (first == 0) throw ProtocolError("decode: " + name(0) + ": a part is never empty");
  if (count > 1 && first % sizeof(float) != 0)
    throw ProtocolError("decode: " + name(0) + ", not a whole number of values, and more follow");
  for (std::size_t i = 1; i + 1 < count; ++i)
    if (parts.values[i].size() != first)
      throw ProtocolError("decode: " + name(i) + " but part 1 is " + std::to_string(first) +
                          ": every part but the last is as long as the first (a part lost or cut off?)");
  const std::size_t last = parts.values[count - 1].size();
  if (count > 1 && (last == 0 || last > first))
    throw ProtocolError("decode: " + name(count - 1) + " but part 1 is " + std::to_string(first) +
                        ": the last part is 1 to " + std::to_string(first) + " bytes");
}

void decode_parts(const ReceivedParts& parts, Message& into, std::size_t max_bytes, std::uint64_t max_range_keys,
                  FrameChecksum checksum, std::vector<float> gather) {
  const auto* head = static_cast<const std::uint8_t*>(parts.head.data());
  check_value_parts(parts);
  const std::size_t total = values_bytes(parts);
  // Before gathering anything: ZeroMQ's size limit is per part.
  if (total > max_bytes || parts.head.size() > max_bytes - total)
    throw ProtocolError("decode: header part of " + std::to_string(parts.head.size()) + " bytes and " +
                        std::to_string(parts.values.size()) + " values parts of " + std::to_string(total) +
                        " bytes in all exceed the limit of " + std::to_string(max_bytes) + " bytes");
  const auto bytes_of = [](const zmq::message_t& part) {
    return std::span<const std::uint8_t>(static_cast<const std::uint8_t*>(part.data()), part.size());
  };
  if (total % sizeof(float) != 0) {
    // Packed values of an odd length: one part decoded where it lies, several gathered as bytes.
    if (parts.values.size() == 1) {
      decode_split_into(head, parts.head.size(), bytes_of(parts.values[0]).data(), total, into, max_bytes,
                        max_range_keys, checksum);
      return;
    }
    std::vector<std::uint8_t> bytes;
    bytes.reserve(total);
    for (const zmq::message_t& part : parts.values) {
      const auto b = bytes_of(part);
      bytes.insert(bytes.end(), b.begin(), b.end());
    }
    decode_split_into(head, parts.head.size(), bytes.data(), bytes.size(), into, max_bytes, max_range_keys, checksum);
    return;
  }
  // Gathered in wire order into one vector, hashed as it is copied, which plain float32 values
  // then become (no second copy, no second pass for the checksum).
  std::vector<std::span<const std::uint8_t>> pieces;
  pieces.reserve(parts.values.size());
  for (const zmq::message_t& part : parts.values) pieces.push_back(bytes_of(part));
  if (gather.capacity() < into.values.capacity()) gather.swap(into.values);
  decode_split_gathering(head, parts.head.size(), pieces, gather, into, max_bytes, max_range_keys, checksum);
}

}  // namespace pstwin::net
