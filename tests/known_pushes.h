// Pushes whose values are known and differ from clock to clock, for tests that must tell one
// message's values from another's (buffer reuse across messages).
#pragma once

#include <cstddef>

#include "runtime/message.h"

namespace pstwin::testing_support {

/// A push of `n` values from `sender` to `receiver` at clock `tag`; value i is i + tag / 8 (exact
/// in float32 for i below 2^20), so no two tags share a value at any index.
inline Message known_push(std::size_t n, int tag, NodeId sender, NodeId receiver) {
  Message m;
  m.header.type = MsgType::kPush;
  m.header.sender = sender;
  m.header.receiver = receiver;
  m.header.clock = tag;
  m.values.resize(n);
  for (std::size_t i = 0; i < n; ++i) m.values[i] = static_cast<float>(i) + static_cast<float>(tag) / 8;
  return m;
}

}  // namespace pstwin::testing_support
