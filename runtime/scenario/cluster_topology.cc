// "cluster.topology" and "cluster.server_placement": how machines are wired, and where servers sit.
#include <limits>
#include <string>
#include <vector>

#include "runtime/errors.h"
#include "runtime/scenario/cluster_parsing.h"
#include "runtime/scenario/json_fields.h"
#include "runtime/count_text.h"

namespace pstwin {

std::uint64_t TopologySpec::leaves() const {
  std::uint64_t n = 1;
  switch (kind) {
    case Kind::kStar:
    case Kind::kRacks:
      return 0;
    case Kind::kFatTree:
      for (auto d : down) n *= d;
      return n;
    case Kind::kDragonfly:
      return std::uint64_t{groups} * chassis * routers * nodes_per_router;
    case Kind::kTorus:
      for (auto d : dimensions) n *= d;
      return n;
  }
  return 0;
}

const char* TopologySpec::name() const {
  switch (kind) {
    case Kind::kStar:
      return "star";
    case Kind::kRacks:
      return "racks";
    case Kind::kFatTree:
      return "fat_tree";
    case Kind::kDragonfly:
      return "dragonfly";
    case Kind::kTorus:
      return "torus";
  }
  return "?";
}

namespace scenario_sections {

using namespace scenario_json;

namespace {

// SimGrid builds every switch and link of the fabric up front; a million leaves is far past
// what a simulation of this size can run anyway.
constexpr std::uint64_t kMaxLeaves = 1'000'000;
constexpr std::uint64_t kMaxLevels = 8;

/// A list of 1..max_size integers in [1, kMaxLeaves], e.g. fat_tree "down": [4, 4].
std::vector<std::uint32_t> read_sizes(const json& v, const std::string& ptr, std::size_t max_size) {
  const json& a = read_array(v, ptr, false);
  if (a.size() > max_size)
    throw ScenarioError(ptr,
                        "expected at most " + count_text(max_size, "entry", "entries") + ", got " + std::to_string(a.size()));
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < a.size(); ++i)
    out.push_back(static_cast<std::uint32_t>(read_uint(a[i], child_pointer(ptr, std::to_string(i)), 1, kMaxLeaves)));
  return out;
}

/// SimGrid's dragonfly pair [count, links], e.g. "groups": [2, 1].
void read_pair(const Object& o, const char* key, std::uint32_t& count, std::uint32_t& links) {
  const auto pair = read_sizes(o.at(key), o.ptr(key), 2);
  if (pair.size() != 2)
    throw ScenarioError(o.ptr(key), "expected [count, links], e.g. [2, 1], got " + describe(o.at(key)));
  count = pair[0];
  links = pair[1];
}

std::string machines_phrase(const ClusterSection& c) {
  std::string s = count_text(machine_count(c), "machine") + " (" + std::to_string(c.worker_hosts()) + " for workers";
  if (c.server_placement != ServerPlacement::kColocated) s += ", " + std::to_string(c.servers) + " for servers";
  return s + ", 1 for the scheduler)";
}

}  // namespace

std::uint64_t machine_count(const ClusterSection& c) {
  return std::uint64_t{c.worker_hosts()} + (c.server_placement == ServerPlacement::kColocated ? 0 : c.servers) + 1;
}

LinkSpec fabric_worst_path(const ClusterSection& c) {
  const TopologySpec& t = c.topology;
  double hops = 0;
  switch (t.kind) {
    case TopologySpec::Kind::kStar:
      return {std::numeric_limits<double>::infinity(), 0.0};
    case TopologySpec::Kind::kRacks:
      return {t.uplink.bandwidth_Bps, 2 * t.uplink.latency_s};
    case TopologySpec::Kind::kFatTree:
      hops = 2.0 * static_cast<double>(t.down.size());
      break;
    case TopologySpec::Kind::kDragonfly:
      hops = 7;
      break;
    case TopologySpec::Kind::kTorus:
      for (auto d : t.dimensions) hops += d / 2;
      break;
  }
  return {t.fabric.bandwidth_Bps, hops * t.fabric.latency_s};
}

ServerPlacement parse_server_placement(const json& v, const std::string& ptr, const ClusterSection& c) {
  const std::string p = read_choice(v, ptr, {"separate", "spread", "colocated"});
  if (p == "separate") return ServerPlacement::kSeparate;
  if (p == "spread") return ServerPlacement::kSpread;
  if (c.servers > c.worker_hosts())
    throw ScenarioError(ptr, "co-located servers sit one per worker machine: " + std::to_string(c.servers) +
                                 " servers need that many worker machines, the cluster has " +
                                 std::to_string(c.worker_hosts()));
  return ServerPlacement::kColocated;
}

TopologySpec parse_topology(const json& v, const std::string& ptr, const ClusterSection& c) {
  TopologySpec t;
  if (v.is_string()) {
    if (read_choice(v, ptr, {"star", "racks", "fat_tree", "dragonfly", "torus"}) != "star")
      throw ScenarioError(ptr, "topology " + describe(v) + " needs its parameters: {\"type\": " + v.dump() + ", ...}");
    return t;
  }
  if (!v.is_object() || !v.contains("type"))
    throw ScenarioError(ptr,
                        "expected \"star\" or an object {\"type\": \"racks\" | \"fat_tree\" | \"dragonfly\" | "
                        "\"torus\", ...}, got " +
                            describe(v));
  const std::string type =
      read_choice(v.at("type"), child_pointer(ptr, "type"), {"star", "racks", "fat_tree", "dragonfly", "torus"});
  if (type == "star") {
    const Object star(v, ptr, {"type"});  // no parameters: refuses any other key
    return t;
  }
  if (type == "racks") {
    const Object o(v, ptr, {"type", "hosts_per_rack", "uplink"});
    t.kind = TopologySpec::Kind::kRacks;
    t.hosts_per_rack =
        static_cast<std::uint32_t>(read_uint(o.at("hosts_per_rack"), o.ptr("hosts_per_rack"), 1, kMaxLeaves));
    t.uplink = parse_link(o.at("uplink"), o.ptr("uplink"));
    return t;
  }
  std::string size_key;
  if (type == "fat_tree") {
    const Object o(v, ptr, {"type", "down", "up", "link_count", "link"});
    t.kind = TopologySpec::Kind::kFatTree;
    t.down = read_sizes(o.at("down"), o.ptr("down"), kMaxLevels);
    t.up = read_sizes(o.at("up"), o.ptr("up"), kMaxLevels);
    t.link_count = read_sizes(o.at("link_count"), o.ptr("link_count"), kMaxLevels);
    for (const char* key : {"up", "link_count"})
      if (o.at(key).size() != t.down.size())
        throw ScenarioError(o.ptr(key), "expected one entry per level, " + std::to_string(t.down.size()) +
                                            " as \"down\" has, got " + std::to_string(o.at(key).size()));
    t.fabric = parse_link(o.at("link"), o.ptr("link"));
    size_key = "down";
  } else if (type == "dragonfly") {
    const Object o(v, ptr, {"type", "groups", "chassis", "routers", "nodes", "link"});
    t.kind = TopologySpec::Kind::kDragonfly;
    read_pair(o, "groups", t.groups, t.group_links);
    read_pair(o, "chassis", t.chassis, t.chassis_links);
    read_pair(o, "routers", t.routers, t.router_links);
    t.nodes_per_router = static_cast<std::uint32_t>(read_uint(o.at("nodes"), o.ptr("nodes"), 1, kMaxLeaves));
    // SimGrid joins group i to group j through router j of group i's first chassis, and reaches
    // it across a chassis's routers: each group needs a router per group.
    if (t.groups > t.routers)
      throw ScenarioError(o.ptr("groups"), std::to_string(t.groups) +
                                               " groups need at least as many routers per "
                                               "chassis (SimGrid links group i to group j through router j), got " +
                                               std::to_string(t.routers));
    t.fabric = parse_link(o.at("link"), o.ptr("link"));
    size_key = "nodes";
  } else {
    const Object o(v, ptr, {"type", "dimensions", "link"});
    t.kind = TopologySpec::Kind::kTorus;
    t.dimensions = read_sizes(o.at("dimensions"), o.ptr("dimensions"), kMaxLevels);
    t.fabric = parse_link(o.at("link"), o.ptr("link"));
    size_key = "dimensions";
  }
  // Products of up to eight sizes of a million each would overflow; check them step by step.
  long double leaves = 1;
  if (t.kind == TopologySpec::Kind::kFatTree)
    for (auto d : t.down) leaves *= d;
  if (t.kind == TopologySpec::Kind::kTorus)
    for (auto d : t.dimensions) leaves *= d;
  if (t.kind == TopologySpec::Kind::kDragonfly)
    leaves = static_cast<long double>(t.groups) * t.chassis * t.routers * t.nodes_per_router;
  const std::string where = child_pointer(ptr, size_key);
  if (leaves > kMaxLeaves)
    throw ScenarioError(
        where, "the " + std::string(t.name()) + " would have more than " + std::to_string(kMaxLeaves) + " leaves");
  if (static_cast<std::uint64_t>(leaves) < machine_count(c))
    throw ScenarioError(where, "the " + std::string(t.name()) + " has " +
                                   std::to_string(static_cast<std::uint64_t>(leaves)) +
                                   " leaves, too few for the job's " + machines_phrase(c));
  return t;
}

}  // namespace scenario_sections
}  // namespace pstwin
