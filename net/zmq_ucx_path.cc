// ZmqEnv's data plane under --transport ucx: servers and workers send each other their messages
// as UCP tagged messages (net/ucx_data_plane.h); the ROUTER still takes the scheduler's. The
// received bytes pass the same checks as a ZeroMQ frame's (zmq_env.cc).
#include <stdexcept>

#include "net/ucx_data_plane.h"
#include "net/zmq_env.h"
#include "net/zmq_identity.h"
#include "runtime/errors.h"

namespace pstwin::net {

void ZmqEnv::send_over_ucx(NodeId to, const Message& msg, std::size_t size) {
  if (!ucx_->connected(to)) {
    if (to >= book_.size()) throw std::invalid_argument("send to unknown node " + std::to_string(to));
    const NodeAddress address = split_node_address(book_[to]);
    if (address.ucx.empty())
      throw std::runtime_error("node " + std::to_string(self_) + ": node " + std::to_string(to) + " at " +
                               address.zmq + " runs no UCX: every server and worker of a job needs --transport ucx");
    ucx_->connect(to, address.ucx);
  }
  // Encoded straight into a pool buffer, which UCX sends from without another copy (a large
  // message by rendezvous: the receiver pulls it from here) and gives back once done.
  Frame frame = frames_->acquire(size);
  encode_into(msg, frame.data(), size, data_checksum());
  ucx_->send(to, self_, std::move(frame));
}

std::optional<Message> ZmqEnv::receive_over_ucx() {
  for (;;) {
    auto got = ucx_->receive();
    if (!got) return std::nullopt;
    const std::string from = "UCX tag " + std::to_string(got->tag);
    if (!got->error.empty()) {
      reject(from, got->error);
      continue;
    }
    // The tag is the sender's node id; the scheduler speaks over ZeroMQ only.
    if (got->tag == kScheduler || got->tag >= book_.size() || got->tag == self_) {
      frames_->release(std::move(got->bytes));
      reject(from, "not a server or worker of this job");
      continue;
    }
    const auto sender = static_cast<NodeId>(got->tag);
    Message m;
    m.values = spare_.take(got->bytes.size / sizeof(float));
    try {
      decode_into(got->bytes.data(), got->bytes.size, m, options_.max_message_bytes, options_.max_range_keys,
                  data_checksum());
    } catch (const ProtocolError& e) {
      frames_->release(std::move(got->bytes));
      reject("node " + std::to_string(sender), e.what());
      continue;
    }
    frames_->release(std::move(got->bytes));
    if (auto delivered = accept_from_node(sender, std::move(m))) return delivered;
  }
}

}  // namespace pstwin::net
