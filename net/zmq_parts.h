// A message as ZeroMQ carries it: a header part, then, when it has values, its values section
// (the split frame of runtime/codec.h) as one or more parts of up to kValueChunkBytes (wire
// version 7), so the values go out from where the role left them instead of being copied into a
// frame, and CURVE's cipher on each side works on one chunk while the other side works on the
// next (DESIGN.md, "The hot path", "Pipelined values").
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <zmq.hpp>

#include "net/frame_pool.h"
#include "net/spare_values.h"
#include "runtime/codec.h"

namespace pstwin::net {

/// The parts of one message ready to send, in order: the header part, then the values section
/// in parts (none when the message has no values section).
struct OutgoingParts {
  zmq::message_t head;
  std::vector<zmq::message_t> values;
};

/// The largest values part a sender sends: a longer values section goes as several parts, each
/// this long but the last. Why 1 MiB: see DESIGN.md, "Pipelined values" (measured from 256 KiB to
/// 4 MiB). Receivers accept any chunk size that follows check_value_parts' rules.
inline constexpr std::size_t kValueChunkBytes = 1024 * 1024;

/// The most values parts a receiver takes in one message (1 GiB, the default message limit, in
/// parts of 64 KiB): a message of more is dropped before its parts are looked at.
inline constexpr std::size_t kMaxValueParts = 16 * 1024;

/// Splits `msg` (sender and receiver stamped) into its ZeroMQ parts, the values section in parts
/// of `chunk_bytes` (> 0) but the last. A values section of kLentPartBytes or more is lent to
/// ZeroMQ where it lies (the message's own vector, given back to `spare` by ZeroMQ's I/O thread
/// once its last part is sent; virtual values from a block of zeros shared by the process); a
/// smaller one is copied into ZeroMQ's own message, and msg's values go to `spare` at once. A
/// header part that large is encoded into a buffer of `frames`, lent the same way (and so is a
/// values section that must be written out, in one part). Throws ProtocolError as encode_into()
/// does.
OutgoingParts split_for_zmq(Message msg, FrameChecksum checksum, const std::shared_ptr<FramePool>& frames,
                            const std::shared_ptr<SpareValues>& spare,
                            std::size_t chunk_bytes = kValueChunkBytes);

/// The bytes of msg's values section as they can be sent without writing them out: in place
/// (values_in_place, runtime/codec.h), or, for virtual values only, a block of zeros the
/// process shares and never frees. Null when they must be written out (stored and virtual values
/// mixed, a big-endian host) or there are none.
const std::uint8_t* values_to_send(const Message& msg);

/// Below this size a part is copied into ZeroMQ's own allocation: small ones cost no page faults,
/// and lending one costs a bookkeeping allocation of its own.
inline constexpr std::size_t kLentPartBytes = 64 * 1024;

/// A message as the ROUTER took it: the sender's identity, its header part and its values parts
/// (none when the sender sent no values section).
struct ReceivedParts {
  std::string identity;
  zmq::message_t head;
  std::vector<zmq::message_t> values;
};

/// Total bytes of the values parts.
std::size_t values_bytes(const ReceivedParts& parts);
std::size_t values_bytes(const OutgoingParts& parts);

/// Checks the layout of a message's values parts before any is read: none is empty, every part
/// but the last has the first one's length (a multiple of 4), and the last is no longer. A part
/// lost, duplicated or cut off mid-message breaks one of these or the header's value count (and,
/// without CURVE, the checksum: it covers the parts in order, so a reordered set fails it).
/// Throws ProtocolError naming the part (1-based) and both lengths.
void check_value_parts(const ReceivedParts& parts);

/// Decodes `parts` into `into` (whose vectors' capacity is reused: a receiver's spare values):
/// the values parts are gathered into the larger of `gather` (a spare vector of the receiver's,
/// or empty) and into.values, part by part, each stretch hashed as it is copied when `checksum`
/// is kVerify (decode_split_gathering, runtime/codec.h), and plain float32 values then become
/// into.values without a second copy. Throws ProtocolError as check_value_parts() and
/// decode_split_gathering() do: a header whose values are missing or of another length than its
/// value count says, a corrupt or truncated part, two parts that together pass max_bytes, ...
void decode_parts(const ReceivedParts& parts, Message& into, std::size_t max_bytes, std::uint64_t max_range_keys,
                  FrameChecksum checksum, std::vector<float> gather = {});

}  // namespace pstwin::net
