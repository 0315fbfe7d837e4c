// "simulation": settings only `pstwin simulate` reads, today SimGrid's own configuration options.
// Here is their spelling only; whether SimGrid accepts a name and value is sim/simgrid_options.h's
// question (runtime/ never includes SimGrid: docs/DESIGN.md, "Layers").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pstwin {

/// "simulation": ignored by launch and node (real runs have no SimGrid engine).
/// The widest "nic_window": each window slot is a receive kept posted, so its cost grows with
/// the window, and a window as wide as a node's peers is the exact model at a higher cost.
inline constexpr std::uint32_t kMaxNicWindow = 1024;

struct SimulationSection {
  /// "cfg": SimGrid configuration options, each "NAME:VALUE" ("network/model:CM02"), given to
  /// SimGrid's engine as --cfg=NAME:VALUE in this order, before simulate's own --cfg flags (so
  /// a flag overrides the scenario for the same name; SimGrid keeps the last value).
  std::vector<std::string> cfg;
  /// "nic_window": at most this many transfers in flight out of each node's NIC and into it; the
  /// rest wait in send order (docs/DESIGN.md, "NIC windows"). 0 (absent): no limit, every message
  /// is a flow from the moment it is sent (the exact model). Changes simulated time; opt-in.
  std::uint32_t nic_window = 0;
  /// "nic_send_window": at most this many transfers in flight out of each node's NIC, the rest
  /// waiting in send order; receiving stays the exact model's (every arriving flow shares the
  /// receiver's link fairly). A NIC's queue is first in, first out while the switch port that
  /// feeds a receiver interleaves its senders' packets (docs/DESIGN.md, "NIC windows"). 0
  /// (absent): no limit. Exclusive with nic_window. Changes simulated time; opt-in.
  std::uint32_t nic_send_window = 0;
  /// "nic_send_part": under nic_send_window, the most bytes of one message that enter a NIC's
  /// queue at once, so that longer messages to different receivers interleave in parts of this
  /// size, as TCP Small Queues lets each connection hold only a little data in the qdisc
  /// (docs/DESIGN.md, "NIC windows"). 0 (absent): 65,536 (sim/nic_window.h, kNicPartBytes).
  /// Only with nic_send_window. Changes simulated time; opt-in.
  std::uint64_t nic_send_part_bytes = 0;
  /// The window of the NICs' senders, whichever key set it; 0 when neither did.
  std::uint32_t sender_window() const { return nic_window > 0 ? nic_window : nic_send_window; }
  /// The key that set sender_window(), for errors: "nic_window" or "nic_send_window".
  const char* window_key() const { return nic_window > 0 ? "nic_window" : "nic_send_window"; }
};

/// Why `option` is not spelled as one SimGrid option "NAME:VALUE", or "" when it is. NAME is
/// non-empty and made of letters, digits and "/_.-"; the first ':' ends it. VALUE is non-empty,
/// has no white space (SimGrid would split it into several options) and is not "help" (which
/// makes SimGrid print the choices and end the process). The factors and precisions that SimGrid
/// takes as any number (network/latency-factor, network/bandwidth-factor, maxmin/precision,
/// surf/precision) must be positive and finite where they are numbers, each piece of a piecewise
/// "SIZE:X;SIZE:X" value included (SimGrid itself refuses what is no number). Never throws.
std::string simgrid_option_syntax_error(const std::string& option);

}  // namespace pstwin

namespace pstwin::scenario_sections {

/// "simulation": an object with the optional keys "cfg", a list of strings (possibly empty) that
/// pass simgrid_option_syntax_error, and "nic_window" or "nic_send_window" (not both), an integer
/// in [1, kMaxNicWindow], and with nic_send_window "nic_send_part", bytes in [1500, 2^26].
/// Throws ScenarioError at the section's pointer (or its entry's,
/// "/simulation/cfg/1") for an unknown key, a wrong type, a number out of range, both windows or
/// a misspelt option.
SimulationSection parse_simulation(const nlohmann::json& v, const std::string& ptr);

/// Refuses "nic_window" (or "nic_send_window") where it does not apply: with fault tolerance or failures, whose
/// heartbeats would wait behind data in the window and be taken for lost nodes, and whose
/// restarted nodes move to fresh mailboxes the window does not follow. Throws ScenarioError at
/// "/simulation/nic_window" (or nic_send_window); does nothing when neither is set.
void check_nic_window_applies(const SimulationSection& s, bool fault_tolerance);

}  // namespace pstwin::scenario_sections
