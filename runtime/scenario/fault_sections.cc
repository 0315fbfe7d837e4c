// "fault_tolerance" and "failures": how the job survives failures, and which ones to inject.
#include "runtime/scenario/fault_sections.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

#include "runtime/errors.h"
#include "runtime/scenario/cluster_parsing.h"
#include "runtime/scenario/json_fields.h"
#include "runtime/scenario/server_joins.h"
#include "runtime/scenario/units.h"
#include "runtime/count_text.h"

namespace pstwin {

std::string NodeRef::text() const {
  switch (role) {
    case Role::kScheduler: return "scheduler";
    case Role::kServer: return "server:" + std::to_string(index);
    case Role::kWorker: return "worker:" + std::to_string(index);
  }
  return "?";
}

}  // namespace pstwin

namespace pstwin::scenario_sections {

using namespace scenario_json;

namespace {

/// Seconds for messages: "2s", "0.25s".
std::string seconds(double s) { return format_number(s) + "s"; }

/// A duration to four significant digits, in ms below a second: "300ms", "401.3ms", "1.5s".
std::string short_duration(double s) {
  char buf[32];
  if (s < 1.0) std::snprintf(buf, sizeof buf, "%.4gms", s * 1e3);
  else std::snprintf(buf, sizeof buf, "%.4gs", s);
  return buf;
}

/// "4 workers", "1 server".
std::string count_of(std::uint32_t n, NodeRef::Role role) {
  return count_text(n, role == NodeRef::Role::kServer ? "server" : "worker");
}

/// How many nodes `cluster` has in `role` (the scheduler is one).
std::uint32_t group_size(const ClusterSection& cluster, NodeRef::Role role) {
  switch (role) {
    case NodeRef::Role::kScheduler: return 1;
    case NodeRef::Role::kServer: return cluster.servers;
    case NodeRef::Role::kWorker: return cluster.workers;
  }
  return 0;
}

constexpr const char* kNodeRefExpected = "expected \"scheduler\", \"server:<i>\" or \"worker:<i>\", got ";

/// Throws at `ptr` unless `ref` is a node of `cluster`.
void check_exists(const NodeRef& ref, const std::string& ptr, const ClusterSection& cluster) {
  const std::uint32_t n = group_size(cluster, ref.role);
  if (ref.index >= n)
    throw ScenarioError(ptr, ref.text() + " does not exist: the cluster has " + count_of(n, ref.role));
}

/// A time of a failure entry ("2s"), >= 0.
double read_time(const Object& o, std::string_view key) {
  return read_unit(o.at(key), o.ptr(key), parse_duration_s, "2s", false);
}

/// "node" or "link": one node, at a given time, optionally back later.
FailureSpec parse_targeted(const Object& o, FailureSpec::Kind kind, const ClusterSection& cluster) {
  const char* key = kind == FailureSpec::Kind::kNode ? "node" : "link";
  for (const char* k : {"mtbf", "repair", "nodes"})
    o.forbid(k, std::string("only allowed in a \"random\" failure, not with \"") + key + "\"");
  FailureSpec f;
  f.kind = kind;
  if (!o.at(key).is_string()) throw ScenarioError(o.ptr(key), kNodeRefExpected + describe(o.at(key)));
  f.target = parse_node_ref(o.at(key).get<std::string>(), o.ptr(key), cluster);
  f.at_s = read_time(o, "at");
  if (o.has("recover_at")) {
    if (kind == FailureSpec::Kind::kNode && f.target.role == NodeRef::Role::kScheduler)
      throw ScenarioError(o.ptr("recover_at"),
                          "the scheduler cannot recover: it is not replicated, and a failed scheduler ends the job");
    const double r = read_time(o, "recover_at");
    if (!(r > f.at_s))
      throw ScenarioError(o.ptr("recover_at"), "expected a time after \"at\" (" + seconds(f.at_s) + "), got " +
                                                   describe(o.at("recover_at")));
    f.recover_at_s = r;
  }
  return f;
}

/// "random": renewal failures of some workers or servers.
FailureSpec parse_random(const Object& o, const ClusterSection& cluster) {
  for (const char* k : {"at", "recover_at"})
    o.forbid(k, "not allowed in a \"random\" failure: its times are drawn from \"mtbf\" and \"repair\"");
  FailureSpec f;
  f.kind = FailureSpec::Kind::kRandom;
  f.group = read_choice(o.at("random"), o.ptr("random"), {"workers", "servers"}) == "servers" ? NodeRef::Role::kServer
                                                                                              : NodeRef::Role::kWorker;
  f.mtbf_s = read_unit(o.at("mtbf"), o.ptr("mtbf"), parse_duration_s, "60s", true);
  if (o.has("repair")) f.repair_s = read_unit(o.at("repair"), o.ptr("repair"), parse_duration_s, "5s", true);
  if (o.has("nodes")) {
    const json& nodes = read_array(o.at("nodes"), o.ptr("nodes"), false);
    std::set<std::uint64_t> seen;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const std::string p = o.ptr("nodes") + "/" + std::to_string(i);
      const std::uint64_t index = read_uint(nodes[i], p);
      const NodeRef ref{f.group, static_cast<std::uint32_t>(std::min<std::uint64_t>(index, UINT32_MAX))};
      check_exists(ref, p, cluster);
      if (!seen.insert(index).second) throw ScenarioError(p, ref.text() + " is listed twice");
      f.nodes.push_back(ref.index);
    }
  }
  return f;
}

FailureSpec parse_failure(const json& v, const std::string& ptr, const ClusterSection& cluster) {
  const Object o(v, ptr, {"node", "link", "random", "join", "at", "recover_at", "mtbf", "repair", "nodes"});
  std::string kinds;
  int count = 0;
  for (const char* k : {"node", "link", "random", "join"}) {
    if (!o.has(k)) continue;
    kinds += std::string(count++ ? " and " : "") + "\"" + k + "\"";
  }
  if (count != 1)
    throw ScenarioError(ptr, "expected exactly one of the keys \"node\", \"link\", \"random\" or \"join\", got " +
                                 (count == 0 ? std::string("none") : kinds));
  if (o.has("random")) return parse_random(o, cluster);
  if (o.has("join")) return parse_join(o, read_time(o, "at"));
  return parse_targeted(o, o.has("node") ? FailureSpec::Kind::kNode : FailureSpec::Kind::kLink, cluster);
}

}  // namespace

NodeRef parse_node_ref(const std::string& text, const std::string& ptr, const ClusterSection& cluster) {
  const auto malformed = [&] { throw ScenarioError(ptr, kNodeRefExpected + describe(json(text))); };
  if (text == "scheduler") return NodeRef{};
  NodeRef ref;
  std::string digits;
  if (text.rfind("server:", 0) == 0) {
    ref.role = NodeRef::Role::kServer;
    digits = text.substr(7);
  } else if (text.rfind("worker:", 0) == 0) {
    ref.role = NodeRef::Role::kWorker;
    digits = text.substr(7);
  } else {
    malformed();
  }
  // Nine digits at most, so the index fits; no cluster is that large anyway.
  if (digits.empty() || digits.size() > 9) malformed();
  for (char c : digits)
    if (c < '0' || c > '9') malformed();
  // One spelling per node, so that two keys of one object cannot name the same node.
  if (digits.size() > 1 && digits[0] == '0')
    throw ScenarioError(ptr, "write node indices without leading zeros (\"" + text.substr(0, 7) +
                                 std::to_string(std::stoul(digits)) + "\"), got " + describe(json(text)));
  ref.index = static_cast<std::uint32_t>(std::stoul(digits));
  check_exists(ref, ptr, cluster);
  return ref;
}

double heartbeat_delivery_s(const ClusterSection& cluster) {
  // SimGrid's LV08 network model (README, "What the simulation models").
  constexpr double kLatencyFactor = 13.01, kBandwidthFactor = 0.97;
  const LinkSpec& scheduler = cluster.server.link;  // the scheduler is equipped like a server
  // Between two machines the fabric adds its links (racks' uplinks, a fat tree's levels); a
  // worker sharing its machine reaches the NIC over the intra-host link first.
  const LinkSpec fabric = fabric_worst_path(cluster);
  const LinkSpec inside = cluster.intra_host.value_or(LinkSpec{std::numeric_limits<double>::infinity(), 0.0});
  double worst = 0.0;
  auto consider = [&](const LinkSpec& node, const LinkSpec& on_machine) {
    const double bandwidth_Bps = kBandwidthFactor * std::min({node.bandwidth_Bps, scheduler.bandwidth_Bps,
                                                              fabric.bandwidth_Bps, on_machine.bandwidth_Bps});
    const double latency_s = node.latency_s + scheduler.latency_s + fabric.latency_s + on_machine.latency_s;
    worst = std::max(worst, kLatencyFactor * latency_s + kHeartbeatBytes / bandwidth_Bps);
  };
  const LinkSpec none{std::numeric_limits<double>::infinity(), 0.0};
  consider(cluster.worker.link, cluster.workers_per_host > 1 ? inside : none);
  consider(cluster.server.link, none);
  for (std::uint32_t w = 0; w < cluster.worker_nodes.size(); w += cluster.workers_per_host)
    consider(cluster.worker_nodes[w].link, cluster.workers_per_host > 1 ? inside : none);
  for (const HostGroupSpec& s : cluster.server_nodes) consider(s.link, none);
  return worst;
}

double min_heartbeat_timeout_s(double interval_s, const ClusterSection& cluster) {
  return 2.0 * interval_s + heartbeat_delivery_s(cluster);
}

void check_heartbeat_margin(const FaultToleranceSection& ft, const ClusterSection& cluster, const std::string& ptr) {
  const double delivery_s = heartbeat_delivery_s(cluster);
  const double least_s = min_heartbeat_timeout_s(ft.heartbeat_interval_s, cluster);
  if (ft.heartbeat_timeout_s > least_s) return;
  throw ScenarioError(
      ptr, "heartbeat_timeout (" + short_duration(ft.heartbeat_timeout_s) + ") must be more than 2 x heartbeat_interval (" +
               short_duration(ft.heartbeat_interval_s) + ") + " + short_duration(delivery_s) +
               " for a heartbeat to reach the scheduler over the cluster's links = " + short_duration(least_s) +
               ", or healthy nodes are declared dead: a live node's heartbeats reach the scheduler up to an interval "
               "apart (the first one an interval plus its network time after the start), and one beat may be late "
               "or missed without the node being dead");
}

FaultToleranceSection parse_fault_tolerance(const json& v, const std::string& ptr, const ClusterSection& cluster) {
  const Object o(v, ptr,
                 {"replication", "heartbeat_interval", "heartbeat_timeout", "checkpoint_every_clocks",
                  "checkpoint_every", "checkpoint_bandwidth"});
  FaultToleranceSection ft;
  ft.enabled = true;
  if (o.has("replication")) {
    const std::uint64_t r = read_uint(o.at("replication"), o.ptr("replication"), 1);
    if (r > cluster.servers)
      throw ScenarioError(o.ptr("replication"), "expected at most " + std::to_string(cluster.servers) +
                                                    " (the cluster has " +
                                                    count_of(cluster.servers, NodeRef::Role::kServer) + "), got " +
                                                    std::to_string(r));
    ft.replication = static_cast<std::uint32_t>(r);
  }
  if (o.has("heartbeat_interval"))
    ft.heartbeat_interval_s =
        read_unit(o.at("heartbeat_interval"), o.ptr("heartbeat_interval"), parse_duration_s, "200ms", true);
  // Every node sends one heartbeat per interval: below a millisecond they flood the scheduler (and
  // crawl a simulation) without detecting a failure any sooner than the timeout allows.
  if (ft.heartbeat_interval_s < 1e-3)
    throw ScenarioError(o.ptr("heartbeat_interval"),
                        "expected at least 1ms, got " + short_duration(ft.heartbeat_interval_s) +
                            ": every node sends one heartbeat per interval");
  if (o.has("heartbeat_timeout"))
    ft.heartbeat_timeout_s =
        read_unit(o.at("heartbeat_timeout"), o.ptr("heartbeat_timeout"), parse_duration_s, "1s", true);
  // Blame the key the user wrote: the timeout when given, else the interval against the default.
  check_heartbeat_margin(ft, cluster, o.ptr(o.has("heartbeat_timeout") ? "heartbeat_timeout" : "heartbeat_interval"));
  if (o.has("checkpoint_every_clocks"))
    ft.checkpoint_every_clocks =
        read_uint(o.at("checkpoint_every_clocks"), o.ptr("checkpoint_every_clocks"), 0,
                  static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));  // clocks are int64
  if (o.has("checkpoint_every"))
    ft.checkpoint_every_s = read_unit(o.at("checkpoint_every"), o.ptr("checkpoint_every"), parse_duration_s, "30s",
                                      false);
  if (o.has("checkpoint_bandwidth"))
    ft.checkpoint_bandwidth_Bps = read_unit(o.at("checkpoint_bandwidth"), o.ptr("checkpoint_bandwidth"),
                                            parse_bandwidth_Bps, "2GBps", true);
  return ft;
}

std::vector<FailureSpec> parse_failures(const json& v, const std::string& ptr, const ClusterSection& cluster) {
  read_array(v, ptr, true);
  std::vector<FailureSpec> out;
  for (std::size_t i = 0; i < v.size(); ++i) out.push_back(parse_failure(v[i], ptr + "/" + std::to_string(i), cluster));
  assign_joining_servers(out, ptr, cluster);
  // One node (or link) cannot fail again while it is still down: which recovery would count?
  for (std::size_t i = 0; i < out.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) {
      const FailureSpec& a = out[j];
      const FailureSpec& b = out[i];
      if (a.kind == FailureSpec::Kind::kRandom || a.kind != b.kind || !(a.target == b.target)) continue;
      const double a_end = a.recover_at_s.value_or(std::numeric_limits<double>::infinity());
      const double b_end = b.recover_at_s.value_or(std::numeric_limits<double>::infinity());
      if (a.at_s < b_end && b.at_s < a_end)
        throw ScenarioError(ptr + "/" + std::to_string(i),
                            b.target.text() + " is already down then (entry " + std::to_string(j) +
                                "): the failures of one node must not overlap");
    }
  return out;
}

}  // namespace pstwin::scenario_sections
