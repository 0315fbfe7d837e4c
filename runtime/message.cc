// Message type and replicated operation names, for logs and errors.
#include "runtime/message.h"

namespace pstwin {

std::string_view msg_type_name(MsgType t) {
  switch (t) {
    case MsgType::kStart: return "start";
    case MsgType::kPull: return "pull";
    case MsgType::kPullReply: return "pull-reply";
    case MsgType::kPush: return "push";
    case MsgType::kSnapshot: return "snapshot";
    case MsgType::kWorkerDone: return "worker-done";
    case MsgType::kStop: return "stop";
    case MsgType::kAbort: return "abort";
    case MsgType::kRegister: return "register";
    case MsgType::kAddressBook: return "address-book";
    case MsgType::kHeartbeat: return "heartbeat";
    case MsgType::kMembership: return "membership";
    case MsgType::kReplicate: return "replicate";
    case MsgType::kReplicaAck: return "replica-ack";
    case MsgType::kShardState: return "shard-state";
    case MsgType::kPushAck: return "push-ack";
    case MsgType::kRejoin: return "rejoin";
    case MsgType::kCheckpointDone: return "checkpoint-done";
    case MsgType::kEvent: return "event";
    case MsgType::kHostReduce: return "host-reduce";
  }
  // A MsgType built from an unchecked byte can hold any value; the switch covers the named ones.
  return "unknown";
}

std::string_view replica_op_name(ReplicaOp op) {
  switch (op) {
    case ReplicaOp::kNone: return "none";
    case ReplicaOp::kPush: return "push";
    case ReplicaOp::kWorkerDead: return "worker-dead";
    case ReplicaOp::kWorkerRejoin: return "worker-rejoin";
    case ReplicaOp::kSnapshotTaken: return "snapshot-taken";
  }
  return "unknown";
}

}  // namespace pstwin
