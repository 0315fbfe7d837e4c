#include "runtime/output/figures_reached.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <vector>

namespace pstwin {

namespace {

/// One metrics.csv row's fields, split at commas; nullopt when it has not 8 of them.
std::optional<std::vector<std::string>> fields_of(const std::string& line) {
  std::vector<std::string> fields(1);
  for (const char c : line) {
    if (c == ',') fields.emplace_back();
    else fields.back() += c;
  }
  if (fields.size() != 8) return std::nullopt;
  return fields;
}

/// A figure as RunRecorder wrote it: empty (not finite) or a number; nullopt for anything else.
std::optional<double> number_of(const std::string& text, bool& ok) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  ok = ok && end == text.c_str() + text.size();
  if (!ok || !std::isfinite(v)) return std::nullopt;
  return v;
}

nlohmann::json json_of(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

}  // namespace

void add_figures_reached(nlohmann::json& summary, const std::string& path, std::optional<double> target,
                         const MetricGoal& goal) {
  std::optional<double> time_s, test_metric, test_loss, train_loss, time_to_target;
  std::int64_t clock = 0;
  std::uint64_t updates = 0;
  // Staleness: each row holds its window's mean and max; the mean over the run weighs each
  // window's by the gradients it applied (the rows' updates are cumulative).
  double staleness_sum = 0.0;
  std::int64_t staleness_max = 0;
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    const auto fields = fields_of(line);
    if (!fields) break;
    bool ok = true;
    const auto row_time = number_of((*fields)[0], ok);
    const auto row_clock = number_of((*fields)[1], ok);
    const auto row_updates = number_of((*fields)[2], ok);
    const auto row_train = number_of((*fields)[3], ok);
    const auto row_test_loss = number_of((*fields)[4], ok);
    const auto row_metric = number_of((*fields)[5], ok);
    const auto row_staleness_mean = number_of((*fields)[6], ok);
    const auto row_staleness_max = number_of((*fields)[7], ok);
    if (!ok || !row_time || !row_clock || !row_updates) break;
    if (*row_updates > static_cast<double>(updates))
      staleness_sum += row_staleness_mean.value_or(0.0) * (*row_updates - static_cast<double>(updates));
    staleness_max = std::max(staleness_max, static_cast<std::int64_t>(row_staleness_max.value_or(0.0)));
    time_s = row_time;
    clock = static_cast<std::int64_t>(*row_clock);
    updates = static_cast<std::uint64_t>(*row_updates);
    train_loss = row_train;
    test_loss = row_test_loss;
    test_metric = row_metric;
    if (target && !time_to_target && row_metric &&
        (goal.higher_is_better ? *row_metric >= *target : *row_metric <= *target))
      time_to_target = row_time;
  }
  summary["metric"] = goal.name.empty() ? nlohmann::json(nullptr) : nlohmann::json(goal.name);
  summary["final_test_metric"] = json_of(test_metric);
  summary["final_test_loss"] = json_of(test_loss);
  summary["final_train_loss"] = json_of(train_loss);
  summary["final_clock"] = clock;
  summary["updates"] = updates;
  summary["sim_time_s"] = time_s.value_or(0.0);
  summary["staleness_mean"] = updates ? staleness_sum / static_cast<double>(updates) : 0.0;
  summary["staleness_max"] = staleness_max;
  summary["target_metric"] = json_of(target);
  summary["time_to_target_s"] = json_of(time_to_target);
}

}  // namespace pstwin
