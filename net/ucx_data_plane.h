// UcxDataPlane: the data plane of a job run with --transport ucx (DESIGN.md, "The real
// environments"): servers and workers send each other's encoded messages as UCP tagged messages
// (shared memory on one machine, TCP or RDMA between machines, whichever UCX finds), while the
// scheduler, the rendezvous and the heartbeats stay on ZeroMQ. Only ZmqEnv uses it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "net/frame_pool.h"
#include "net/node_address.h"
#include "net/spare_values.h"
#include "runtime/message.h"

namespace pstwin::net {

/// One message taken off the UCX worker: the sender's tag (its node id, as it claims) and the
/// raw bytes, undecoded; or, when it could not be taken whole, why not.
struct UcxReceived {
  std::uint64_t tag = 0;
  Frame bytes;        ///< valid when `error` is empty; give it back to the pool once decoded
  /// A split message (send_split): `bytes` is its header part and this its values part (both
  /// back to the pool once decoded); otherwise `bytes` is a whole frame.
  bool split = false;
  Frame values;
  /// A split message's values part taken straight into a vector, one of the node's spare values
  /// or else a new one, when spare values are set (set_spare_values) and its length is a whole
  /// number of floats: then `values` stays empty and this holds the part's bytes (decode it with
  /// decode_split_adopting, runtime/codec.h).
  std::vector<float> values_in_place;
  std::string error;  ///< "1073741900 bytes, over the 1073741824-byte limit", a UCX error, ...
};

/// A UCP context and one worker, with an endpoint per peer. Messages are tagged with the sender's
/// node id; large ones go by UCX's rendezvous protocol (zero-copy: the receiver pulls them from
/// the sender's buffer, over shared memory with cma or between machines with RDMA).
///
/// Sends never block: a send is handed to UCX with a pool buffer that it keeps until UCX says
/// the message left (or failed), and every call progresses the worker.
///
/// With `peer_failures`, endpoints use UCP_ERR_HANDLING_MODE_PEER, so a peer that dies fails its
/// endpoint (one line on stderr, its messages are dropped as ZeroMQ drops what is queued for a
/// dead peer) instead of hanging; connect() again (an address update after a restart) replaces
/// it. UCX 1.13's shared-memory transports (posix, sysv, cma) cannot report a dead peer, so in
/// that mode UCX takes TCP even on one machine; without it, shared memory, and a peer that dies
/// mid-message fails the receiving process with UCX's error (DESIGN.md, "The real environments"). Not thread-safe: the role's
/// thread alone uses it (UCS_THREAD_MODE_SINGLE).
class UcxDataPlane {
 public:
  /// Opens the context and worker; receive() refuses messages over max_message_bytes.
  /// `frames` lends send and receive buffers. UCX_TLS from the environment chooses transports;
  /// without it, kDefaultTransports. Throws TransportUnavailable (net/transport_unavailable.h)
  /// "UCX: cannot ..." naming the call and UCX's status string when UCX cannot start.
  UcxDataPlane(std::size_t max_message_bytes, std::shared_ptr<FramePool> frames, bool peer_failures = true);
  /// Waits up to linger_s (set_linger) for sends in flight, then closes every endpoint.
  ~UcxDataPlane();
  UcxDataPlane(const UcxDataPlane&) = delete;
  UcxDataPlane& operator=(const UcxDataPlane&) = delete;

  /// The transports UCX may use when UCX_TLS is not set: shared memory (posix, sysv) with cma
  /// for zero-copy rendezvous on one machine, tcp between machines, rc/ud verbs where present
  /// (the winner of bench/transports.sh's UCX_TLS comparison; see DESIGN.md).
  static constexpr const char* kDefaultTransports = "sm,tcp";

  /// This worker's address, hex-encoded (a few hundred characters), for the address book.
  const std::string& address_hex() const { return address_hex_; }
  /// Whether this UCX can send from CUDA device memory (ucp_context_query's memory types).
  bool supports_cuda_memory() const { return cuda_memory_; }
  /// The transports UCX will use, as a line for the log ("UCX_TLS=sm,tcp,...").
  std::string transports() const;

  /// Creates (or replaces) the endpoint to node `id` at hex worker address `address_hex`.
  /// Throws std::invalid_argument for an address that is not hex. When UCX cannot make the
  /// endpoint (the peer is gone: its port refuses), the peer counts as failed, as an endpoint
  /// that fails later does: its messages are dropped, silently, until connect() is called again.
  /// Returns UCX's reason when it could not make the endpoint ("Destination is unreachable":
  /// no transport of UCX_TLS reaches the peer), else "", for the caller to say.
  std::string connect(NodeId id, const std::string& address_hex);
  /// Whether an endpoint to `id` exists (connect() was called and it was not forgotten).
  bool connected(NodeId id) const { return peers_.count(id) > 0; }
  /// Closes the endpoint to `id`, if any.
  void forget(NodeId id);

  /// Sends bytes [0, frame.size) of `frame` to node `id`, tagged `tag` (the sender's id).
  /// REQUIRES: connected(id). Never blocks; the buffer goes back to the pool once UCX is done
  /// with it. To a peer whose endpoint failed, drops the message (said once per peer).
  void send(NodeId id, std::uint64_t tag, Frame frame);
  /// Sends a message split (runtime/codec.h): its header part `head` (encode_split_into), then
  /// its values part values[0..values_size) as a second UCX message sent from where it lies, so
  /// a large one goes by rendezvous straight from the role's memory (cma or RDMA), with no copy
  /// on this side. (One UCX message with an iov of both was tried: UCX 1.13 sends a non-contiguous
  /// buffer by copying it through bounce buffers, slower than a copy of our own.) The head's tag
  /// is `tag` | kTagFollows, the values' `tag` | kTagValues, so the receiver takes a sender's
  /// values part right after its head. `owner` holds the values (they point into its vectors)
  /// until UCX is done; its values then go to the spare values given by set_spare_values(), if
  /// any. Otherwise as send().
  void send_split(NodeId id, std::uint64_t tag, Frame head, const std::uint8_t* values, std::size_t values_size,
                  Message owner);
  /// Tag bits of a split message: on its header part, and on its values part.
  static constexpr std::uint64_t kTagFollows = std::uint64_t{1} << 62;
  static constexpr std::uint64_t kTagValues = std::uint64_t{1} << 63;
  /// Where send_split() gives back the values it sent from (a node's spare values).
  void set_spare_values(std::shared_ptr<SpareValues> spare) { spare_ = std::move(spare); }
  /// Progresses the worker and takes the next message that arrived, whole (a split one with its
  /// values part); nullopt when none has (a large one's rendezvous still running, or a split
  /// one's values part not here yet, counts as none: call again after event_fd() fires).
  /// Messages come in the order their senders sent them. The tag returned is the sender's, with
  /// kTagFollows cleared. A sender that dies between the two parts of a split message leaves
  /// this node waiting for the second until its role's stall timeout.
  std::optional<UcxReceived> receive();
  /// A file descriptor that becomes readable when the worker has something to progress; poll it
  /// after arm() returned true.
  int event_fd() const { return event_fd_; }
  /// Prepares event_fd() for waiting. False when events are already pending (call receive()
  /// again instead of waiting).
  bool arm();
  /// Progresses the worker until every send handed to UCX has finished, or timeout_s passed;
  /// returns whether they all finished. (A send finishes only while both ends progress.)
  bool wait_sent(double timeout_s);
  /// How long the destructor waits for sends in flight (seconds).
  void set_linger(double seconds) { linger_s_ = seconds; }
  /// Sends handed to UCX and not yet finished.
  std::size_t in_flight() const { return pending_.size(); }

 private:
  struct Peer;
  struct PendingSend;
  struct PendingReceive;
  void progress();
  void sweep_sends();
  /// Hands `send` (holding the buffer at `buffer`) to UCX, or finishes it.
  void start_send(Peer& peer, std::uint64_t tag, std::unique_ptr<PendingSend> send, const void* buffer,
                  std::size_t size);
  /// Starts receiving `message` (length `length`) into a pool buffer, or into 64 bytes that UCX
  /// truncates it to when it is over `limit`; returns the request.
  void* start_receive(void* message, std::size_t length, std::size_t limit, Frame& into, bool& oversize);
  /// Starts receiving a split message's values part `message` (length `length`, within `limit`)
  /// straight into a spare values vector, or a new one, when it is a whole number of floats and
  /// spare values are set (set_spare_values), else as start_receive() does; returns the request.
  void* start_values_receive(void* message, std::size_t length, std::size_t limit, UcxReceived& into,
                             bool& oversize);
  /// Gives a finished send's buffers back.
  void finish(PendingSend& send);
  /// Closes endpoint `ep` (a ucp_ep_h) at once, cancelling its sends.
  void close_endpoint(void* ep);

  const std::size_t max_message_bytes_;
  std::shared_ptr<FramePool> frames_;
  std::shared_ptr<SpareValues> spare_;
  void* context_ = nullptr;  // ucp_context_h
  void* worker_ = nullptr;   // ucp_worker_h
  std::string address_hex_;
  int event_fd_ = -1;
  bool cuda_memory_ = false;
  bool peer_failures_ = true;
  double linger_s_ = 5.0;
  std::map<NodeId, std::unique_ptr<Peer>> peers_;
  std::vector<std::unique_ptr<PendingSend>> pending_;
  std::unique_ptr<PendingReceive> receiving_;
};

}  // namespace pstwin::net
