#include "net/zap_authenticator.h"

#include <iostream>
#include <stdexcept>
#include <vector>

#include "net/tcp_address.h"

namespace pstwin::net {

ZapAuthenticator::ZapAuthenticator(zmq::context_t& context, const std::string& allowed_public_z85)
    : socket_(open_socket(context, zmq::socket_type::rep)) {
  allowed_key_.resize(32);
  if (allowed_public_z85.size() != 40 ||
      !zmq_z85_decode(reinterpret_cast<std::uint8_t*>(allowed_key_.data()),
                      allowed_public_z85.c_str()))
    throw std::runtime_error("job public key is not 40 Z85 characters");
  socket_.set(zmq::sockopt::linger, 0);
  socket_.bind("inproc://zeromq.zap.01");
  thread_ = std::thread([this] { serve(); });
}

ZapAuthenticator::~ZapAuthenticator() {
  stop_ = true;
  thread_.join();
}

void ZapAuthenticator::serve() {
  while (!stop_) {
    zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLIN, 0};
    zmq::poll(&item, 1, std::chrono::milliseconds(100));
    if (!(item.revents & ZMQ_POLLIN)) continue;
    // Request frames (RFC 27): version, request id, domain, address, identity, mechanism,
    // then the mechanism's credentials (CURVE: the client's 32-byte public key).
    std::vector<zmq::message_t> frames;
    do {
      zmq::message_t frame;
      if (!socket_.recv(frame, zmq::recv_flags::none)) break;
      frames.push_back(std::move(frame));
    } while (frames.back().more());
    if (frames.size() < 6) continue;
    const std::string mechanism = frames[5].to_string();
    const bool ok = mechanism == "CURVE" && frames.size() >= 7 &&
                    frames[6].to_string() == allowed_key_;
    if (!ok) {
      ++refused_;
      std::cerr << "pstwin: refused a connection from " << frames[3].to_string() << ": "
                << (mechanism == "CURVE" ? "its key is not this job's" : "no CURVE credentials")
                << "\n";
    }
    const std::string status = ok ? "200" : "400";
    socket_.send(zmq::buffer(std::string("1.0")), zmq::send_flags::sndmore);
    socket_.send(frames[1], zmq::send_flags::sndmore);
    socket_.send(zmq::buffer(status), zmq::send_flags::sndmore);
    socket_.send(zmq::buffer(std::string(ok ? "OK" : "not a member of this job")),
                 zmq::send_flags::sndmore);
    socket_.send(zmq::buffer(std::string(ok ? "pstwin" : "")), zmq::send_flags::sndmore);
    socket_.send(zmq::str_buffer(""), zmq::send_flags::none);
  }
}

}  // namespace pstwin::net
