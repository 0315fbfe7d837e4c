// LinkLoadMeter: how busy each simulated link was over time, from SimGrid's own link usage
// (DESIGN.md, "Outputs").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace simgrid::s4u {
class Link;
class SplitDuplexLink;
}

namespace pstwin {

/// Windows a link's load is kept in: when a run outlasts them, neighbouring windows are merged
/// (each twice as long), so the memory is links x kLinkLoadWindows whatever the run's length.
inline constexpr std::size_t kLinkLoadWindows = 200;

/// The SimGrid link property that says what a link is, so that busiest_links (and the figures
/// drawn from it) can name it: "nic" (a machine's network interface), "intra_host" (between a
/// worker and its machine's NIC: NVLink or PCIe, the scenario's `intra_host`), "loopback"
/// (a co-located server's), "rack_uplink". Links SimGrid builds itself (fabrics) have none.
inline constexpr const char* kLinkKindProperty = "pstwin_kind";

/// Sets kLinkKindProperty to `kind` on both directions of `link` (the meter sees the two halves,
/// not the split-duplex link). Called by the topology builders (sim/topology_*.cc).
void mark_link_kind(simgrid::s4u::SplitDuplexLink* link, const char* kind);

/// Integrates every link's usage (Link::get_usage, bytes per second, SimGrid's solution of the
/// network's sharing) over simulated time: after each step of the clock (Engine::on_time_advance)
/// the step's bytes are added to the windows it spans. The reading is capped at the link's
/// bandwidth (see advance()). What it counts is SimGrid's load: the payload plus the TCP
/// acknowledgements it models on the reverse direction (network/crosstraffic); on stars of 1 to
/// 16 servers (up to 1,024 workers) the totals came 8-11% above the payload
/// (tests/sim_link_load_test.cc bounds them). Windows start at kFirstWindow_s wide and
/// double (merging pairs) as the run grows. At most one meter is active in a process at a time
/// (SimGrid's signal is process-wide): constructing a second while one lives throws
/// std::logic_error. Construct it after the platform is built and before Engine::run.
class LinkLoadMeter {
 public:
  /// Watches every link of the current engine (Engine::get_all_links). REQUIRES: an engine.
  LinkLoadMeter();
  ~LinkLoadMeter();
  LinkLoadMeter(const LinkLoadMeter&) = delete;
  LinkLoadMeter& operator=(const LinkLoadMeter&) = delete;

  /// Bytes that crossed link `i` (the order of link_names()) during the run.
  double total_bytes(std::size_t i) const;
  const std::vector<std::string>& link_names() const { return names_; }

  /// link_load.csv: "link,bandwidth_Bps,start_s,end_s,utilisation" with one row per link and
  /// window up to `end_s` (the run's simulated time), utilisation = mean bytes/s over the window
  /// divided by the link's bandwidth, in [0, 1]. Links never used are left out. Throws
  /// std::runtime_error naming `path` when it cannot be written.
  void write_csv(const std::string& path, double end_s) const;
  /// The `k` most utilised links, busiest first: [{"link", "kind" (kLinkKindProperty, only when
  /// set), "bandwidth_Bps", "bytes", "mean_utilisation" (bytes / (end_s x bandwidth), over
  /// [0, end_s]), "peak_utilisation" (its busiest window)}], ranked by mean_utilisation, ties by
  /// bytes. Not by bytes alone: a fast link carrying many bytes (NVLink inside a hybrid machine,
  /// 1.5% used) would hide a slow one near its capacity (the server NICs, 26.5%).
  nlohmann::json busiest(std::size_t k, double end_s) const;

  /// The first windows' width in simulated seconds.
  static constexpr double kFirstWindow_s = 1e-3;

 private:
  void advance(double delta_s);
  void add(std::size_t link, double from_s, double to_s, double bytes);
  void merge_windows();

  std::vector<simgrid::s4u::Link*> links_;
  std::vector<std::string> names_;
  std::vector<std::string> kinds_;  // kLinkKindProperty per link, "" when unset
  std::vector<double> bandwidth_Bps_;
  std::vector<std::vector<double>> bytes_;  // [link][window]
  double window_s_ = kFirstWindow_s;
};

}  // namespace pstwin
