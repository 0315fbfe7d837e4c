// ZmqEnv's rendezvous, scheduler side: it hands out node ids and the address book as nodes register
// (or rejoin a running job after a restart). The data path is in zmq_env.cc.
#include <algorithm>
#include <iostream>
#include <limits>
#include <random>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "net/handshake_watch.h"
#include "net/job_fingerprint.h"
#include "net/tcp_address.h"
#include "net/zmq_env.h"
#include "net/zmq_identity.h"
#include "runtime/errors.h"
#include "runtime/wire_json.h"
#include "runtime/count_text.h"

namespace pstwin::net {

namespace {

/// Reads a registration's body `j`: {"role", "address", "index" (optional; -1 or absent: any free
/// one), "rejoin" (optional bool), "join" (optional bool, read by asks_to_join), "fingerprint"
/// (read by admits)}. Returns whether it asks to rejoin a running job. Throws ProtocolError
/// naming the field that is missing or of the wrong type or range (runtime/wire_json.h).
bool read_registration(const nlohmann::json& j, std::string& role, std::string& address, std::int64_t& index) {
  const std::string what = "registration";
  role = wire_json::string_member(j, "role", what);
  address = wire_json::string_member(j, "address", what);
  index = j.contains("index") ? wire_json::integer_member<std::int32_t>(j, "index", what) : -1;
  if (!j.contains("rejoin")) return false;
  if (!j["rejoin"].is_boolean()) throw ProtocolError(what + ": \"rejoin\" must be true or false");
  return j["rejoin"].get<bool>();
}

/// Whether registration `j` asks to join the running job as a server declared joining ("join":
/// true). Throws ProtocolError when "join" is there but not a boolean.
bool asks_to_join(const nlohmann::json& j) {
  if (!j.contains("join")) return false;
  if (!j["join"].is_boolean()) throw ProtocolError("registration: \"join\" must be true or false");
  return j["join"].get<bool>();
}

/// "server:0" or "worker:3": the slot of node `id` in a job of `servers` servers.
std::string slot_name(NodeId id, std::uint32_t servers) {
  return id <= servers ? "server:" + std::to_string(id - 1) : "worker:" + std::to_string(id - 1 - servers);
}

/// "server:1, worker:5-7": the nodes whose slots are still empty (ids first..first+count-1).
std::string missing_nodes(const std::vector<bool>& present, std::uint32_t servers) {
  std::string out;
  auto name = [&](NodeId id) { return slot_name(id, servers); };
  for (NodeId id = 1; id < present.size();) {
    if (present[id]) {
      ++id;
      continue;
    }
    NodeId last = id;
    const bool server = id <= servers;
    while (last + 1 < present.size() && !present[last + 1] && (last + 1 <= servers) == server) ++last;
    if (!out.empty()) out += ", ";
    out += name(id);
    if (last > id) out += "-" + std::to_string(server ? last - 1 : last - 1 - servers);
    id = last + 1;
  }
  return out;
}

}  // namespace

void ZmqEnv::host_registration(std::uint32_t servers, std::uint32_t workers, double timeout_s) {
  RendezvousRules rules;
  rules.connect_timeout_s = rules.ready_timeout_s = timeout_s;
  host_registration(servers, workers, rules);
}

void ZmqEnv::host_registration(std::uint32_t servers, std::uint32_t workers, const RendezvousRules& rules) {
  self_ = kScheduler;
  fingerprint_ = rules.fingerprint;
  if (rules.joining_servers > 0 && rules.joining_servers >= servers)
    throw std::invalid_argument("host_registration: " + std::to_string(rules.joining_servers) +
                                " of " + count_text(servers, "server") + " joining later leaves none to start with");
  joining_servers_ = rules.joining_servers;
  const std::uint32_t nodes = 1 + servers + workers;
  // The joining servers register only once the job runs (take_back): not waited for here.
  const std::uint32_t expected = servers - rules.joining_servers + workers;
  const NodeId first_joiner = 1 + servers - rules.joining_servers;
  std::vector<std::string> book(nodes);
  std::vector<std::string> identity_of(nodes);
  std::vector<bool> registered(nodes, false), ready(nodes, false);
  registered[kScheduler] = ready[kScheduler] = true;
  for (NodeId id = first_joiner; id <= servers; ++id) registered[id] = ready[id] = true;
  book[kScheduler] = endpoint_;
  std::uint32_t registrations = 0, readies = 0;
  using clock = std::chrono::steady_clock;
  auto deadline = clock::now() + std::chrono::microseconds(static_cast<long>(rules.connect_timeout_s * 1e6));
  bool prepared = false;
  // Everyone registered is told why the job does not start, then the scheduler fails with it.
  // When bad data ends the rendezvous early, nodes may still be starting: those that register
  // within a second (a quarter of the connect timeout at most: a launcher gives the scheduler
  // no longer once a node failed) are told too, rather than waiting out their connect timeout.
  auto tell_everyone = [&](const std::string& why, bool early) {
    for (NodeId id = 1; id < nodes; ++id)
      if (!identity_of[id].empty()) refuse_registration(identity_of[id], why);
    if (early) refuse_latecomers(why, std::min(1.0, rules.connect_timeout_s / 4));
  };
  auto give_up = [&](const std::string& why) {
    tell_everyone("the job did not start: " + why, false);
    throw std::runtime_error(why);
  };
  while (registrations < expected || readies < expected || !prepared) {
    if (registrations == expected && !prepared) {
      // Every node is reading its data now; the scheduler reads its own meanwhile.
      try {
        if (rules.prepare) model_shape_ = rules.prepare();
      } catch (const std::exception& e) {
        // Bad data stays what it is (DataError, ScenarioError) for the caller; the nodes hear why.
        tell_everyone(std::string("the job did not start: the scheduler could not prepare it: ") + e.what(), true);
        throw;
      }
      prepared = true;
      deadline = clock::now() + std::chrono::microseconds(static_cast<long>(rules.ready_timeout_s * 1e6));
      continue;
    }
    const double left = std::chrono::duration<double>(deadline - clock::now()).count();
    std::optional<ReceivedParts> raw;
    try {
      if (left > 0) raw = receive_raw(left);
    } catch (const JobStopped& e) {
      // Stopped (Ctrl-C): the nodes that registered hear it rather than waiting for a start.
      tell_everyone(std::string("the job did not start: the scheduler was ") + e.what(), false);
      throw;
    }
    if (!raw) {
      if (registrations < expected) {
        std::uint32_t servers_in = 0;
        for (NodeId id = 1; id < first_joiner; ++id) servers_in += registered[id] ? 1 : 0;
        give_up("only " + std::to_string(servers_in) + " of " + count_text(first_joiner - 1, "server") +
                " and " + std::to_string(registrations - servers_in) + " of " +
                count_text(workers, "worker") + " registered within " +
                format_seconds(rules.connect_timeout_s) +
                " of the latest registration (or of the start); missing: " +
                missing_nodes(registered, servers) +
                ". Nodes register as they start, before reading data: are they running, with this "
                "scheduler's address? Slow starts need a longer --connect-timeout");
      }
      give_up("registered nodes did not finish reading their data within " +
              format_seconds(rules.ready_timeout_s) + ": " + missing_nodes(ready, servers) +
              " (a slow or overloaded machine needs a longer --stall-timeout)");
    }
    const std::string& who = raw->identity;
    Message m;
    try {
      decode_parts(*raw, m, options_.max_message_bytes, std::numeric_limits<std::uint64_t>::max(),
                   FrameChecksum::kVerify);
    } catch (const ProtocolError& e) {
      reject(printable(who), e.what());
      continue;
    }
    if (m.header.type != MsgType::kRegister || who.empty() || who[0] != 'r') {
      reject(printable(who), "expected a registration, got " + std::string(msg_type_name(m.header.type)));
      continue;
    }
    nlohmann::json j;
    std::string role, address;
    std::int64_t index = -1;
    try {
      j = wire_json::parse_object(m.data, "registration");
      if (j.contains("ready")) {
        NodeId id = 0;
        for (NodeId n = 1; n < nodes && id == 0; ++n)
          if (identity_of[n] == who) id = n;
        if (id == 0) {
          reject(printable(who), "kRegister: ready before registering");
          continue;
        }
        if (!j["ready"].is_boolean()) throw ProtocolError("registration: \"ready\" must be true or false");
        if (!j["ready"].get<bool>()) {  // it could not read its data: the job cannot start
          const std::string why = slot_name(id, servers) + " could not read its data: " +
                                  (j.contains("error") ? wire_json::string_member(j, "error", "registration")
                                                       : "(no reason given)");
          tell_everyone("the job did not start: " + why, true);
          throw NodeDataRefused(why);
        }
        if (!ready[id]) ++readies;
        ready[id] = true;
        continue;
      }
      read_registration(j, role, address, index);
    } catch (const ProtocolError& e) {
      reject(printable(who), e.what());
      continue;
    }
    const std::string node = role + (index >= 0 ? ":" + std::to_string(index) : "");
    if (!admits(who, node + " at " + address, j)) continue;
    // A launcher that knows which process is which (to inject failures into them) asks for the
    // index; others take the next free one.
    const NodeId first = role == "server" ? 1 : 1 + servers;
    const std::uint32_t count = role == "server" ? servers - rules.joining_servers : workers;
    if (role == "server" && index >= static_cast<std::int64_t>(count) && index < servers) {
      const std::string why = "registration refused: server:" + std::to_string(index) +
                              " joins the running job (the scenario's /failures); start it once the job runs";
      reject(printable(who), why);
      refuse_registration(who, why);
      continue;
    }
    NodeId id = 0;
    if ((role == "server" || role == "worker") && index >= 0 && static_cast<std::uint32_t>(index) < count &&
        identity_of[first + index].empty())
      id = first + static_cast<NodeId>(index);
    else if ((role == "server" || role == "worker") && index < 0)
      for (NodeId n = first; n < first + count && id == 0; ++n)
        if (identity_of[n].empty()) id = n;
    if (id == 0) {
      const std::string why = role == "server" || role == "worker"
                                  ? (index >= 0 ? role + " index " + std::to_string(index) +
                                                      " is taken or does not exist"
                                                : "the job already has all its " + role + "s")
                                  : "unknown role '" + role + "'";
      reject(printable(who), "registration refused: " + why);
      refuse_registration(who, "registration refused: " + why);
      continue;
    }
    ++registrations;
    registered[id] = true;
    book[id] = address;
    identity_of[id] = who;
    answer_accepted(who);
    if (!prepared)  // the connect timeout counts from the latest node to start
      deadline = clock::now() + std::chrono::microseconds(static_cast<long>(rules.connect_timeout_s * 1e6));
  }
  became(0, book, servers, endpoint_);
  // Time 0 of the job is the end of the rendezvous, so start-up and data loading are not counted.
  // Every address book carries the job's clock, and each node sets its own from it (see now()).
  start_ = std::chrono::steady_clock::now();
  for (NodeId id = 1; id < nodes; ++id)
    if (!identity_of[id].empty()) answer_registration(identity_of[id], id);
}

bool ZmqEnv::admits(const std::string& identity, const std::string& node,
                    const nlohmann::json& registration) {
  if (fingerprint_.is_null()) return true;
  std::string mismatch;
  try {
    if (!registration.contains("fingerprint"))
      throw ProtocolError("kRegister: no fingerprint (a pstwin older than this scheduler?)");
    mismatch = fingerprint_mismatch(fingerprint_, registration["fingerprint"]);
  } catch (const ProtocolError& e) {
    reject(printable(identity), e.what());
    refuse_registration(identity, e.what());
    return false;
  }
  if (mismatch.empty()) return true;
  // Logged and refused; the slot stays free for a node started with the right scenario.
  std::cerr << "pstwin[node 0]: refused " << node << ": " << mismatch << "\n";
  refuse_registration(identity, "it does not run this job: " + mismatch);
  return false;
}

void ZmqEnv::answer_accepted(const std::string& identity) {
  // An address book that carries only the acceptance: the node may read its data now.
  Message reply;
  reply.header.type = MsgType::kAddressBook;
  reply.data = nlohmann::json{{"accepted", true}}.dump();
  send_to_registrant(identity, reply);
}

void ZmqEnv::send_to_registrant(const std::string& identity, const Message& reply) {
  const auto bytes = encode(reply);
  router_.send(zmq::buffer(identity), zmq::send_flags::sndmore);
  router_.send(zmq::buffer(bytes), zmq::send_flags::none);
}

void ZmqEnv::answer_registration(const std::string& identity, NodeId id) {
  Message reply;
  reply.header.type = MsgType::kAddressBook;
  reply.header.receiver = id;
  reply.data =
      nlohmann::json{{"id", id}, {"nodes", book_}, {"servers", layout_.servers}, {"time_s", now()},
                     {"model", model_shape_}}
          .dump();
  send_to_registrant(identity, reply);
}

void ZmqEnv::take_back(const std::string& identity, const Message& registration) {
  std::string role, address;
  std::int64_t index = -1;
  bool join = false;
  try {
    const auto j = wire_json::parse_object(registration.data, "registration");
    const bool rejoin = read_registration(j, role, address, index);
    join = asks_to_join(j);
    if (!rejoin && !join) {
      refuse_registration(identity, "the job has already started with all its nodes");
      reject(printable(identity), "registration after the job started");
      return;
    }
    if (!admits(identity, role + ":" + std::to_string(index) + (join ? " (joining)" : " (restarted)") + " at " + address, j))
      return;
  } catch (const ProtocolError& e) {
    reject(printable(identity), e.what());
    return;
  }
  const std::uint32_t count = role == "server" ? layout_.servers : role == "worker" ? layout_.workers : 0;
  if (index < 0 || static_cast<std::uint32_t>(index) >= count) {
    refuse_registration(identity, "a restarted node must name its role and an index of this job");
    reject(printable(identity), "rejoin without a valid role and index");
    return;
  }
  const NodeId id = role == "server" ? layout_.server(static_cast<std::uint32_t>(index))
                                     : layout_.worker(static_cast<std::uint32_t>(index));
  const std::uint32_t first_joiner = layout_.servers - joining_servers_;
  const bool declared = role == "server" && static_cast<std::uint32_t>(index) >= first_joiner;
  if (join && !declared) {
    // Only a server the scenario declares joining may come in late: any other is a restart.
    const std::string why =
        role + ":" + std::to_string(index) + " cannot join: it is not a joining server of this job (" +
        (joining_servers_ == 0 ? std::string("the scenario declares none")
                               : "the scenario's joining servers are server:" + std::to_string(first_joiner) +
                                     (joining_servers_ > 1 ? " to server:" + std::to_string(layout_.servers - 1) : "")) +
        ")";
    refuse_registration(identity, "registration refused: " + why);
    reject(printable(identity), why);
    return;
  }
  book_[id] = address;
  judge_checksums();  // it may have come back on another machine
  peers_.erase(id);  // the old connection leads to the dead process
  // Everyone else dials the new process from now on; told before the process hears back, so the
  // updates are on their way before it can send anything.
  Message update;
  update.header.type = MsgType::kAddressBook;
  update.data = nlohmann::json{{"update", {{"id", id}, {"address", address}}}}.dump();
  for (NodeId n = 1; n < book_.size(); ++n)
    if (n != id && !book_[n].empty()) send(n, update);  // not the servers yet to join
  answer_registration(identity, id);
}

void ZmqEnv::refuse_latecomers(const std::string& why, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::microseconds(static_cast<long>(seconds * 1e6));
  for (;;) {
    const double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return;
    auto raw = receive_raw(left);
    if (!raw) return;
    if (raw->identity.empty() || raw->identity[0] != 'r') continue;  // not a registration socket ('r...')
    try {
      Message m;
      decode_parts(*raw, m, options_.max_message_bytes, std::numeric_limits<std::uint64_t>::max(),
                   FrameChecksum::kVerify);
      // A registration, not a registered node's data report: that node was told already.
      if (m.header.type == MsgType::kRegister &&
          !wire_json::parse_object(m.data, "registration").contains("ready"))
        refuse_registration(raw->identity, why);
    } catch (const ProtocolError&) {
      // Nothing to answer: the job is not starting anyway.
    }
  }
}

void ZmqEnv::refuse_registration(const std::string& identity, const std::string& why) {
  // An address book that carries only an error: the node exits saying why, not timing out.
  Message reply;
  reply.header.type = MsgType::kAddressBook;
  reply.data = nlohmann::json{{"error", why}}.dump();
  send_to_registrant(identity, reply);
}

}  // namespace pstwin::net
