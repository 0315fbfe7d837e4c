// "messaging" and "cpu": the host costs a node pays beyond its device's kernels and its link
// (DESIGN.md, "Cost model"), parsed strictly, and described for `validate`.
#include "runtime/scenario/cluster_costs.h"

#include <string>
#include <vector>

#include "runtime/errors.h"
#include "runtime/scenario/cluster_parsing.h"
#include "runtime/scenario/json_fields.h"
#include "runtime/scenario/units.h"
#include "runtime/seconds_text.h"

namespace pstwin {

namespace scenario_sections {

using namespace scenario_json;

MessagingSpec parse_messaging(const nlohmann::json& v, const std::string& ptr) {
  const Object o(v, ptr, {"send_per_message", "send_per_byte", "receive_per_message", "receive_per_byte", "io_share"});
  MessagingSpec m;
  // Every figure may be 0 (a cost this transport does not have) and each may be left out.
  // Bounds far above any real host (a message costing a second of CPU, a byte a microsecond,
  // i.e. 1 MB/s) but low enough that a typo cannot turn a run into a silent hours-long stall.
  const auto read = [&](const char* key, const char* example, double limit_s, const char* limit, double& out) {
    if (!o.has(key)) return;
    out = read_unit(o.at(key), o.ptr(key), parse_duration_s, example, false);
    if (out > limit_s)
      throw ScenarioError(o.ptr(key), std::string("at most ") + limit + " (host CPU time; e.g. " + example +
                                          "), got " + seconds_text(out) + " s");
  };
  read("send_per_message", "25us", 1.0, "1s", m.send_per_message_s);
  read("send_per_byte", "0.4ns", 1e-6, "1us", m.send_per_byte_s);
  read("receive_per_message", "25us", 1.0, "1s", m.receive_per_message_s);
  read("receive_per_byte", "0.4ns", 1e-6, "1us", m.receive_per_byte_s);
  // A share of the figures above, not a cost of its own: 0 (the role does it all) to 1.
  if (o.has("io_share")) m.io_share = read_number(o.at("io_share"), o.ptr("io_share"), {0.0, 1.0});
  return m;
}

void check_io_share_applies(const ClusterSection& c, const SimulationSection& sim, bool fault_tolerance) {
  std::string who;
  for (std::uint32_t w = 0; w < c.workers && who.empty(); ++w)
    if (c.worker_spec(w).messaging.io_share > 0) who = "worker " + std::to_string(w);
  for (std::uint32_t i = 0; i < c.servers && who.empty(); ++i)
    if (c.server_spec(i).messaging.io_share > 0) who = "server " + std::to_string(i);
  if (who.empty() && c.server.messaging.io_share > 0) who = "the scheduler (the server group's messaging)";
  if (who.empty()) return;
  if (sim.nic_window > 0)
    throw ScenarioError("/simulation/nic_window",
                        "does not apply with a messaging io_share above 0 (" + who +
                            "): the receive window is the role's own; use nic_send_window, or io_share 0");
  if (fault_tolerance)
    throw ScenarioError("/cluster", who + ": messaging io_share above 0 is not modelled in a job with fault "
                                          "tolerance or failures (a failed node's I/O thread); set it to 0 "
                                          "or remove the fault_tolerance and failures sections");
}

CpuSpec parse_cpu(const nlohmann::json& v, const std::string& ptr) {
  const Object o(v, ptr, {"cores", "machines"});
  // A million cores is far past any machine; the bound only keeps the count in 32 bits.
  constexpr std::uint64_t kMaxCores = 1'000'000;
  CpuSpec cpu;
  cpu.cores = static_cast<std::uint32_t>(read_uint(o.at("cores"), o.ptr("cores"), 1, kMaxCores));
  cpu.machines = read_choice(o.at("machines"), o.ptr("machines"), {"one", "per_host"}) == "one"
                     ? CpuSpec::Machines::kOne
                     : CpuSpec::Machines::kPerHost;
  return cpu;
}

}  // namespace scenario_sections

namespace {

std::string messaging_text(const MessagingSpec& m) {
  return "send " + seconds_text(m.send_per_message_s) + " s + " + seconds_text(m.send_per_byte_s) +
         " s/byte, receive " + seconds_text(m.receive_per_message_s) + " s + " +
         seconds_text(m.receive_per_byte_s) + " s/byte" +
         (m.io_share > 0 ? ", " + std::to_string(static_cast<int>(m.io_share * 100 + 0.5)) + "% of it on the I/O thread"
                         : std::string());
}

bool same(const MessagingSpec& a, const MessagingSpec& b) {
  return a.send_per_message_s == b.send_per_message_s && a.send_per_byte_s == b.send_per_byte_s &&
         a.receive_per_message_s == b.receive_per_message_s && a.receive_per_byte_s == b.receive_per_byte_s &&
         a.io_share == b.io_share;
}

// One line per run of consecutive nodes of `role` with the same messaging costs.
template <typename SpecOf>
void messaging_lines(const char* role, std::uint32_t count, SpecOf spec_of, std::vector<std::string>& out) {
  for (std::uint32_t first = 0; first < count;) {
    std::uint32_t last = first;
    while (last + 1 < count && same(spec_of(last + 1).messaging, spec_of(first).messaging)) ++last;
    const MessagingSpec& m = spec_of(first).messaging;
    if (!m.free()) {
      const std::string who = first == 0 && last + 1 == count
                                  ? std::string(role) + "s"
                                  : std::string(role) + " " + std::to_string(first) +
                                        (last > first ? "-" + std::to_string(last) : std::string());
      out.push_back("messaging: " + who + ": " + messaging_text(m));
    }
    first = last + 1;
  }
}

}  // namespace

std::vector<std::string> host_cost_lines(const ClusterSection& c) {
  std::vector<std::string> lines;
  messaging_lines("worker", c.workers, [&](std::uint32_t w) -> const HostGroupSpec& { return c.worker_spec(w); },
                  lines);
  messaging_lines("server", c.servers, [&](std::uint32_t i) -> const HostGroupSpec& { return c.server_spec(i); },
                  lines);
  if (c.cpu) {
    const std::string cores = std::to_string(c.cpu->cores) + (c.cpu->cores == 1 ? " core" : " cores");
    lines.push_back(c.cpu->machines == CpuSpec::Machines::kOne
                        ? "cpu: " + cores + " on one machine, shared by every node's host work"
                        : "cpu: " + cores + " per machine, shared by the nodes of each machine");
  }
  return lines;
}

}  // namespace pstwin
