// ZmqEnv's data plane under --transport ucx: servers and workers send each other their messages
// as UCP tagged messages (net/ucx_data_plane.h); the ROUTER still takes the scheduler's. The
// received bytes pass the same checks as a ZeroMQ frame's (zmq_env.cc).
#include <iostream>
#include <stdexcept>

#include "net/transport_unavailable.h"
#include "net/ucx_data_plane.h"
#include "net/zmq_env.h"
#include "net/zmq_identity.h"
#include "runtime/errors.h"

namespace pstwin::net {

void ZmqEnv::send_over_ucx(NodeId to, Message msg) {
  if (!ucx_->connected(to)) {
    if (to >= book_.size()) throw std::invalid_argument("send to unknown node " + std::to_string(to));
    const NodeAddress address = split_node_address(book_[to]);
    if (address.ucx.empty())
      throw std::runtime_error("node " + std::to_string(self_) + ": node " + std::to_string(to) + " at " +
                               address.zmq + " runs no UCX: every server and worker of a job needs --transport ucx");
    const std::string why = ucx_->connect(to, address.ucx);
    if (!why.empty())
      std::cerr << "pstwin: UCX: cannot connect to node " << to << " (" << why
                << "; its process is gone?); messages to it are dropped\n";
  }
  // Between nodes of one machine no checksum: two of a message's four passes over its bytes, and
  // the largest cost of a large push (DESIGN.md, "Nodes of one machine").
  const FrameChecksum checksum = checksum_with(to);
  const std::size_t values_size = values_section_size(msg);
  const std::uint8_t* values = values_to_send(msg);
  if (values_size >= kLentPartBytes && values != nullptr) {
    // The header part in a pool buffer, then the values sent from the role's own vector or the
    // shared zeros: a large message by rendezvous, so the receiver pulls them from here.
    const std::size_t head_size = encoded_size(msg) - values_size;
    Frame head = frames_->acquire(head_size);
    encode_split_into(msg, head.data(), head_size, values, checksum);
    ucx_->send_split(to, self_, std::move(head), values, values_size, std::move(msg));
    return;
  }
  // Small, or values that must be written out: encoded whole into a pool buffer,
  // which UCX sends from and gives back once done.
  const std::size_t size = encoded_size(msg);
  Frame frame = frames_->acquire(size);
  encode_into(msg, frame.data(), size, checksum);
  ucx_->send(to, self_, std::move(frame));
  spare_->give(std::move(msg.values));
}

void ZmqEnv::reach_ucx_peers() {
  // A UCX that starts but reaches no peer (UCX_TLS=self) would drop every message and leave the
  // job to its stall timeout: found here, when the peers are known, and the node fails at once.
  // Workers talk to servers only (and, under hybrid, to workers of their host, over the same
  // transports): not every worker pair, which would be W^2 connections.
  const bool server = self_ <= layout_.servers;
  const auto last = static_cast<NodeId>(server ? book_.size() - 1 : layout_.servers);
  for (NodeId id = 1; id <= last; ++id) {
    if (id == self_) continue;
    const NodeAddress address = split_node_address(book_[id]);
    if (address.ucx.empty()) continue;  // said at its first send (send_over_ucx)
    const std::string why = ucx_->connect(id, address.ucx);
    if (!why.empty())
      throw TransportUnavailable("node " + std::to_string(self_) + ": UCX cannot reach node " + std::to_string(id) +
                               " at " + address.zmq + ": " + why + " (" + ucx_->transports() +
                               "; every server and worker needs a UCX transport that reaches the others)");
  }
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
      frames_->release(std::move(got->values));
      spare_->give(std::move(got->values_in_place));
      reject(from, "not a server or worker of this job");
      continue;
    }
    const auto sender = static_cast<NodeId>(got->tag);
    const FrameChecksum checksum = checksum_with(sender);
    Message m;
    const bool in_place = got->split && !got->values_in_place.empty();
    if (!in_place) m.values = spare_->take((got->split ? got->values.size : got->bytes.size) / sizeof(float));
    try {
      if (in_place)
        decode_split_adopting(got->bytes.data(), got->bytes.size, got->values_in_place, m,
                              options_.max_message_bytes, options_.max_range_keys, checksum);
      else if (got->split)
        decode_split_into(got->bytes.data(), got->bytes.size, got->values.data(), got->values.size, m,
                          options_.max_message_bytes, options_.max_range_keys, checksum);
      else
        decode_into(got->bytes.data(), got->bytes.size, m, options_.max_message_bytes, options_.max_range_keys,
                    checksum);
    } catch (const ProtocolError& e) {
      frames_->release(std::move(got->bytes));
      frames_->release(std::move(got->values));
      spare_->give(std::move(got->values_in_place));
      reject("node " + std::to_string(sender), e.what());
      continue;
    }
    frames_->release(std::move(got->bytes));
    frames_->release(std::move(got->values));
    spare_->give(std::move(got->values_in_place));  // what the message's values were swapped for
    if (auto delivered = accept_from_node(sender, std::move(m))) return delivered;
  }
}

}  // namespace pstwin::net
