// Whether the frames between two nodes carry a checksum, over ZeroMQ and UCX alike (DESIGN.md,
// "Nodes of one machine").
#pragma once

#include <string>

#include "runtime/codec.h"

namespace pstwin::net {

/// The frame checksum of the messages between the node at address-book entry `self_address` and
/// the one at `peer_address` ("tcp://HOST:PORT", under UCX followed by "#ucx=HEX"), in either
/// direction and over either transport: FrameChecksum::kSkip when both are on one machine (the
/// same HOST, or both loopback), where every byte is moved by memory copies (loopback TCP, shared
/// memory, CMA) that cannot corrupt a message in flight, and TCP's own checksum covers loopback
/// anyway; kVerify otherwise, and whenever the two entries cannot tell: one does not parse, is
/// empty (a server yet to join), or names every interface ("*", "0.0.0.0", "::": a scheduler
/// bound to all of them). Symmetric in its arguments, so that sender and receiver, reading the
/// same two entries, agree without a flag on the wire. Wire safety does not depend on it:
/// lengths, counts and limits are checked on every message. Never throws.
FrameChecksum pair_frame_checksum(const std::string& self_address, const std::string& peer_address);

}  // namespace pstwin::net
