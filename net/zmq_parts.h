// A message as ZeroMQ carries it since wire version 6: a header part, then its values part when
// it has values (the split frame of runtime/codec.h), so the values go out from where the role
// left them instead of being copied into a frame (DESIGN.md, "The hot path").
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include <zmq.hpp>

#include "net/frame_pool.h"
#include "net/spare_values.h"
#include "runtime/codec.h"

namespace pstwin::net {

/// The parts of one message ready to send: `values` is empty (size 0) when the message has no
/// values section, and is then not sent.
struct OutgoingParts {
  zmq::message_t head;
  zmq::message_t values;
};

/// Splits `msg` (sender and receiver stamped) into its ZeroMQ parts. A values section of
/// kLentPartBytes or more is lent to ZeroMQ where it lies (the message's own vector, given back to
/// `spare` by ZeroMQ's I/O thread once sent; virtual values from a block of zeros shared by the
/// process); a smaller one is copied into ZeroMQ's own message, and msg's values go to `spare`
/// at once. A header part that large is encoded into a buffer of `frames`, lent the same way.
/// Throws ProtocolError as encode_into() does.
OutgoingParts split_for_zmq(Message msg, FrameChecksum checksum, const std::shared_ptr<FramePool>& frames,
                            const std::shared_ptr<SpareValues>& spare);

/// The bytes of msg's values section as they can be sent without writing them out: in place
/// (values_in_place, runtime/codec.h), or, for virtual values only, a block of zeros the
/// process shares and never frees. Null when they must be written out (stored and virtual values
/// mixed, a big-endian host) or there are none.
const std::uint8_t* values_to_send(const Message& msg);

/// Below this size a part is copied into ZeroMQ's own allocation: small ones cost no page faults,
/// and lending one costs a bookkeeping allocation of its own.
inline constexpr std::size_t kLentPartBytes = 64 * 1024;

/// A message as the ROUTER took it: the sender's identity, its header part and its values part
/// (empty when the sender sent none).
struct ReceivedParts {
  std::string identity;
  zmq::message_t head;
  zmq::message_t values;
};

/// Decodes `parts` into `into` (whose vectors' capacity is reused: a receiver's spare values);
/// throws ProtocolError as decode_split_into() does: a header whose values part is missing or of
/// another length than its value count says, a corrupt or truncated part, ...
void decode_parts(const ReceivedParts& parts, Message& into, std::size_t max_bytes, std::uint64_t max_range_keys,
                  FrameChecksum checksum);

}  // namespace pstwin::net
