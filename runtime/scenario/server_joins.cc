#include "runtime/scenario/server_joins.h"

#include <algorithm>
#include <numeric>

#include "runtime/errors.h"

namespace pstwin::scenario_sections {

using namespace scenario_json;

FailureSpec parse_join(const Object& o, double at_s) {
  for (const char* k : {"recover_at", "mtbf", "repair", "nodes"})
    o.forbid(k, "not allowed with \"join\": a joining server stays until the job ends");
  // "worker" is explained, but not offered: only "server" is allowed.
  if (o.at("join").is_string() && o.at("join").get<std::string>() == "worker")
    throw ScenarioError(o.ptr("join"), "only a server can join a running job; a worker's rows are "
                                       "dealt out at the start (give the cluster the workers instead)");
  (void)read_choice(o.at("join"), o.ptr("join"), {"server"});
  FailureSpec f;
  f.kind = FailureSpec::Kind::kJoin;
  f.target.role = NodeRef::Role::kServer;
  f.at_s = at_s;
  return f;
}

void assign_joining_servers(std::vector<FailureSpec>& failures, const std::string& ptr,
                            const ClusterSection& cluster) {
  std::vector<std::size_t> joins;
  for (std::size_t i = 0; i < failures.size(); ++i)
    if (failures[i].kind == FailureSpec::Kind::kJoin) joins.push_back(i);
  if (joins.empty()) return;
  if (joins.size() >= cluster.servers)
    throw ScenarioError(ptr + "/" + std::to_string(joins.back()),
                        std::to_string(joins.size()) + (joins.size() == 1 ? " server joins" : " servers join") +
                            " a cluster of " +
                            std::to_string(cluster.servers) + ": at least one must be there from the start "
                            "(cluster.servers counts the joining ones)");
  std::stable_sort(joins.begin(), joins.end(),
                   [&](std::size_t a, std::size_t b) { return failures[a].at_s < failures[b].at_s; });
  const std::uint32_t first = cluster.servers - static_cast<std::uint32_t>(joins.size());
  for (std::size_t k = 0; k < joins.size(); ++k) failures[joins[k]].target.index = first + static_cast<std::uint32_t>(k);
  for (std::size_t i = 0; i < failures.size(); ++i) {
    const FailureSpec& f = failures[i];
    const std::string at = ptr + "/" + std::to_string(i);
    if (f.kind == FailureSpec::Kind::kRandom && f.group == NodeRef::Role::kServer)
      throw ScenarioError(at, "random server failures cannot be combined with servers joining (servers " +
                                  std::to_string(first) + " and up join during the run)");
    if ((f.kind == FailureSpec::Kind::kNode || f.kind == FailureSpec::Kind::kLink) &&
        f.target.role == NodeRef::Role::kServer && f.target.index >= first)
      throw ScenarioError(at, f.target.text() + " joins during the run (servers " + std::to_string(first) +
                                  " and up do): it cannot also fail");
  }
}

void check_joins_need_hash(const Scenario& s) {
  const std::uint32_t joins = joining_servers(s.failures);
  if (joins > 0 && s.fault_tolerance.replication > s.cluster.servers - joins)
    throw ScenarioError("/fault_tolerance/replication",
                        "replication " + std::to_string(s.fault_tolerance.replication) + " needs that many servers at the "
                        "start; " + std::to_string(s.cluster.servers - joins) + " are there before the " +
                            std::to_string(joins) + " joining ones");
  for (std::size_t i = 0; i < s.failures.size(); ++i)
    if (s.failures[i].kind == FailureSpec::Kind::kJoin && s.partition.scheme != PartitionScheme::kConsistentHash)
      throw ScenarioError("/failures/" + std::to_string(i) + "/join",
                          std::string("a server joining needs partition \"consistent_hash\" (the ring moves to it only "
                                      "the keys it now owns), got \"") +
                              partition_scheme_name(s.partition.scheme) + "\"");
}

std::uint32_t joining_servers(const std::vector<FailureSpec>& failures) {
  return static_cast<std::uint32_t>(std::count_if(failures.begin(), failures.end(), [](const FailureSpec& f) {
    return f.kind == FailureSpec::Kind::kJoin;
  }));
}

}  // namespace pstwin::scenario_sections
