// Fuzz target: a kMembership message as a node receives it, through decode() and
// Membership::from_message (runtime/roles/membership.h).
//
// Input: one byte of job shape (servers 1..16 in the low nibble, workers 1..16 in the high one;
// key ranges = servers, the range partition's count, since the harness has no model),
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
#include "runtime/job_layout.h"
#include "runtime/roles/membership.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 5) return 0;
  pstwin::JobLayout layout;
  layout.servers = 1u + (data[0] & 0x0F);
  layout.workers = 1u + (data[0] >> 4);
  const auto read = [&](const pstwin::Message& msg) {
    return pstwin::Membership::from_message(msg, layout.servers, layout.workers, layout.server(0),
                                            layout.servers);
  };

  pstwin::Message sent;
  sent.header.type = pstwin::MsgType::kMembership;
  sent.header.epoch = static_cast<std::uint32_t>(data[1]) | static_cast<std::uint32_t>(data[2]) << 8 |
                      static_cast<std::uint32_t>(data[3]) << 16 | static_cast<std::uint32_t>(data[4]) << 24;
  sent.data.assign(reinterpret_cast<const char*>(data + 5), size - 5);
  const std::vector<std::uint8_t> wire = pstwin::encode(sent);
  const pstwin::Message received = pstwin::decode(wire.data(), wire.size());

  pstwin::Membership m;
  try {
    m = read(received);
  } catch (const pstwin::ProtocolError&) {
    return 0;  // rejected with a message: the expected outcome for most inputs
  }
  const pstwin::Membership again = read(m.to_message());
  pstwin::fuzz::require(again.epoch == m.epoch && again.replicas == m.replicas &&
                            again.dead_workers == m.dead_workers,
                        "from_message(to_message(m)) == m");
  return 0;
}
