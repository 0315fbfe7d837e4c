#include "runtime/output/server_load_summary.h"

#include <algorithm>
#include <array>
#include <numeric>

namespace pstwin {

double imbalance(const std::vector<double>& values) {
  if (values.empty()) return 0.0;
  const double sum = std::accumulate(values.begin(), values.end(), 0.0);
  if (sum <= 0.0) return 0.0;
  return *std::max_element(values.begin(), values.end()) / (sum / static_cast<double>(values.size()));
}

nlohmann::json server_load_summary(const std::vector<nlohmann::json>& events, std::uint32_t servers) {
  static constexpr std::array<const char*, 4> kFields{"requests", "bytes_in", "bytes_out", "busy_s"};
  std::vector<nlohmann::json> per(servers);
  for (std::uint32_t i = 0; i < servers; ++i) {
    per[i] = {{"server", i}};
    for (const char* f : kFields) per[i][f] = 0;
  }
  for (const auto& e : events) {
    const auto i = e.value("server", servers);
    if (i >= servers) continue;
    for (const char* f : kFields) per[i][f] = e.value(f, nlohmann::json(0));
  }
  nlohmann::json imb = nlohmann::json::object();
  for (const char* f : kFields) {
    std::vector<double> v;
    for (const auto& p : per) v.push_back(p[f].get<double>());
    imb[f] = imbalance(v);
  }
  return {{"per_server", per}, {"imbalance", imb}};
}

}  // namespace pstwin
