// ZeroMQ's two-part messages (see zmq_parts.h).
#include "net/zmq_parts.h"

#include <cstdlib>
#include <mutex>
#include <vector>

namespace pstwin::net {
namespace {

/// A message whose values section ZeroMQ sends from where it lies, until its I/O thread is done.
struct LentMessage {
  std::shared_ptr<SpareValues> spare;
  Message msg;
};

void give_values_back(void*, void* hint) {
  std::unique_ptr<LentMessage> lent(static_cast<LentMessage*>(hint));
  lent->spare->give(std::move(lent->msg.values));
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
                            const std::shared_ptr<SpareValues>& spare) {
  const std::size_t values_size = values_section_size(msg);
  const std::size_t head_size = encoded_size(msg) - values_size;
  OutgoingParts parts;
  const std::uint8_t* values = values_in_place(msg);
  if (values_size >= kLentPartBytes && values != nullptr) {
    // Lent where it lies: moving the message keeps its vectors' memory where it is.
    parts.head = part_of(head_size, frames, [&](std::uint8_t* out) {
      encode_split_into(msg, out, head_size, values, checksum);
    });
    auto lent = std::make_unique<LentMessage>(LentMessage{spare, std::move(msg)});
    parts.values.rebuild(const_cast<std::uint8_t*>(values), values_size, give_values_back, lent.get());
    lent.release();  // ZeroMQ owns it now, and calls give_values_back once the part is sent
    return parts;
  }
  values = values_to_send(msg);
  if (values_size >= kLentPartBytes && values != nullptr) {
    // Virtual values only: the shared zeros, which nothing frees.
    parts.values.rebuild(const_cast<std::uint8_t*>(values), values_size, nullptr, nullptr);
  } else if (values_size > 0) {
    parts.values = part_of(values_size, frames, [&](std::uint8_t* out) { write_values_section(msg, out); });
    values = static_cast<const std::uint8_t*>(parts.values.data());
  }
  parts.head = part_of(head_size, frames, [&](std::uint8_t* out) {
    encode_split_into(msg, out, head_size, values, checksum);
  });
  spare->give(std::move(msg.values));
  return parts;
}

void decode_parts(const ReceivedParts& parts, Message& into, std::size_t max_bytes, std::uint64_t max_range_keys,
                  FrameChecksum checksum) {
  decode_split_into(static_cast<const std::uint8_t*>(parts.head.data()), parts.head.size(),
                    static_cast<const std::uint8_t*>(parts.values.data()), parts.values.size(), into, max_bytes,
                    max_range_keys, checksum);
}

}  // namespace pstwin::net
