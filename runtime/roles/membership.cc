#include "runtime/roles/membership.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/errors.h"
#include "runtime/wire_json.h"

namespace pstwin {

bool Membership::holds(NodeId node, std::uint32_t range) const {
  const auto& r = replicas.at(range);
  return std::find(r.begin(), r.end(), node) != r.end();
}

Message Membership::to_message() const {
  Message m;
  m.header.type = MsgType::kMembership;
  m.header.epoch = epoch;
  std::vector<std::uint32_t> dead;
  for (std::uint32_t w = 0; w < dead_workers.size(); ++w)
    if (dead_workers[w]) dead.push_back(w);
  m.data = nlohmann::json{{"epoch", epoch}, {"replicas", replicas}, {"dead_workers", dead}}.dump();
  return m;
}

Membership Membership::from_message(const Message& m, std::uint32_t ranges, std::uint32_t workers,
                                    NodeId first_server, std::uint32_t servers) {
  Membership out;
  const std::string what = "membership from node " + std::to_string(m.header.sender);
  const auto j = wire_json::parse_object(m.data, what);
  out.epoch = wire_json::integer_member<std::uint32_t>(j, "epoch", what);
  const auto& sets = wire_json::member(j, "replicas", what);
  if (!sets.is_array()) throw ProtocolError(what + ": \"replicas\" must be an array of arrays");
  for (std::size_t r = 0; r < sets.size(); ++r) {
    if (!sets[r].is_array()) throw ProtocolError(what + ": \"replicas/" + std::to_string(r) + "\" must be an array");
    std::vector<NodeId> set;
    for (std::size_t i = 0; i < sets[r].size(); ++i)
      set.push_back(wire_json::integer<NodeId>(
          sets[r][i], "replicas/" + std::to_string(r) + "/" + std::to_string(i), what));
    out.replicas.push_back(std::move(set));
  }
  const auto dead = wire_json::integer_list<std::uint32_t>(j, "dead_workers", what);
  if (out.epoch != m.header.epoch)
    throw ProtocolError("membership: header epoch " + std::to_string(m.header.epoch) +
                        " differs from its body's " + std::to_string(out.epoch));
  if (out.replicas.size() != ranges)
    throw ProtocolError("membership lists " + std::to_string(out.replicas.size()) +
                        " key ranges; the job has " + std::to_string(ranges));
  for (std::uint32_t r = 0; r < ranges; ++r) {
    const auto& set = out.replicas[r];
    if (set.empty()) throw ProtocolError("membership: key range " + std::to_string(r) + " has no replica");
    for (std::size_t i = 0; i < set.size(); ++i) {
      if (set[i] < first_server || set[i] >= first_server + servers)
        throw ProtocolError("membership: key range " + std::to_string(r) + " names node " +
                            std::to_string(set[i]) + ", which is not a server");
      if (std::find(set.begin(), set.begin() + static_cast<long>(i), set[i]) != set.begin() + static_cast<long>(i))
        throw ProtocolError("membership: key range " + std::to_string(r) + " names server node " +
                            std::to_string(set[i]) + " twice");
    }
  }
  out.dead_workers.assign(workers, false);
  for (auto w : dead) {
    if (w >= workers)
      throw ProtocolError("membership: dead worker " + std::to_string(w) + " of " + std::to_string(workers));
    out.dead_workers[w] = true;
  }
  return out;
}

Membership initial_membership(std::uint32_t ranges, std::uint32_t servers, std::uint32_t workers,
                              std::uint32_t replication, NodeId first_server) {
  if (replication == 0 || replication > servers)
    throw std::invalid_argument("replication must be in [1, " + std::to_string(servers) + "], got " +
                                std::to_string(replication));
  Membership m;
  m.replicas.resize(ranges);
  for (std::uint32_t r = 0; r < ranges; ++r)
    for (std::uint32_t k = 0; k < replication; ++k)
      m.replicas[r].push_back(first_server + (r + k) % servers);
  m.dead_workers.assign(workers, false);
  return m;
}

Membership Membership::from_message(const Message& m, const JobSpec& spec) {
  return from_message(m, static_cast<std::uint32_t>(spec.key_ranges().size()), spec.layout.workers,
                      spec.layout.server(0), spec.layout.servers);
}

Membership initial_membership(const JobSpec& spec) {
  Membership m;
  for (const auto& holders : range_holders(spec.num_keys(), spec.layout.servers,
                                           spec.fault.replication, spec.partition)) {
    auto& set = m.replicas.emplace_back();
    for (std::uint32_t s : holders) set.push_back(spec.layout.server(s));
  }
  m.dead_workers.assign(spec.layout.workers, false);
  return m;
}

}  // namespace pstwin
