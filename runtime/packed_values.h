// The wire side of compressed values (codec.h, version 5): how a Message's packed values fill the
// frame's values section, checked on the way out and on the way in. Kept apart from the codec's
// encoder and decoder (codec_encode.cc, codec_decode.cc) so the frame code itself changes in a
// few lines only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/message.h"

namespace pstwin::packed_values {

/// Checks that msg's values are either plain (value_format kFloat32, no packed bytes) or packed
/// (no stored or virtual values, and `packed` exactly a valid packing of packed_count values).
/// Throws ProtocolError naming what is wrong.
void check_for_encode(const Message& msg);

/// Bytes of the frame's values section: 4 per stored or virtual value, or the packed size.
std::size_t section_bytes(const Message& msg);

/// The value format of a frame's reserved field (bytes 76..79: format, then three zero bytes).
/// Throws ProtocolError (prefixed by `where`) for an unknown format or a nonzero byte 77..79.
ValueFormat read_format(std::uint32_t reserved, const std::string& where);

/// Validates `size` packed bytes of n values in format f and stores them in msg (format, count,
/// bytes). Throws ProtocolError (prefixed by `where`) naming the problem (packed_problem).
void take_packed(Message& msg, ValueFormat f, std::uint64_t n, const std::uint8_t* bytes, std::size_t size,
                 const std::string& where);

}  // namespace pstwin::packed_values
