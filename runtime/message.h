// Message: the unit every environment moves between nodes. Its wire form is in codec.h.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/compression.h"

namespace pstwin {

/// A node's id within a job: 0 is the scheduler, 1..S the servers, S+1..S+W the workers.
using NodeId = std::uint32_t;
/// A parameter key. Dense models use keys 0..P-1, one per float32 parameter. A sparse model's key
/// is a parameter row of Model::values_per_key() floats (key k is floats [k*w, (k+1)*w)); key
/// ranges (kStart) then count rows, and every payload carries w values per key.
using Key = std::uint64_t;

/// What a message asks for or carries. Values are part of the wire format: never renumber.
enum class MsgType : std::uint8_t {
  kStart = 1,       ///< scheduler -> node: begin. To a server, once per key range it holds:
                    ///< `range`, keys {first key}, lengths {range size}, values = initial
                    ///< parameters (or a checkpoint's state: runtime/roles/shard_state.h). To a
                    ///< worker: keys 0..R-1 (range indices), lengths = each range's size in keys
  kPull = 2,        ///< worker -> server: send me key range `range`'s parameters for `clock`
  kPullReply = 3,   ///< server -> worker: keys and values; `version` = the range's clock served.
                    ///< Hybrid: also worker -> previous worker of its host, forwarded as is
  kPush = 4,        ///< worker -> server: gradient for `clock`, computed on params of `version`
  kSnapshot = 5,    ///< server -> scheduler: key range `range`'s parameters (values, whole range)
                    ///< at the range's clock `clock`, and the staleness histogram of the
                    ///< gradients applied since its previous snapshot: keys = staleness values,
                    ///< lengths = counts; time_us = when it was taken
  kWorkerDone = 6,  ///< worker -> scheduler: finished all its iterations, or stopped when told
  kStop = 7,        ///< scheduler -> node: shut down; servers reply with a final kSnapshot,
                    ///< after every worker's last push unless flagged kStopNow
  kAbort = 8,       ///< any -> scheduler: training diverged or failed; payload-free
  kRegister = 9,    ///< node -> scheduler (real networks): data = JSON {"role", "address",
                    ///< "index"?, "rejoin"?, "fingerprint"}, then {"ready": true}
                    ///< or {"ready": false, "error"} (net/zmq_env.h)
  kAddressBook = 10,  ///< scheduler -> node: data = JSON {"accepted": true}, {"error"}, or {"id",
                      ///< "nodes": [address by id], "model": shape,
                      ///< "servers", "time_s": the job's clock} (net/zmq_env.h)
  // Fault tolerance (runtime/roles/membership.h, server.h, worker.h).
  kHeartbeat = 11,    ///< node's environment -> scheduler: this node lives; payload-free
  kMembership = 12,   ///< scheduler -> node: routing epoch, replicas of each key range and dead
                      ///< workers; data = JSON (Membership); header.epoch = the epoch
  kReplicate = 13,    ///< primary -> backup: operation `op` of key range `range`'s log, number
                      ///< `seq`, about worker node `subject`. A kPush op carries the worker's push
                      ///< as it arrived (flags, request_id, clock, version, loss, keys, values);
                      ///< kWorkerRejoin carries the rejoin clock in `clock`
  kReplicaAck = 14,   ///< backup -> primary: applied range `range`'s log up to `seq`;
                      ///< primary -> scheduler: backup `subject` now holds range `range`
                      ///< (it acknowledged the range's state)
  kShardState = 15,   ///< primary -> backup: key range `range`'s whole state (params, optimizer
                      ///< state, consistency state, buffered gradients) at log sequence `seq`
  kPushAck = 16,      ///< server -> worker: the push `request_id` is applied on every live replica
  kRejoin = 17,       ///< restarted node -> scheduler: take me back (data = JSON {"role", "index"})
  kCheckpointDone = 18,  ///< server -> scheduler: range `range`'s checkpoint of `clock` is stored
  kEvent = 19,  ///< node's environment -> scheduler's (real networks): a line for events.jsonl,
                ///< data = JSON {"time_s", "type", fields...} (a straggler; net/zmq_env.h)
  // Hybrid synchronisation (runtime/roles/host_chain.h).
  kHostReduce = 20,  ///< worker -> next worker of its host: key range `range`'s slice of the
                     ///< host's gradient for `clock`, summed over the host's workers up to the
                     ///< sender (each scaled by 1 / workers_per_host); `version` as on a push
};

/// Largest valid MsgType value, for decoders.
inline constexpr std::uint8_t kMaxMsgType = 20;

/// Name of a message type, for logs and errors ("push", "pull", ...; "unknown" otherwise).
std::string_view msg_type_name(MsgType t);

/// The operation a kReplicate message carries: one entry of a key range's replication log, which
/// every backup replays in order (docs/DESIGN.md, "Replication and failover"). Values are part
/// of the wire format: never renumber.
enum class ReplicaOp : std::uint8_t {
  kNone = 0,          ///< not a kReplicate message
  kPush = 1,          ///< apply worker `subject`'s push
  kWorkerDead = 2,    ///< worker `subject` left: it no longer counts in barriers
  kWorkerRejoin = 3,  ///< worker `subject` counts again from clock `clock`
  kSnapshotTaken = 4, ///< the primary reported the staleness histogram: drop it here too
};

/// Largest valid ReplicaOp value, for decoders.
inline constexpr std::uint8_t kMaxReplicaOp = 4;

/// Name of a replicated operation, for logs and errors ("push", "worker-dead", ...).
std::string_view replica_op_name(ReplicaOp op);

/// Flag bits in MessageHeader::flags.
namespace msg_flags {
/// On kPush: after applying, also answer a pull for clock+1 (saves one request per iteration,
/// the push-pull pattern of ps-lite and BytePS).
inline constexpr std::uint32_t kPullAfter = 1u << 0;
/// On kSnapshot: this is the final snapshot, sent in answer to kStop.
inline constexpr std::uint32_t kFinal = 1u << 1;
/// On kAbort: the worker stopped because training diverged (NaN or inf loss).
inline constexpr std::uint32_t kDiverged = 1u << 2;
/// The payload covers the whole key range `range` in key order, so keys are omitted (dense models).
inline constexpr std::uint32_t kWholeRange = 1u << 3;
/// On kPull, kPullReply and kPush of a sparse model (Model::sparse()): the message is about an
/// explicit subset of the shard's keys. kPull: `keys` lists the keys wanted (sorted, possibly
/// none: the pull still waits for the consistency model). kPullReply: `values` holds the values
/// of the pull's keys, in its key order, and `keys` is omitted. kPush: `keys` lists the keys
/// whose gradient `values` carries. Each key has values_per_key floats (a parameter row).
inline constexpr std::uint32_t kKeyed = 1u << 4;
/// On kPush: answer with kPushAck once every live replica applied it (a worker's last push).
inline constexpr std::uint32_t kAckRequested = 1u << 5;
/// On kPull from a restarted worker: rejoin the key range. With clock < 0, only ask for the range's
/// clock (answered by a kPullReply without values, version = the range's clock); with clock c >= 0,
/// count the worker again from clock c on (ConsistencyController::rejoin) and answer as a pull of c.
inline constexpr std::uint32_t kRejoin = 1u << 6;
/// On kStop: stop at once (an abort, or a node declared dead), without waiting for the pushes
/// still in flight.
inline constexpr std::uint32_t kStopNow = 1u << 7;
}  // namespace msg_flags

/// Fixed-size metadata of a message. A field means the same thing in every message type that
/// uses it; unused fields are 0.
struct MessageHeader {
  MsgType type = MsgType::kPull;
  std::uint32_t flags = 0;       ///< msg_flags bits
  NodeId sender = 0;
  NodeId receiver = 0;
  std::uint64_t request_id = 0;  ///< a worker's id for one push or pull, echoed by its reply
                                 ///< (kPullReply, kPushAck) and kept when it is replicated
  std::uint64_t seq = 0;         ///< position in a key range's replication log
  std::uint32_t epoch = 0;       ///< membership epoch the sender routed by (bumped on failover)
  std::uint32_t range = 0;       ///< key-range index the message is about (not a server index)
  NodeId subject = 0;            ///< the node the message is about, when not the sender
  ReplicaOp op = ReplicaOp::kNone;  ///< on kReplicate: the logged operation
  std::int64_t clock = 0;        ///< worker clock (push/pull) or the range's clock (snapshot)
  std::int64_t version = 0;      ///< parameter version: the range's clock served / read
  std::int64_t time_us = 0;      ///< sender's Env::now() in microseconds when the content was taken
  float loss = 0.0f;             ///< on kPush: the mini-batch's mean training loss (informational)
};

/// A message: header plus payload of sorted keys, float32 values, optional per-key lengths, and
/// optional opaque bytes (`data`: rendezvous and control text; never parameters).
/// `virtual_values` counts values that exist only as size (the timing-only synthetic model):
/// they are not stored, but are counted in the encoded size and sent as zeros on a real wire.
struct Message {
  MessageHeader header;
  std::vector<Key> keys;
  std::vector<float> values;
  std::vector<std::uint32_t> lengths;
  std::string data;
  std::uint64_t virtual_values = 0;
  /// Compressed values (runtime/packed_values.h): when value_format is not kFloat32, `values` is
  /// empty and `packed` holds packed_count values in that format (kernels/compression.h); that is
  /// what travels and what the simulation charges.
  ValueFormat value_format = ValueFormat::kFloat32;
  std::uint64_t packed_count = 0;
  std::vector<std::uint8_t> packed;
};

}  // namespace pstwin
