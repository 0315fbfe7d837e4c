#include "runtime/frame_checksum.h"

#include <new>

// For XXH3_state_t's size, so that FrameHasher holds it in place rather than on the heap.
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

namespace pstwin {
namespace {

XXH3_state_t* as_state(unsigned char* storage) { return std::launder(reinterpret_cast<XXH3_state_t*>(storage)); }

}  // namespace

std::uint32_t frame_checksum(const std::uint8_t* data, std::size_t size) {
  return static_cast<std::uint32_t>(XXH3_64bits(data, size));
}

FrameHasher::FrameHasher() {
  static_assert(sizeof(XXH3_state_t) <= sizeof(state_) && alignof(XXH3_state_t) <= 64,
                "FrameHasher's storage must hold an XXH3_state_t");
  ::new (static_cast<void*>(state_)) XXH3_state_t;  // a C struct: trivial, set by the reset
  XXH3_64bits_reset(as_state(state_));
}

void FrameHasher::add(const std::uint8_t* bytes, std::size_t size) {
  if (size > 0) XXH3_64bits_update(as_state(state_), bytes, size);
}

std::uint32_t FrameHasher::digest() const {
  return static_cast<std::uint32_t>(
      XXH3_64bits_digest(std::launder(reinterpret_cast<const XXH3_state_t*>(state_))));
}

}  // namespace pstwin
