// LinkLoadMeter: how busy each simulated link was over time, from SimGrid's own link usage
// (DESIGN.md, "Outputs").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace simgrid::s4u {
class Link;
}

namespace pstwin {

/// Windows a link's load is kept in: when a run outlasts them, neighbouring windows are merged
/// (each twice as long), so the memory is links x kLinkLoadWindows whatever the run's length.
inline constexpr std::size_t kLinkLoadWindows = 200;

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
  /// The `k` links that carried the most bytes, busiest first: [{"link", "bandwidth_Bps",
  /// "bytes", "mean_utilisation" (over [0, end_s]), "peak_utilisation" (its busiest window)}].
  nlohmann::json busiest(std::size_t k, double end_s) const;

  /// The first windows' width in simulated seconds.
  static constexpr double kFirstWindow_s = 1e-3;

 private:
  void advance(double delta_s);
  void add(std::size_t link, double from_s, double to_s, double bytes);
  void merge_windows();

  std::vector<simgrid::s4u::Link*> links_;
  std::vector<std::string> names_;
  std::vector<double> bandwidth_Bps_;
  std::vector<std::vector<double>> bytes_;  // [link][window]
  double window_s_ = kFirstWindow_s;
};

}  // namespace pstwin
