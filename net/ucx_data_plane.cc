// UcxDataPlane over UCP's tag matching (see ucx_data_plane.h).
#include "net/ucx_data_plane.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <stdexcept>

#include <ucp/api/ucp.h>

#include "net/transport_unavailable.h"

namespace pstwin::net {

namespace {

ucp_context_h ctx(void* p) { return static_cast<ucp_context_h>(p); }
ucp_worker_h wrk(void* p) { return static_cast<ucp_worker_h>(p); }

/// For the steps of starting UCX: one that fails leaves this machine without the transport.
void check(ucs_status_t status, const std::string& call) {
  if (status != UCS_OK) throw TransportUnavailable("UCX: cannot " + call + ": " + ucs_status_string(status));
}

std::string to_hex(const std::uint8_t* data, std::size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(2 * size, '0');
  for (std::size_t i = 0; i < size; ++i) {
    out[2 * i] = kDigits[data[i] >> 4];
    out[2 * i + 1] = kDigits[data[i] & 15];
  }
  return out;
}

std::vector<std::uint8_t> from_hex(const std::string& hex) {
  auto digit = [&](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    throw std::invalid_argument("UCX worker address: '" + std::string(1, c) + "' is not a hex digit");
  };
  if (hex.empty() || hex.size() % 2 != 0)
    throw std::invalid_argument("UCX worker address: an even, nonzero number of hex digits expected, got " +
                                std::to_string(hex.size()));
  std::vector<std::uint8_t> out(hex.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<std::uint8_t>(digit(hex[2 * i]) << 4 | digit(hex[2 * i + 1]));
  return out;
}

}  // namespace

/// An endpoint, and whether UCX reported its peer dead (set by the error callback).
struct UcxDataPlane::Peer {
  ucp_ep_h ep = nullptr;
  NodeId id = 0;
  bool failed = false;
  bool said = false;  // the failure was logged
};

/// The message being received (a rendezvous in progress, or one just probed): its header part
/// or whole frame, then, for a split one, its values part.
struct UcxDataPlane::PendingReceive {
  void* request = nullptr;  // the current part's; null: done at once; UCS_PTR_IS_ERR: failed at once
  UcxReceived got;
  std::size_t length = 0;  // as the sender announced it (both parts of a split one)
  bool oversize = false;
  ucs_status_t status = UCS_OK;  // the first failure of either part
  bool values_started = false;   // a split one's values part is being taken
};

/// A send UCX has not finished: the request and the buffers it reads from.
struct UcxDataPlane::PendingSend {
  void* request = nullptr;
  Frame frame;
  NodeId to = 0;
  Message owner;  // send_split's values part: holds the values sent from
};

UcxDataPlane::UcxDataPlane(std::size_t max_message_bytes, std::shared_ptr<FramePool> frames, bool peer_failures)
    : max_message_bytes_(max_message_bytes), frames_(std::move(frames)), peer_failures_(peer_failures) {
  ucp_config_t* config = nullptr;
  check(ucp_config_read(nullptr, nullptr, &config), "read its configuration");
  if (!std::getenv("UCX_TLS")) ucp_config_modify(config, "TLS", kDefaultTransports);
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES;
  params.features = UCP_FEATURE_TAG | UCP_FEATURE_WAKEUP;
  ucp_context_h context = nullptr;
  const ucs_status_t init = ucp_init(&params, config, &context);
  ucp_config_release(config);
  check(init, "initialise (ucp_init)");
  context_ = context;
  ucp_context_attr_t attr{};
  attr.field_mask = UCP_ATTR_FIELD_MEMORY_TYPES;
  if (ucp_context_query(context, &attr) == UCS_OK)
    cuda_memory_ = (attr.memory_types & UCS_BIT(UCS_MEMORY_TYPE_CUDA)) != 0;
  ucp_worker_params_t wp{};
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  wp.thread_mode = UCS_THREAD_MODE_SINGLE;
  ucp_worker_h worker = nullptr;
  if (const ucs_status_t s = ucp_worker_create(context, &wp, &worker); s != UCS_OK) {
    ucp_cleanup(context);
    check(s, "create a worker (ucp_worker_create)");
  }
  worker_ = worker;
  ucp_address_t* address = nullptr;
  std::size_t length = 0;
  check(ucp_worker_get_address(worker, &address, &length), "read the worker's address");
  address_hex_ = to_hex(reinterpret_cast<const std::uint8_t*>(address), length);
  ucp_worker_release_address(worker, address);
  check(ucp_worker_get_efd(worker, &event_fd_), "get the worker's event descriptor");
}

void UcxDataPlane::close_endpoint(void* ep) {
  if (ep == nullptr) return;  // never connected (connect() found the peer gone)
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
  param.flags = UCP_EP_CLOSE_FLAG_FORCE;
  void* closing = ucp_ep_close_nbx(static_cast<ucp_ep_h>(ep), &param);
  if (UCS_PTR_IS_PTR(closing)) {
    while (ucp_request_check_status(closing) == UCS_INPROGRESS) ucp_worker_progress(wrk(worker_));
    ucp_request_free(closing);
  }
}

UcxDataPlane::~UcxDataPlane() {
  // Sends in flight get linger_s to finish (a worker's last push to a live server must arrive).
  wait_sent(linger_s_);
  // Closing an endpoint by force ends its sends (UCS_ERR_CANCELED); only then are their buffers
  // free. (ucp_request_cancel is for receives only.)
  // A receive mid-rendezvous from a sender that stopped progressing cannot be cancelled: it is
  // let go, and its buffer kept until the worker is gone.
  std::unique_ptr<PendingReceive> unfinished = std::move(receiving_);
  if (unfinished && UCS_PTR_IS_PTR(unfinished->request)) {
    ucp_request_cancel(wrk(worker_), unfinished->request);
    progress();
    ucp_request_free(unfinished->request);
  }
  for (auto& [id, peer] : peers_) close_endpoint(peer->ep);
  peers_.clear();
  progress();
  for (auto& p : pending_) ucp_request_free(p->request);
  pending_.clear();
  ucp_worker_destroy(wrk(worker_));
  ucp_cleanup(ctx(context_));
}

bool UcxDataPlane::wait_sent(double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::microseconds(static_cast<long>(timeout_s * 1e6));
  progress();
  while (!pending_.empty() && std::chrono::steady_clock::now() < deadline) progress();
  return pending_.empty();
}

std::string UcxDataPlane::transports() const {
  const char* env = std::getenv("UCX_TLS");
  return std::string("UCX_TLS=") + (env ? env : kDefaultTransports);
}

std::string UcxDataPlane::connect(NodeId id, const std::string& address_hex) {
  const auto address = from_hex(address_hex);
  forget(id);
  auto peer = std::make_unique<Peer>();
  peer->id = id;
  ucp_ep_params_t params{};
  params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                      UCP_EP_PARAM_FIELD_ERR_HANDLER;
  params.address = reinterpret_cast<const ucp_address_t*>(address.data());
  params.err_mode = peer_failures_ ? UCP_ERR_HANDLING_MODE_PEER : UCP_ERR_HANDLING_MODE_NONE;
  params.err_handler.cb = [](void* arg, ucp_ep_h, ucs_status_t) { static_cast<Peer*>(arg)->failed = true; };
  params.err_handler.arg = peer.get();
  const ucs_status_t status = ucp_ep_create(wrk(worker_), &params, &peer->ep);
  if (status != UCS_OK) {
    // The peer is gone already (over TCP: its port refuses the connection). As for an endpoint
    // that fails later, its messages are dropped until an address update connects again: a
    // dead worker must not take its servers down with it. The caller says so (or fails).
    peer->ep = nullptr;
    peer->failed = true;
    peer->said = true;
  }
  peers_[id] = std::move(peer);
  return status == UCS_OK ? "" : ucs_status_string(status);
}

void UcxDataPlane::forget(NodeId id) {
  auto it = peers_.find(id);
  if (it == peers_.end()) return;
  // Sends still reading from its buffers are cancelled by the close, and swept below.
  close_endpoint(it->second->ep);
  peers_.erase(it);
  sweep_sends();
}

void UcxDataPlane::send(NodeId id, std::uint64_t tag, Frame frame) {
  auto pending = std::make_unique<PendingSend>();
  pending->frame = std::move(frame);
  pending->to = id;
  const void* buffer = pending->frame.data();
  const std::size_t size = pending->frame.size;
  start_send(*peers_.at(id), tag, std::move(pending), buffer, size);
}

void UcxDataPlane::send_split(NodeId id, std::uint64_t tag, Frame head, const std::uint8_t* values,
                              std::size_t values_size, Message owner) {
  Peer& peer = *peers_.at(id);
  send(id, tag | kTagFollows, std::move(head));
  auto pending = std::make_unique<PendingSend>();
  pending->owner = std::move(owner);  // moving the message keeps its values where they are
  pending->to = id;
  start_send(peer, tag | kTagValues, std::move(pending), values, values_size);
}

void UcxDataPlane::start_send(Peer& peer, std::uint64_t tag, std::unique_ptr<PendingSend> send,
                              const void* buffer, std::size_t size) {
  progress();
  if (peer.failed) {
    if (!peer.said)
      std::cerr << "pstwin: UCX: the endpoint to node " << peer.id
                << " failed (its process is gone?); messages to it are dropped\n";
    peer.said = true;
    finish(*send);
    return;
  }
  ucp_request_param_t param{};  // no callback: completion is polled (sweep_sends)
  void* request = ucp_tag_send_nbx(peer.ep, buffer, size, tag, &param);
  if (request == nullptr) {  // done already: UCX copied it out
    finish(*send);
    return;
  }
  if (UCS_PTR_IS_ERR(request)) {
    std::cerr << "pstwin: UCX: sending to node " << peer.id << " failed: "
              << ucs_status_string(UCS_PTR_STATUS(request)) << "\n";
    finish(*send);
    return;
  }
  send->request = request;
  pending_.push_back(std::move(send));
}

void UcxDataPlane::finish(PendingSend& send) {
  frames_->release(std::move(send.frame));
  if (spare_) spare_->give(std::move(send.owner.values));
}

void UcxDataPlane::sweep_sends() {
  for (std::size_t i = 0; i < pending_.size();) {
    PendingSend& p = *pending_[i];
    const ucs_status_t status = ucp_request_check_status(p.request);
    if (status == UCS_INPROGRESS) {
      ++i;
      continue;
    }
    if (status != UCS_OK && status != UCS_ERR_CANCELED)
      std::cerr << "pstwin: UCX: a message to node " << p.to << " was lost: " << ucs_status_string(status) << "\n";
    ucp_request_free(p.request);
    finish(p);
    pending_[i] = std::move(pending_.back());
    pending_.pop_back();
  }
}

void UcxDataPlane::progress() {
  while (ucp_worker_progress(wrk(worker_)) != 0) {
  }
  sweep_sends();
}

void* UcxDataPlane::start_receive(void* message, std::size_t length, std::size_t limit, Frame& into,
                                  bool& oversize) {
  // An oversize message is still taken off the worker, into a few bytes: UCX discards the rest
  // and reports it truncated.
  oversize = oversize || length > limit;
  into = frames_->acquire(length > limit ? 64 : length);
  ucp_request_param_t param{};
  return ucp_tag_msg_recv_nbx(wrk(worker_), into.data(), into.size, static_cast<ucp_tag_message_h>(message), &param);
}

void* UcxDataPlane::start_values_receive(void* message, std::size_t length, std::size_t limit,
                                         UcxReceived& into, bool& oversize) {
  if (spare_ && length <= limit && length % sizeof(float) == 0 && length > 0) {
    into.values_in_place = spare_->take_sized(length / sizeof(float));
    // None held (the first messages): a new vector all the same. Zero-filling it costs a pass,
    // but a pool buffer would cost a copy into the message's vector afterwards, and hold a
    // second copy of the values, in the pool, for the rest of the job.
    if (into.values_in_place.empty()) into.values_in_place.resize(length / sizeof(float));
  }
  if (into.values_in_place.empty()) return start_receive(message, length, limit, into.values, oversize);
  // Into the memory the role will read them from: no copy out of a pool buffer afterwards.
  ucp_request_param_t param{};
  return ucp_tag_msg_recv_nbx(wrk(worker_), into.values_in_place.data(), length,
                              static_cast<ucp_tag_message_h>(message), &param);
}

std::optional<UcxReceived> UcxDataPlane::receive() {
  progress();
  if (!receiving_) {
    // Any message but a values part, which is taken only after its header part.
    ucp_tag_recv_info_t info{};
    ucp_tag_message_h message = ucp_tag_probe_nb(wrk(worker_), 0, kTagValues, /*remove=*/1, &info);
    if (message == nullptr) return std::nullopt;
    receiving_ = std::make_unique<PendingReceive>();
    PendingReceive& r = *receiving_;
    r.got.tag = info.sender_tag & ~kTagFollows;
    r.got.split = (info.sender_tag & kTagFollows) != 0;
    r.length = info.length;
    r.request = start_receive(message, info.length, max_message_bytes_, r.got.bytes, r.oversize);
  }
  // A large message comes by rendezvous, which needs its sender to progress too: until it has
  // arrived, nothing else is taken (messages of one sender stay in order) and nullopt is
  // returned, so that the caller waits on event_fd() rather than spinning.
  PendingReceive& r = *receiving_;
  for (;;) {
    if (UCS_PTR_IS_ERR(r.request)) {
      if (r.status == UCS_OK) r.status = UCS_PTR_STATUS(r.request);
    } else if (r.request != nullptr) {
      const ucs_status_t status = ucp_request_check_status(r.request);
      if (status == UCS_INPROGRESS) return std::nullopt;
      ucp_request_free(r.request);
      if (r.status == UCS_OK) r.status = status;
    }
    r.request = nullptr;
    if (!r.got.split || r.got.values.bytes || r.values_started) break;  // whole, or both parts in
    // A split message: its values part, from the same sender, comes next (taken even when the
    // header part failed, so that it does not pass for the next message's).
    ucp_tag_recv_info_t info{};
    ucp_tag_message_h message =
        ucp_tag_probe_nb(wrk(worker_), r.got.tag | kTagValues, ~std::uint64_t{0}, /*remove=*/1, &info);
    if (message == nullptr) return std::nullopt;
    const std::size_t head = r.length;
    r.length += info.length;
    r.values_started = true;
    r.request = start_values_receive(message, info.length, max_message_bytes_ - std::min(head, max_message_bytes_),
                                     r.got, r.oversize);
  }
  UcxReceived got = std::move(r.got);
  if (r.oversize) {
    got.error = std::to_string(r.length) + " bytes, over the " + std::to_string(max_message_bytes_) +
                "-byte message limit";
  } else if (r.status != UCS_OK) {
    got.error = std::string("UCX could not receive it: ") + ucs_status_string(r.status);
  }
  receiving_.reset();
  if (!got.error.empty()) {
    frames_->release(std::move(got.bytes));
    frames_->release(std::move(got.values));
    if (spare_) spare_->give(std::move(got.values_in_place));
  }
  return got;
}

bool UcxDataPlane::arm() {
  // Whatever progress does may queue a message for probing, which no event would announce
  // again: then the caller takes it first.
  if (ucp_worker_progress(wrk(worker_)) != 0) {
    sweep_sends();
    return false;
  }
  return ucp_worker_arm(wrk(worker_)) == UCS_OK;
}

}  // namespace pstwin::net
