// "simulation": SimGrid's own options as a scenario lists them (their spelling; SimGrid itself
// judges names and values in sim/simgrid_options.cc).
#include "runtime/scenario/simulation_section.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "runtime/errors.h"
#include "runtime/scenario/json_fields.h"

namespace pstwin {

namespace {

/// SimGrid's options that scale or bound time and take positive numbers only, though SimGrid
/// itself accepts any number (a negative latency factor made messages arrive before they left).
/// The factors may be piecewise, "SIZE:FACTOR;SIZE:FACTOR;..." (SMPI's form): each FACTOR counts.
constexpr const char* kPositiveNumberOptions[] = {"network/latency-factor", "network/bandwidth-factor",
                                                  "maxmin/precision", "surf/precision"};

/// Why `value` of the positive-number option `name` is not one, or "".
std::string positive_number_error(const std::string& name, const std::string& value) {
  std::size_t start = 0;
  while (start <= value.size()) {
    const std::size_t end = std::min(value.find(';', start), value.size());
    std::string piece = value.substr(start, end - start);
    if (const std::size_t colon = piece.rfind(':'); colon != std::string::npos) piece.erase(0, colon + 1);
    char* stop = nullptr;
    const double x = std::strtod(piece.c_str(), &stop);
    // What is not a number at all, SimGrid refuses in its own words ("invalid double").
    const bool number = !piece.empty() && stop == piece.c_str() + piece.size();
    if (number && !(std::isfinite(x) && x > 0.0))
      return name + " takes a positive number (or SIZE:NUMBER pieces joined by ';'), got \"" + piece +
             "\" in \"" + value + "\"";
    start = end + 1;
  }
  return "";
}

}  // namespace

std::string simgrid_option_syntax_error(const std::string& option) {
  const std::string expected = "expected NAME:VALUE, one SimGrid option such as network/model:CM02";
  const std::size_t colon = option.find(':');
  if (colon == std::string::npos) return expected + " (no ':' in \"" + option + "\")";
  const std::string name = option.substr(0, colon);
  const std::string value = option.substr(colon + 1);
  if (name.empty()) return expected + " (no NAME before the ':' in \"" + option + "\")";
  const auto bad_name_char = std::find_if(name.begin(), name.end(), [](unsigned char c) {
    return !std::isalnum(c) && c != '/' && c != '_' && c != '.' && c != '-';
  });
  if (bad_name_char != name.end())
    return "the name \"" + name + "\" has a '" + std::string(1, *bad_name_char) +
           "'; SimGrid's option names are made of letters, digits and /_.-";
  if (value.empty()) return expected + " (no VALUE after \"" + name + ":\")";
  if (std::any_of(value.begin(), value.end(), [](unsigned char c) { return std::isspace(c); }))
    return "the value of " + name + " has white space; give one option per entry (SimGrid would "
           "read \"" + option + "\" as several)";
  if (value == "help")
    return "\"help\" is not a value: it makes SimGrid print the choices of " + name +
           " and end the process; give a wrong value to see them in the error";
  for (const char* positive : kPositiveNumberOptions)
    if (name == positive) return positive_number_error(name, value);
  return "";
}

}  // namespace pstwin

namespace pstwin::scenario_sections {

using namespace scenario_json;

SimulationSection parse_simulation(const nlohmann::json& v, const std::string& ptr) {
  const Object o(v, ptr, {"cfg", "nic_window", "nic_send_window", "nic_send_part"});
  SimulationSection s;
  if (o.has("nic_window"))
    s.nic_window = static_cast<std::uint32_t>(read_uint(o.at("nic_window"), o.ptr("nic_window"), 1, kMaxNicWindow));
  if (o.has("nic_send_window")) {
    if (o.has("nic_window"))
      throw ScenarioError(o.ptr("nic_send_window"),
                          "cannot be given with nic_window, which already limits sending (and "
                          "receiving): keep one of the two");
    s.nic_send_window = static_cast<std::uint32_t>(
        read_uint(o.at("nic_send_window"), o.ptr("nic_send_window"), 1, kMaxNicWindow));
  }
  if (o.has("nic_send_part")) {
    if (!o.has("nic_send_window"))
      throw ScenarioError(o.ptr("nic_send_part"), "applies only with nic_send_window (the parts of a NIC's first-in, "
                                                  "first-out queue): add nic_send_window or remove nic_send_part");
    // From a frame (smaller parts only multiply the events) to 64 MiB (past it, no message is split).
    s.nic_send_part_bytes = read_uint(o.at("nic_send_part"), o.ptr("nic_send_part"), 1500, std::uint64_t{1} << 26);
  }
  if (!o.has("cfg")) return s;
  const json& list = read_array(o.at("cfg"), o.ptr("cfg"), /*allow_empty=*/true);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = child_pointer(o.ptr("cfg"), std::to_string(i));
    std::string option = read_string(list[i], at);
    if (const std::string why = simgrid_option_syntax_error(option); !why.empty())
      throw ScenarioError(at, why);
    s.cfg.push_back(std::move(option));
  }
  return s;
}

}  // namespace pstwin::scenario_sections

namespace pstwin::scenario_sections {

void check_nic_window_applies(const SimulationSection& s, bool fault_tolerance) {
  if (s.sender_window() == 0 || !fault_tolerance) return;
  throw ScenarioError(std::string("/simulation/") + s.window_key(),
                      "does not apply to a job with fault tolerance or failures: heartbeats would "
                      "wait behind data in the window and be taken for lost nodes; remove "
                      + std::string(s.window_key()) + " or the fault_tolerance and failures sections");
}

}  // namespace pstwin::scenario_sections
