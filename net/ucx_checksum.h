// Which frame checksum a UCX message between two nodes carries (DESIGN.md, "UCX on one machine").
#pragma once

#include <string>

#include "runtime/codec.h"

namespace pstwin::net {

/// The frame checksum of UCX messages between the node at address-book entry `self_address` and
/// the one at `peer_address` ("tcp://HOST:PORT#ucx=HEX"): FrameChecksum::kSkip when both are on
/// one machine (the same HOST, or both loopback), where UCX moves the bytes by shared memory, CMA
/// or loopback TCP, memory copies that cannot corrupt a message in flight; kVerify otherwise, and
/// when either entry does not parse. Symmetric, so that sender and receiver, reading the same
/// address book, agree. Wire safety does not depend on it: lengths, counts and limits are still
/// checked on every message. Never throws.
FrameChecksum ucx_frame_checksum(const std::string& self_address, const std::string& peer_address);

}  // namespace pstwin::net
