// Fuzz target: a kMembership message as a node receives it, through decode() and
// Membership::from_message (runtime/roles/membership.h).
//
// Input: one byte of job shape (servers 1..16 in the low nibble, workers 1..16 in the high one),
// four bytes of header epoch (little-endian), then the message body (the JSON the scheduler
// sends). The harness encodes that message and decodes it as a transport would, so the body
// takes the same path as on a real wire. Whatever from_message accepts must survive
// to_message and from_message again unchanged.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/fuzz_support.h"
#include "runtime/codec.h"
#include "runtime/errors.h"
#include "runtime/roles/job.h"
#include "runtime/roles/membership.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 5) return 0;
  pstwin::JobSpec spec;
  spec.layout.servers = 1u + (data[0] & 0x0F);
  spec.layout.workers = 1u + (data[0] >> 4);

  pstwin::Message sent;
  sent.header.type = pstwin::MsgType::kMembership;
  sent.header.epoch = static_cast<std::uint32_t>(data[1]) | static_cast<std::uint32_t>(data[2]) << 8 |
                      static_cast<std::uint32_t>(data[3]) << 16 | static_cast<std::uint32_t>(data[4]) << 24;
  sent.data.assign(reinterpret_cast<const char*>(data + 5), size - 5);
  const std::vector<std::uint8_t> wire = pstwin::encode(sent);
  const pstwin::Message received = pstwin::decode(wire.data(), wire.size());

  pstwin::Membership m;
  try {
    m = pstwin::Membership::from_message(received, spec);
  } catch (const pstwin::ProtocolError&) {
    return 0;  // rejected with a message: the expected outcome for most inputs
  }
  const pstwin::Membership again = pstwin::Membership::from_message(m.to_message(), spec);
  pstwin::fuzz::require(again.epoch == m.epoch && again.replicas == m.replicas &&
                            again.dead_workers == m.dead_workers,
                        "from_message(to_message(m)) == m");
  return 0;
}
