// Streamed values sections (see values_stream.h).
#include "net/values_stream.h"

#include <cstring>
#include <stdexcept>
#include <utility>

#include "runtime/byte_order.h"
#include "runtime/errors.h"

namespace pstwin::net {
namespace {

using namespace byte_order;

constexpr char kAnnouncementMagic[4] = {'P', 'S', 'T', 'S'};
constexpr char kMarkerMagic[4] = {'P', 'S', 'T', 'V'};
constexpr std::size_t kAnnouncementBytes = 24;
constexpr std::size_t kMarkerBytes = 8;

const std::uint8_t* bytes_of(const zmq::message_t& m) { return static_cast<const std::uint8_t*>(m.data()); }

bool starts_with(const zmq::message_t& m, const char (&magic)[4]) {
  return m.size() >= 4 && std::memcmp(m.data(), magic, 4) == 0;
}

std::string count_of(std::uint64_t n) { return std::to_string(n); }

}  // namespace

StreamFrame stream_frame_of(const zmq::message_t& first) {
  if (starts_with(first, kAnnouncementMagic)) return StreamFrame::kAnnouncement;
  if (starts_with(first, kMarkerMagic)) return StreamFrame::kValuesPart;
  return StreamFrame::kMessage;
}

bool sent_as_stream(const OutgoingParts& parts) {
  return parts.values.size() > 1 && values_bytes(parts) % sizeof(float) == 0;
}

zmq::message_t announcement_of(const OutgoingParts& parts) {
  zmq::message_t m(kAnnouncementBytes);
  auto* p = static_cast<std::uint8_t*>(m.data());
  std::memcpy(p, kAnnouncementMagic, 4);
  store_u32(p + 4, static_cast<std::uint32_t>(parts.values.size()));
  store_u64(p + 8, parts.values.front().size());
  store_u64(p + 16, values_bytes(parts));
  return m;
}

zmq::message_t part_marker(std::uint32_t number) {
  zmq::message_t m(kMarkerBytes);
  auto* p = static_cast<std::uint8_t*>(m.data());
  std::memcpy(p, kMarkerMagic, 4);
  store_u32(p + 4, number);
  return m;
}

ValuesReassembly::ValuesReassembly(std::size_t max_message_bytes, std::shared_ptr<SpareValues> spare)
    : max_message_bytes_(max_message_bytes), spare_(std::move(spare)) {}

void ValuesReassembly::start(NodeId peer, const zmq::message_t& announcement, zmq::message_t head,
                             FrameChecksum checksum, int connection) {
  if (open_.count(peer) != 0) throw std::logic_error("ValuesReassembly::start: a message of this peer is open");
  const auto fail = [&](const std::string& why) { throw ProtocolError("values stream: " + why); };
  if (announcement.size() != kAnnouncementBytes)
    fail("announcement of " + count_of(announcement.size()) + " bytes, expected " + count_of(kAnnouncementBytes));
  const std::uint8_t* p = bytes_of(announcement);
  Assembly a;
  a.parts = load_u32(p + 4);
  a.part_bytes = load_u64(p + 8);
  a.total_bytes = load_u64(p + 16);
  const std::string said = "announced " + count_of(a.parts) + " values parts of " + count_of(a.part_bytes) +
                           " bytes, " + count_of(a.total_bytes) + " bytes in all";
  if (a.parts < 2 || a.parts > kMaxValueParts)
    fail(said + ": a stream has 2 to " + count_of(kMaxValueParts) + " parts");
  if (a.part_bytes == 0 || a.part_bytes % sizeof(float) != 0 || a.part_bytes > max_message_bytes_)
    fail(said + ": a part is a whole number of values, within the message limit of " +
         count_of(max_message_bytes_) + " bytes");
  // Cannot overflow: part_bytes <= max_message_bytes_ and parts <= kMaxValueParts.
  if (a.total_bytes <= (a.parts - 1) * a.part_bytes || a.total_bytes > a.parts * a.part_bytes ||
      a.total_bytes % sizeof(float) != 0)
    fail(said + ": the parts cannot hold that many bytes (each part but the last full, the last 1 to " +
         count_of(a.part_bytes) + " bytes, all whole values)");
  if (a.total_bytes > max_message_bytes_ || head.size() > max_message_bytes_ - a.total_bytes)
    fail("header part of " + count_of(head.size()) + " bytes and " + count_of(a.total_bytes) +
         " bytes of values exceed the limit of " + count_of(max_message_bytes_) + " bytes");
  std::size_t values_at = 0;
  try {
    values_at = checked_values_offset(bytes_of(head), head.size());
  } catch (const ProtocolError& e) {
    fail(std::string("header part: ") + e.what());
  }
  // Plain float32 values (format 0, byte 76) are 4 bytes each; packed ones the decoder checks.
  const std::uint64_t n_v = load_u64(bytes_of(head) + 88);
  if (bytes_of(head)[76] == 0 && (n_v > a.total_bytes / sizeof(float) || n_v * sizeof(float) != a.total_bytes))
    fail(said + ", but the header part says " + count_of(n_v) + " values");
  if (checksum == FrameChecksum::kVerify) {
    a.hasher = std::make_unique<FrameHasher>();
    a.hasher->add(bytes_of(head), values_at);
  }
  a.values = spare_->take(a.total_bytes / sizeof(float));
  a.values.clear();
  a.values.reserve(a.total_bytes / sizeof(float));
  a.head = std::move(head);
  a.connection = connection;
  open_.emplace(peer, std::move(a));
}

std::optional<Message> ValuesReassembly::add(NodeId peer, const zmq::message_t& marker, const zmq::message_t& part,
                                             std::uint64_t max_range_keys) {
  auto it = open_.find(peer);
  if (it == open_.end()) {
    const std::string number = marker.size() == kMarkerBytes ? count_of(load_u32(bytes_of(marker) + 4)) : "?";
    throw ProtocolError("values stream: values part " + number + " without a header message before it");
  }
  try {
    return take_part(peer, it->second, marker, part, max_range_keys);
  } catch (const ProtocolError&) {
    spare_->give(std::move(it->second.values));
    open_.erase(it);
    throw;
  }
}

std::optional<Message> ValuesReassembly::take_part(NodeId peer, Assembly& a, const zmq::message_t& marker,
                                                   const zmq::message_t& part, std::uint64_t max_range_keys) {
  if (marker.size() != kMarkerBytes)
    throw ProtocolError("values stream: part marker of " + count_of(marker.size()) + " bytes, expected " +
                        count_of(kMarkerBytes));
  const std::uint32_t number = load_u32(bytes_of(marker) + 4);
  if (number != a.next)
    throw ProtocolError("values stream: values part " + count_of(number) + " of " + count_of(a.parts) +
                        " came where part " + count_of(a.next) + " was due (a part lost or repeated?)");
  const std::uint64_t due = number < a.parts ? a.part_bytes : a.total_bytes - (a.parts - 1) * a.part_bytes;
  if (part.size() != due)
    throw ProtocolError("values stream: values part " + count_of(number) + " of " + count_of(a.parts) + " is " +
                        count_of(part.size()) + " bytes, announced " + count_of(due));
  // Copied now, while the next part is still on its way, and hashed as it is copied.
  append_values({bytes_of(part), part.size()}, a.values, a.hasher.get());
  if (++a.next <= a.parts) return std::nullopt;
  Message m;
  decode_split_hashed(bytes_of(a.head), a.head.size(), a.values, a.hasher.get(), m, max_message_bytes_,
                      max_range_keys, a.hasher ? FrameChecksum::kVerify : FrameChecksum::kSkip);
  spare_->give(std::move(a.values));  // out's previous vector (empty), or the values when packed
  open_.erase(peer);
  return m;
}

std::optional<std::string> ValuesReassembly::abandon(NodeId peer) {
  auto it = open_.find(peer);
  if (it == open_.end()) return std::nullopt;
  const std::string why = "an unfinished message: " + count_of(it->second.next - 1) + " of its " +
                          count_of(it->second.parts) + " values parts came";
  spare_->give(std::move(it->second.values));
  open_.erase(it);
  return why;
}

void ValuesReassembly::connection_closed(int connection) {
  for (auto& [peer, a] : open_)
    if (a.connection == connection && connection >= 0) a.closed = true;
}

std::vector<NodeId> ValuesReassembly::cut_off() const {
  std::vector<NodeId> peers;
  for (const auto& [peer, a] : open_)
    if (a.closed) peers.push_back(peer);
  return peers;
}

}  // namespace pstwin::net
