// ZmqEnv's side of streamed values sections (net/values_stream.h, DESIGN.md "Streamed values"):
// sending a message as one multi-part message or as a stream, and taking a peer's messages apart
// from its streams.
#include <string>

#include "net/zmq_env.h"
#include "net/zmq_identity.h"
#include "runtime/errors.h"

namespace pstwin::net {

void ZmqEnv::send_parts(zmq::socket_t& socket, NodeId to, OutgoingParts parts) {
  const auto queue = [&](zmq::message_t& first, zmq::message_t* second, bool more) {
    // Once a message's first part is queued ZeroMQ takes the rest, so only the first can time out.
    const bool more_after_first = second != nullptr || more;
    if (!socket.send(first, more_after_first ? zmq::send_flags::sndmore : zmq::send_flags::none))
      throw std::runtime_error("node " + std::to_string(self_) + ": sending to node " + std::to_string(to) +
                               " at " + book_[to] + " timed out after " + format_seconds(options_.send_timeout_s));
    if (second) (void)socket.send(*second, more ? zmq::send_flags::sndmore : zmq::send_flags::none);
  };
  // Streamed whenever the values go in several parts, under CURVE and --insecure alike: the
  // receiver's copy of each part then overlaps the parts still on their way (DESIGN.md,
  // "Streamed values", for the figures).
  if (!sent_as_stream(parts)) {
    const std::size_t rest = parts.values.size();
    queue(parts.head, nullptr, rest > 0);
    for (std::size_t i = 0; i < rest; ++i)
      (void)socket.send(parts.values[i], i + 1 < rest ? zmq::send_flags::sndmore : zmq::send_flags::none);
    return;
  }
  // A message per values part, so that the receiver copies each as it arrives.
  zmq::message_t announcement = announcement_of(parts);
  queue(announcement, &parts.head, false);
  for (std::size_t i = 0; i < parts.values.size(); ++i) {
    zmq::message_t marker = part_marker(static_cast<std::uint32_t>(i + 1));
    queue(marker, &parts.values[i], false);
  }
}

std::optional<Message> ZmqEnv::take_from_node(ReceivedParts raw, NodeId sender) {
  const std::string from = "node " + std::to_string(sender);
  const StreamFrame kind = stream_frame_of(raw.head);
  // Before a stream starts: a connection closed before this message came cannot be its own
  // (ZeroMQ reports the close before the descriptor can be reused).
  if (streams_->any_open() || kind == StreamFrame::kAnnouncement) note_lost_connections();
  if (kind != StreamFrame::kValuesPart)
    if (auto lost = streams_->abandon(sender)) reject(from, *lost + ", and then a new message");
  try {
    switch (kind) {
      case StreamFrame::kMessage:
        return decode_received(raw, sender);
      case StreamFrame::kAnnouncement:
        if (raw.values.size() != 1)
          throw ProtocolError("values stream: a header message is 2 parts (announcement, header part), got " +
                              std::to_string(1 + raw.values.size()));
        streams_->start(sender, raw.head, std::move(raw.values[0]), checksum_with(sender),
                        source_connection(raw.head));
        return std::nullopt;
      case StreamFrame::kValuesPart:
        if (raw.values.size() != 1) {
          (void)streams_->abandon(sender);  // its stream is broken anyway: counted once, below
          throw ProtocolError("values stream: a values message is 2 parts (marker, values part), got " +
                              std::to_string(1 + raw.values.size()));
        }
        if (auto whole = streams_->add(sender, raw.head, raw.values[0], options_.max_range_keys)) {
          ++streams_taken_;
          return whole;
        }
        return std::nullopt;
    }
  } catch (const ProtocolError& e) {
    reject(from, e.what());
  }
  return std::nullopt;
}

void ZmqEnv::note_lost_connections() {
  for (const int connection : disconnects_->take()) streams_->connection_closed(connection);
}

void ZmqEnv::drop_cut_off_streams() {
  note_lost_connections();
  for (const NodeId peer : streams_->cut_off())
    if (auto lost = streams_->abandon(peer))
      reject("node " + std::to_string(peer), *lost + " before its connection closed");
}

}  // namespace pstwin::net
