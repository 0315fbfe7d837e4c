// The one binary encoding of Message, used by every environment (DESIGN.md, "Protocol").
//
// Layout, all integers little-endian:
//   offset size field
//   0      4    magic "PSTW"
//   4      1    format version (kWireVersion)
//   5      1    type (MsgType)
//   6      1    key mode: 0 = no keys, 1 = explicit sorted list, 2 = contiguous range
//   7      1    op (ReplicaOp; 0 unless type is kReplicate)
//   8      4    flags
//   12     4    sender
//   16     4    receiver
//   20     4    epoch
//   24     4    range
//   28     4    subject
//   32     8    request_id
//   40     8    seq
//   48     8    clock (int64)
//   56     8    version (int64)
//   64     8    time_us (int64)
//   72     4    loss (float32)
//   76     1    value format (ValueFormat, kernels/compression.h): 0 = float32 values
//   77     3    reserved, 0
//   80     8    number of keys n_k
//   88     8    number of values n_v (stored plus virtual)
//   96     8    number of lengths n_l (0 or n_k)
//   104    8    number of data bytes n_d
//   112    ..   keys: mode 1: n_k x u64; mode 2: one u64, the first key (keys are first..first+n_k)
//   ..     ..   values: n_v x float32; with a value format f != 0, the n_v values packed as f
//                (kernels/compression.h: its exact size follows from f and n_v, for topk from k too)
//   ..     ..   lengths: n_l x u32
//   ..     ..   data: n_d bytes
//   end-4  4    checksum of every preceding byte: the low 32 bits of XXH3-64 (frame_checksum)
// A frame may also travel split in two parts (version 6; ZeroMQ's multi-part messages, UCX's
// iov sends), so that a transport sends a message's values from where they lie instead of
// copying them into a frame: the header part is the frame without its values section (header,
// keys, lengths, data, checksum), and the values part is that section alone. The checksum is the
// same in both forms: of the whole frame's bytes before it, in frame order (encode_split_into).
// Version 6 frames are byte for byte version 5's; the version changed because ZeroMQ peers now
// send two parts, which a version 5 node would refuse message by message rather than at
// registration. Version 7 frames are byte for byte version 6's too; ZeroMQ peers now send a long
// values part as several parts of up to 1 MiB (net/zmq_parts.h), whose concatenation is the
// values part, which a version 6 node would refuse message by message. Version 8 frames are byte
// for byte version 7's too; ZeroMQ peers now send a values section of more than 1 MiB as messages
// of their own, one per part, after the header part (net/values_stream.h), which a version 7 node
// would refuse message by message.
// Version 5 adds two things to version 4's frames:
// - compressed values: byte 76 (reserved and 0 in version 4) names the value format and the
//   values section then holds the packed bytes (runtime/packed_values.h; a frame with format 0
//   is the same size as in version 4);
// - the checksum field holds XXH3-64's low 32 bits (xxHash, seed 0) instead of zlib's CRC-32,
//   which ran at a third of memcpy's speed and was the largest cost of a push (DESIGN.md, "The
//   hot path"); frames keep their size.
// A version 4 frame is refused by its version byte, before its checksum is looked at.
// Version 3 had the same frames without message types 19 (kEvent) and 20 (kHostReduce); version 4
// nodes refuse it at registration, so a mixed job fails at once rather than mid-run.
// Version 2 had the same frames but a one-step rendezvous (kRegister, then the address book), with
// no fingerprint and no model shape; later nodes refuse it rather than wait for what never comes.
// Version 1 (pstwin 0.1) had an 88-byte header whose `shard` field is now `range`, with no seq,
// subject, op or time_us; it is refused with a message naming both versions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "runtime/frame_checksum.h"
#include "runtime/message.h"

namespace pstwin {

inline constexpr std::uint8_t kWireVersion = 8;
/// Size of the fixed part, before the keys.
inline constexpr std::size_t kWireHeaderBytes = 112;
/// Default largest message a decoder accepts (1 GiB).
inline constexpr std::size_t kDefaultMaxMessageBytes = std::size_t{1} << 30;

/// Encodes `msg`. Keys must be strictly increasing (throws ProtocolError otherwise); lengths must
/// be empty or one per key. Virtual values are written as zeros.
std::vector<std::uint8_t> encode(const Message& msg);

/// Whether a frame's checksum (frame_checksum, runtime/frame_checksum.h) is computed and checked.
/// kSkip is for frames whose transport already protects them (ZeroMQ under CURVE, whose Poly1305
/// tag covers every part) or that never leave one machine (net/pair_checksum.h): the encoder
/// writes 0 in the field and the decoder does not read it, which saves two of a message's four
/// passes over its bytes. Every other check still runs.
enum class FrameChecksum { kVerify, kSkip };

/// Encodes `msg` into out[0..encoded_size(msg)), so a transport can encode straight into its own
/// frame buffer. Throws ProtocolError as encode() does, and when `capacity` is smaller than
/// encoded_size(msg). Returns the number of bytes written.
std::size_t encode_into(const Message& msg, std::uint8_t* out, std::size_t capacity,
                        FrameChecksum checksum = FrameChecksum::kVerify);

/// The exact number of bytes encode(msg) produces, computed without encoding (O(keys) to detect a
/// contiguous range). The simulation charges this size on the network.
std::size_t encoded_size(const Message& msg);

/// Bytes of msg's values section (4 per stored or virtual value, or its packed bytes): the values
/// part of its split frame, which is encoded_size(msg) minus this long. Throws as encoded_size().
std::size_t values_section_size(const Message& msg);

/// msg's values section as it lies in memory, ready to send without a copy: msg.packed's bytes,
/// or msg.values' on a little-endian host when there are no virtual values. Null when it has to
/// be written out (write_values_section) or is empty.
const std::uint8_t* values_in_place(const Message& msg);

/// Writes msg's values section (values_section_size(msg) bytes; virtual values as zeros) to `out`.
void write_values_section(const Message& msg, std::uint8_t* out);

/// Encodes the header part of msg's split frame (see the layout above) into out[0..capacity):
/// encoded_size(msg) - values_section_size(msg) bytes, returned. `values` must hold the bytes of
/// the values part as they will travel (values_in_place, or a copy from write_values_section):
/// with FrameChecksum::kVerify the checksum covers them. Throws as encode_into() does.
std::size_t encode_split_into(const Message& msg, std::uint8_t* out, std::size_t capacity,
                              const std::uint8_t* values, FrameChecksum checksum = FrameChecksum::kVerify);

/// Where the values section goes in the whole frame of a header part (the fixed header and the
/// keys come before it, the lengths, data and checksum after): what a transport that sends the
/// parts as one frame (UCX's iov) cuts the header part at. REQUIRES: head holds the first
/// kWireHeaderBytes of a header part encode_split_into wrote.
std::size_t values_offset(const std::uint8_t* head);

/// Decodes one message from data[0..size). Never trusts a size read from the wire: throws
/// ProtocolError naming the problem when the input is truncated, has trailing bytes, a bad magic,
/// version, type, key mode, replicated operation or checksum, a nonzero reserved field, unsorted
/// keys, counts that do not fit in `size`, or when size exceeds max_bytes. Virtual values decode
/// as stored zeros.
///
/// A key range costs 8 payload bytes whatever its length but decodes to 8 bytes a key, so its length
/// is bounded on its own: at most `max_range_keys` keys (a node passes its model's key count, so a
/// 100-byte frame cannot make it allocate more than its own parameters would take), and never more
/// than max_bytes / 8 (the decoded keys take no more memory than the largest message).
Message decode(const std::uint8_t* data, std::size_t size,
               std::size_t max_bytes = kDefaultMaxMessageBytes,
               std::uint64_t max_range_keys = std::numeric_limits<std::uint64_t>::max());

/// decode() into `out`, reusing the capacity of its vectors (a receiver's recycled buffers, so a
/// 40 MB payload costs one copy and no fresh pages). Every field of `out` is overwritten; throws
/// as decode() does, and then leaves `out` in an unspecified but valid state.
void decode_into(const std::uint8_t* data, std::size_t size, Message& out,
                 std::size_t max_bytes = kDefaultMaxMessageBytes,
                 std::uint64_t max_range_keys = std::numeric_limits<std::uint64_t>::max(),
                 FrameChecksum checksum = FrameChecksum::kVerify);

/// decode_into() of a split frame: its header part head[0..head_size) and its values part
/// values[0..values_size) (may be empty). Throws ProtocolError as decode() does, and also when
/// the values part's length disagrees with the header's value count, and when the two parts
/// together exceed max_bytes.
void decode_split_into(const std::uint8_t* head, std::size_t head_size, const std::uint8_t* values,
                       std::size_t values_size, Message& out, std::size_t max_bytes = kDefaultMaxMessageBytes,
                       std::uint64_t max_range_keys = std::numeric_limits<std::uint64_t>::max(),
                       FrameChecksum checksum = FrameChecksum::kVerify);

/// decode_split_into() of a split frame whose values part was received straight into `values`
/// (its values.size() * 4 bytes, in wire order): a transport that can place a message's bytes
/// where it likes (UCX) saves the copy out of a receive buffer this way. When the message's
/// values are plain float32 (a little-endian host, no packed format) they become out.values by
/// a swap, and `values` is left holding out's previous vector; otherwise they are read from
/// `values` as bytes, which is left as it was. Throws ProtocolError as decode_split_into() does.
void decode_split_adopting(const std::uint8_t* head, std::size_t head_size, std::vector<float>& values,
                           Message& out, std::size_t max_bytes = kDefaultMaxMessageBytes,
                           std::uint64_t max_range_keys = std::numeric_limits<std::uint64_t>::max(),
                           FrameChecksum checksum = FrameChecksum::kVerify);

/// decode_split_adopting() of a split frame whose values part arrived in `pieces` (ZeroMQ's
/// values parts, wire version 7), in order: their concatenation is the values part, and each is
/// a whole number of float32 values (4 bytes each). The pieces are gathered into `gather` (its
/// capacity reused: a receiver's spare vector), and with FrameChecksum::kVerify each stretch of
/// a few KiB is hashed right after it is copied, while it is still in cache, so that the copy and
/// the check make one pass over memory rather than two. Then, as decode_split_adopting: plain
/// float32 values become out.values by a swap (and `gather` holds out's previous vector), packed
/// ones are read from the gathered bytes. Throws ProtocolError as decode_split_into() does, and
/// when a piece is not a whole number of values; then `gather` and `out` are in unspecified but
/// valid states. No pieces: as decode_split_into with no values part.
void decode_split_gathering(const std::uint8_t* head, std::size_t head_size,
                            std::span<const std::span<const std::uint8_t>> pieces, std::vector<float>& gather,
                            Message& out, std::size_t max_bytes = kDefaultMaxMessageBytes,
                            std::uint64_t max_range_keys = std::numeric_limits<std::uint64_t>::max(),
                            FrameChecksum checksum = FrameChecksum::kVerify);

/// Appends `piece` (a whole number of float32 values, in wire order) to `out` within its capacity,
/// without zero-filling it first, in stretches of 64 KiB each given to `hasher` (null: none)
/// right after it is copied, while it is still in cache: one pass over memory for the copy and the
/// checksum. For a receiver that gathers a values section it got in pieces. Throws only as
/// std::vector does (bad_alloc when the capacity must grow).
void append_values(std::span<const std::uint8_t> piece, std::vector<float>& out, FrameHasher* hasher);

/// Where the values section starts in the frame of the header part head[0..head_size), as
/// values_offset(), but checked first: for a receiver that hashes a values section piece by piece
/// as it arrives (decode_split_hashed), before the header part can be decoded whole. Throws
/// ProtocolError when the magic or the version is wrong, or head_size cannot hold the fixed header,
/// the keys that its key mode and count say, and the checksum.
std::size_t checked_values_offset(const std::uint8_t* head, std::size_t head_size);

/// decode_split_adopting() of a split frame whose values part the receiver gathered into `values`
/// itself, piece by piece as the pieces arrived (ZeroMQ's values messages, wire version 8,
/// net/values_stream.h), hashing each piece as it copied it. With FrameChecksum::kVerify,
/// `hashed` has been given head[0..checked_values_offset(head, head_size)) and then every byte of
/// `values` in order; this adds the rest of the head and compares (so the checksum is the whole
/// frame's, as in every other form). With kSkip, `hashed` is not read (may be null). Throws
/// ProtocolError as decode_split_adopting() does.
void decode_split_hashed(const std::uint8_t* head, std::size_t head_size, std::vector<float>& values,
                         FrameHasher* hashed, Message& out, std::size_t max_bytes = kDefaultMaxMessageBytes,
                         std::uint64_t max_range_keys = std::numeric_limits<std::uint64_t>::max(),
                         FrameChecksum checksum = FrameChecksum::kVerify);

}  // namespace pstwin
