// "cluster": the hardware of each node -- one group, a list of groups, per-node overrides.
#include <string>
#include <vector>

#include "runtime/errors.h"
#include "runtime/scenario/cluster_parsing.h"
#include "runtime/scenario/fault_sections.h"
#include "runtime/scenario/json_fields.h"
#include "runtime/scenario/link_presets.h"
#include "runtime/scenario/units.h"
#include "runtime/count_text.h"

namespace pstwin::scenario_sections {

using namespace scenario_json;

namespace {

DeviceSpec parse_device(const json& dev, const std::string& ptr) {
  if (dev.is_string()) {
    const auto preset = device_preset(dev.get<std::string>());
    if (!preset)
      throw ScenarioError(ptr, "unknown device preset " + describe(dev) + "; presets: " + device_preset_names() +
                                   ", or an object {\"flops\": \"15TFlops\", \"bandwidth\": \"900GBps\"}");
    return *preset;
  }
  if (!dev.is_object())
    throw ScenarioError(ptr, "expected a preset name (" + device_preset_names() +
                                 ") or an object {\"preset\" | \"flops\", \"bandwidth\", \"overhead\", \"kind\"}, got " +
                                 describe(dev));
  DeviceSpec device;
  const Object d(dev, ptr, {"preset", "flops", "bandwidth", "overhead", "kind"});
  if (d.has("preset")) {
    const std::string name = read_string(d.at("preset"), d.ptr("preset"));
    const auto preset = device_preset(name);
    if (!preset)
      throw ScenarioError(d.ptr("preset"), "unknown device preset \"" + name + "\"; presets: " + device_preset_names());
    d.forbid("flops", "give either a preset or flops and bandwidth, not both");
    d.forbid("bandwidth", "give either a preset or flops and bandwidth, not both");
    device = *preset;
  } else {
    device.name = "custom";
    device.peak_flops = read_unit(d.at("flops"), d.ptr("flops"), parse_flops, "15TFlops", true);
    device.mem_bandwidth_Bps = read_unit(d.at("bandwidth"), d.ptr("bandwidth"), parse_bandwidth_Bps, "900GBps", true);
  }
  // A fixed time per accounted step: kernel launches, framework and input-pipeline overhead.
  if (d.has("overhead"))
    device.overhead_s = read_unit(d.at("overhead"), d.ptr("overhead"), parse_duration_s, "2ms", false);
  // Whether its kernels run on a GPU rather than the host's cores (what "cpu" shares).
  if (d.has("kind")) device.gpu = read_choice(d.at("kind"), d.ptr("kind"), {"cpu", "gpu"}) == "gpu";
  return device;
}

HostGroupSpec parse_host_group(const json& v, const std::string& ptr) {
  const Object o(v, ptr, {"device", "link", "messaging"});
  return {parse_device(o.at("device"), o.ptr("device")), parse_link(o.at("link"), o.ptr("link")),
          o.has("messaging") ? parse_messaging(o.at("messaging"), o.ptr("messaging")) : MessagingSpec{}};
}

}  // namespace

LinkSpec parse_link(const json& v, const std::string& ptr) {
  const Object l(v, ptr, {"bandwidth", "latency"});
  LinkSpec link;
  link.bandwidth_Bps = read_unit(l.at("bandwidth"), l.ptr("bandwidth"), parse_bandwidth_Bps, "10Gbps", true);
  link.latency_s = read_unit(l.at("latency"), l.ptr("latency"), parse_duration_s, "50us", false);
  return link;
}

LinkSpec parse_intra_host_link(const json& v, const std::string& ptr) {
  if (!v.is_string()) return parse_link(v, ptr);
  const std::string name = v.get<std::string>();
  const auto preset = intra_host_link_preset(name);
  if (!preset)
    throw ScenarioError(ptr, "unknown intra-host link preset \"" + name + "\"; presets: " +
                                 intra_host_link_preset_names() + ", or {\"bandwidth\", \"latency\"}");
  return *preset;
}

std::vector<HostGroupSpec> parse_host_groups(const json& v, const std::string& ptr, std::uint32_t count,
                                             std::uint32_t multiple_of, HostGroupSpec& first) {
  if (!v.is_array()) {
    first = parse_host_group(v, ptr);
    return std::vector<HostGroupSpec>(count, first);
  }
  const json& groups = read_array(v, ptr, false);
  std::vector<HostGroupSpec> nodes;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const std::string gp = child_pointer(ptr, std::to_string(i));
    const Object g(groups[i], gp, {"count", "device", "link", "messaging"});
    const auto n = read_uint(g.at("count"), g.ptr("count"), 1, count);
    if (n % multiple_of != 0)
      throw ScenarioError(g.ptr("count"), count_text(n, "worker") + (n == 1 ? " does" : " do") + " not fill whole machines of " +
                                              std::to_string(multiple_of) +
                                              " (workers_per_host): a machine's "
                                              "workers share its NIC, so a group holds whole machines");
    if (nodes.size() + n > count)
      throw ScenarioError(g.ptr("count"),
                          "the groups' counts add up to more than the " + std::to_string(count) + " the cluster has");
    const HostGroupSpec spec{
        parse_device(g.at("device"), g.ptr("device")), parse_link(g.at("link"), g.ptr("link")),
        g.has("messaging") ? parse_messaging(g.at("messaging"), g.ptr("messaging")) : MessagingSpec{}};
    if (i == 0) first = spec;
    nodes.insert(nodes.end(), n, spec);
  }
  if (nodes.size() != count)
    throw ScenarioError(ptr, "the groups' counts add up to " + std::to_string(nodes.size()) + ", not the " +
                                 std::to_string(count) + " the cluster has");
  return nodes;
}

void apply_overrides(const json& v, const std::string& ptr, ClusterSection& c) {
  if (!v.is_object())
    throw ScenarioError(ptr, "expected an object {\"worker:3\": {\"link\": ...}}, got " + describe(v));
  for (const auto& [key, value] : v.items()) {
    const std::string np = child_pointer(ptr, key);
    const NodeRef ref = parse_node_ref(key, np, c);
    if (ref.role == NodeRef::Role::kScheduler)
      throw ScenarioError(np, "the scheduler is equipped like a server; override the server group instead");
    const Object o(value, np, {"device", "link", "messaging"});
    if (!o.has("device") && !o.has("link") && !o.has("messaging"))
      throw ScenarioError(np, "give \"device\", \"link\", \"messaging\" or several of them");
    const bool worker = ref.role == NodeRef::Role::kWorker;
    HostGroupSpec& spec = worker ? c.worker_nodes[ref.index] : c.server_nodes[ref.index];
    if (o.has("device")) spec.device = parse_device(o.at("device"), o.ptr("device"));
    if (o.has("messaging")) spec.messaging = parse_messaging(o.at("messaging"), o.ptr("messaging"));
    if (!o.has("link")) continue;
    if (!worker && c.server_placement == ServerPlacement::kColocated)
      throw ScenarioError(o.ptr("link"), "server:" + std::to_string(ref.index) +
                                             " is co-located: it uses the NIC of its machine, worker:" +
                                             std::to_string(ref.index * c.workers_per_host) +
                                             "'s link; override that instead");
    if (worker && ref.index % c.workers_per_host != 0)
      throw ScenarioError(o.ptr("link"), "worker:" + std::to_string(ref.index) +
                                             "'s link is the NIC of its machine, "
                                             "shared with its " +
                                             std::to_string(c.workers_per_host) +
                                             " workers; override it at the machine's first worker, worker:" +
                                             std::to_string(ref.index - ref.index % c.workers_per_host));
    spec.link = parse_link(o.at("link"), o.ptr("link"));
    if (worker)  // the machine's other workers share that NIC
      for (std::uint32_t w = ref.index + 1; w < ref.index + c.workers_per_host; ++w) c.worker_nodes[w].link = spec.link;
  }
}

}  // namespace pstwin::scenario_sections
