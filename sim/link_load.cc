#include "sim/link_load.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <sstream>

#include <simgrid/s4u.hpp>

#include "runtime/output/atomic_file.h"

namespace sg4 = simgrid::s4u;

namespace pstwin {

namespace {

// SimGrid's signal cannot be disconnected from outside the engine; it is connected once per
// process and reaches whichever meter is active.
LinkLoadMeter* g_active = nullptr;
bool g_connected = false;

}  // namespace

void mark_link_kind(sg4::SplitDuplexLink* link, const char* kind) {
  link->get_link_up()->set_property(kLinkKindProperty, kind);
  link->get_link_down()->set_property(kLinkKindProperty, kind);
}

LinkLoadMeter::LinkLoadMeter() {
  if (g_active) throw std::logic_error("LinkLoadMeter: another meter is active in this process");
  links_ = sg4::Engine::get_instance()->get_all_links();
  // By name: the order of get_all_links is the engine's, and outputs should not depend on it.
  std::sort(links_.begin(), links_.end(),
            [](const sg4::Link* a, const sg4::Link* b) { return a->get_name() < b->get_name(); });
  for (const sg4::Link* l : links_) {
    names_.push_back(l->get_name());
    const char* kind = l->get_property(kLinkKindProperty);
    kinds_.push_back(kind ? kind : "");
    bandwidth_Bps_.push_back(l->get_bandwidth());
  }
  bytes_.assign(links_.size(), std::vector<double>(kLinkLoadWindows, 0.0));
  g_active = this;
  if (!g_connected) {
    sg4::Engine::on_time_advance_cb([](double delta_s) {
      if (g_active) g_active->advance(delta_s);
    });
    g_connected = true;
  }
}

LinkLoadMeter::~LinkLoadMeter() {
  if (g_active == this) g_active = nullptr;
}

void LinkLoadMeter::advance(double delta_s) {
  if (delta_s <= 0) return;
  const double now = sg4::Engine::get_clock();
  for (std::size_t i = 0; i < links_.size(); ++i) {
    // At this point SimGrid has already let the next flows in (their latency over) with rates
    // not yet solved: a link can read many times its bandwidth (68x on a 1,024-worker star).
    // No link carries more than its bandwidth, so the reading is capped there.
    const double rate = std::min(links_[i]->get_usage(), bandwidth_Bps_[i]);
    if (rate > 0) add(i, now - delta_s, now, rate * delta_s);
  }
}

void LinkLoadMeter::add(std::size_t link, double from_s, double to_s, double bytes) {
  while (to_s > window_s_ * kLinkLoadWindows) merge_windows();
  const double rate = bytes / (to_s - from_s);
  auto first = static_cast<std::size_t>(std::max(0.0, from_s) / window_s_);
  for (std::size_t w = first; w < kLinkLoadWindows; ++w) {
    const double lo = std::max(from_s, w * window_s_);
    const double hi = std::min(to_s, (w + 1) * window_s_);
    if (hi <= lo) break;
    bytes_[link][w] += rate * (hi - lo);
  }
}

void LinkLoadMeter::merge_windows() {
  for (auto& windows : bytes_) {
    for (std::size_t w = 0; w < kLinkLoadWindows / 2; ++w) windows[w] = windows[2 * w] + windows[2 * w + 1];
    std::fill(windows.begin() + kLinkLoadWindows / 2, windows.end(), 0.0);
  }
  window_s_ *= 2;
}

double LinkLoadMeter::total_bytes(std::size_t i) const {
  return std::accumulate(bytes_.at(i).begin(), bytes_.at(i).end(), 0.0);
}

void LinkLoadMeter::write_csv(const std::string& path, double end_s) const {
  std::ostringstream out;
  out.precision(9);
  out << "link,bandwidth_Bps,start_s,end_s,utilisation\n";
  const auto windows = std::min<std::size_t>(kLinkLoadWindows, static_cast<std::size_t>(end_s / window_s_) + 1);
  for (std::size_t i = 0; i < links_.size(); ++i) {
    if (total_bytes(i) <= 0) continue;
    for (std::size_t w = 0; w < windows; ++w) {
      const double start = w * window_s_;
      const double end = std::min(end_s, (w + 1) * window_s_);
      if (end <= start) break;
      out << names_[i] << ',' << bandwidth_Bps_[i] << ',' << start << ',' << end << ','
          << bytes_[i][w] / (end - start) / bandwidth_Bps_[i] << '\n';
    }
  }
  write_file_atomically(path, out.str());
}

nlohmann::json LinkLoadMeter::busiest(std::size_t k, double end_s) const {
  std::vector<std::size_t> order(links_.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<double> totals(links_.size()), share(links_.size());
  for (std::size_t i = 0; i < links_.size(); ++i) {
    totals[i] = total_bytes(i);
    share[i] = totals[i] / bandwidth_Bps_[i];  // mean utilisation times end_s: the same order
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return share[a] != share[b] ? share[a] > share[b] : totals[a] > totals[b];
  });
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t n = 0; n < std::min(k, order.size()); ++n) {
    const std::size_t i = order[n];
    if (totals[i] <= 0) break;
    double peak = 0;
    for (std::size_t w = 0; w < kLinkLoadWindows; ++w) {
      const double width = std::min(end_s, (w + 1) * window_s_) - w * window_s_;
      if (width <= 0) break;
      peak = std::max(peak, bytes_[i][w] / width / bandwidth_Bps_[i]);
    }
    nlohmann::json entry = {{"link", names_[i]},
                            {"bandwidth_Bps", bandwidth_Bps_[i]},
                            {"bytes", totals[i]},
                            {"mean_utilisation", end_s > 0 ? totals[i] / end_s / bandwidth_Bps_[i] : 0.0},
                            {"peak_utilisation", peak}};
    if (!kinds_[i].empty()) entry["kind"] = kinds_[i];
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace pstwin
