// A long values section as ZeroMQ messages of its own (wire version 8): the header message says
// how many values parts follow and how long they are, then each part is a message, so that the
// receiver copies part i into the message's values while part i+1 is still on the wire (libzmq
// hands a multi-part message over only once its last part is in). The receiver reassembles per
// sending peer (DESIGN.md, "Streamed values").
//
// Messages, each a ZeroMQ multi-part message, first frame first:
//   header message:  announcement (24 bytes), header part (runtime/codec.h's split frame)
//   values message:  part marker (8 bytes), values part i (bytes of the values section, in order)
// Announcement, little-endian: "PSTS", u32 number of values parts (2..kMaxValueParts), u64 bytes of
// each part but the last (a whole number of values), u64 bytes of the values section in all.
// Part marker: "PSTV", u32 the part's number (1-based). Any other first frame is a message as
// version 7 sends it (a header part, which starts "PSTW", then its values parts, if any).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <zmq.hpp>

#include "net/spare_values.h"
#include "net/zmq_parts.h"
#include "runtime/codec.h"
#include "runtime/frame_checksum.h"

namespace pstwin::net {

/// What a ROUTER message's first frame says it is.
enum class StreamFrame { kMessage, kAnnouncement, kValuesPart };

/// The kind of a message whose first frame is `first` (by its first four bytes; never throws).
StreamFrame stream_frame_of(const zmq::message_t& first);

/// Whether `parts` go as a header message and one message per values part: a values section in
/// more than one part and a whole number of values (an odd-length packed one keeps wire version
/// 7's one multi-part message).
bool sent_as_stream(const OutgoingParts& parts);

/// The announcement of `parts` (REQUIRES: sent_as_stream(parts)).
zmq::message_t announcement_of(const OutgoingParts& parts);

/// The marker of values part `number` (1-based).
zmq::message_t part_marker(std::uint32_t number);

/// Values sections arriving as streams, reassembled per sending peer: each peer's messages come in
/// order on one connection, but the ROUTER interleaves peers. A half-assembled message is held
/// here only: it reaches a role whole or not at all. One node's; not thread-safe.
class ValuesReassembly {
 public:
  /// Messages over `max_message_bytes` (header part and values together) are refused; the values
  /// of a message abandoned go back to `spare`, and
  /// a message's values are gathered into one of its vectors.
  ValuesReassembly(std::size_t max_message_bytes, std::shared_ptr<SpareValues> spare);

  /// Starts `peer`'s message from its header message: `announcement` and `head` (its first and
  /// second frames), which came over connection `connection` (a descriptor, as ZMQ_SRCFD gives
  /// it; -1: unknown). The values will be copied into a spare vector (or a new one), hashed on
  /// the way when `checksum` is kVerify. Throws ProtocolError, holding nothing for the
  /// peer then, when the announcement is malformed (length, magic, part count outside
  /// 2..kMaxValueParts, a part length that is 0 or not a whole number of values, a total that the
  /// parts cannot hold), the message would pass the size limit, the header part is malformed
  /// (checked_values_offset), or its value count is not the announced bytes.
  /// REQUIRES: nothing open for `peer` (abandon() first).
  void start(NodeId peer, const zmq::message_t& announcement, zmq::message_t head, FrameChecksum checksum,
             int connection);

  /// Copies values part `part`, whose marker is `marker`, into `peer`'s message. Returns the
  /// message decoded once it was the last part (decode_split_hashed, with max_range_keys), else
  /// nullopt. Throws ProtocolError, dropping what was held for the peer, for a part without a
  /// header message, a marker that is malformed or not the next number, a part of another length
  /// than announced, and whatever the decoder refuses (a checksum mismatch, ...).
  std::optional<Message> add(NodeId peer, const zmq::message_t& marker, const zmq::message_t& part,
                             std::uint64_t max_range_keys);

  /// Drops `peer`'s unfinished message, saying what was lost ("an unfinished message: 3 of its 40
  /// values parts came"), or nullopt when none was open.
  std::optional<std::string> abandon(NodeId peer);

  /// Notes that connection `connection` has closed: the unfinished messages that came over it
  /// can get no part beyond those already queued for this node (ZeroMQ reports a closed
  /// connection before its last messages are read, so they are not dropped yet).
  void connection_closed(int connection);

  /// The peers whose unfinished messages came over a closed connection (connection_closed).
  std::vector<NodeId> cut_off() const;

  /// Whether any peer's message is unfinished.
  bool any_open() const { return !open_.empty(); }

 private:
  struct Assembly {
    zmq::message_t head;
    std::uint32_t parts = 0;        // announced
    std::uint64_t part_bytes = 0;   // announced, every part but the last
    std::uint64_t total_bytes = 0;  // announced
    std::uint32_t next = 1;         // the number of the part expected next
    std::vector<float> values;
    std::unique_ptr<FrameHasher> hasher;  // null: the frame carries no checksum
    int connection = -1;
    bool closed = false;  // its connection has closed
  };
  /// The same as add(), for an assembly found.
  std::optional<Message> take_part(NodeId peer, Assembly& a, const zmq::message_t& marker,
                                   const zmq::message_t& part, std::uint64_t max_range_keys);
  std::size_t max_message_bytes_;
  std::shared_ptr<SpareValues> spare_;
  std::map<NodeId, Assembly> open_;
};

}  // namespace pstwin::net
