#include "runtime/output/run_recorder.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include "runtime/output/failure_accounting.h"

namespace pstwin {

namespace {
// Shortest text that reads back as the same double; non-finite values become an empty field.
std::string csv_number(double v) {
  if (!std::isfinite(v)) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

/// Creates `dir` (and parents) and returns it; throws std::runtime_error naming it.
const std::string& created_folder(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create output folder " + dir + ": " + ec.message());
  return dir;
}
}  // namespace

RunRecorder::RunRecorder(const std::string& dir, std::optional<double> target_metric,
                         MetricGoal goal)
    : metrics_(created_folder(dir) + "/metrics.csv", OutputOpen::kTruncate),
      events_(dir + "/events.jsonl", OutputOpen::kTruncate),
      target_(target_metric),
      goal_(std::move(goal)) {
  metrics_ << kMetricsCsvHeader << std::flush;
  last_flush_ = std::chrono::steady_clock::now() - std::chrono::seconds(1);  // the first row at once
}

void RunRecorder::staleness(std::int64_t s, std::uint64_t count) {
  if (count == 0) return;
  const double weight = static_cast<double>(count);
  window_sum_ += static_cast<double>(s) * weight;
  window_count_ += count;
  window_max_ = std::max(window_max_, s);
  sum_all_ += static_cast<double>(s) * weight;
  count_all_ += count;
  staleness_max_all_ = std::max(staleness_max_all_, s);
  const auto idx = static_cast<std::size_t>(s);
  if (histogram_.size() <= idx) histogram_.resize(idx + 1, 0);
  histogram_[idx] += count;
}

void RunRecorder::updates_applied(std::uint64_t n) { updates_ += n; }

void RunRecorder::span(std::uint32_t node, std::string_view name, double start_s, double end_s) {
  if (name == "push") {
    ++worker_clocks_done_;
    if (on_push) on_push(worker_clocks_done_, end_s);
  }
  if (trace_) trace_->add(node, name, start_s, end_s);
}

void RunRecorder::eval(EvalRow row) {
  row.updates = updates_;
  row.staleness_mean = window_count_ ? window_sum_ / static_cast<double>(window_count_) : 0.0;
  row.staleness_max = window_max_;
  window_sum_ = 0.0;
  window_count_ = 0;
  window_max_ = 0;
  metrics_ << csv_number(row.time_s) << ',' << row.clock << ',' << row.updates << ','
           << csv_number(row.train_loss) << ',' << csv_number(row.test_loss) << ','
           << csv_number(row.test_metric) << ',' << csv_number(row.staleness_mean) << ','
           << row.staleness_max << '\n';
  // An evaluation is the unit a stopped run keeps (see the class comment); at most one flush a
  // second, since a flush per row cost a third of a run that evaluates every clock.
  if (const auto now = std::chrono::steady_clock::now(); now - last_flush_ >= std::chrono::seconds(1)) {
    flush();
    last_flush_ = now;
  }
  if (target_ && !time_to_target_s_ && std::isfinite(row.test_metric) &&
      (goal_.higher_is_better ? row.test_metric >= *target_ : row.test_metric <= *target_))
    time_to_target_s_ = row.time_s;
  rows_.push_back(row);
  if (on_eval) on_eval(row);
}

void RunRecorder::event(double time_s, const std::string& type, nlohmann::json fields) {
  nlohmann::json line = nlohmann::json::object();
  line["time_s"] = time_s;
  line["type"] = type;
  for (auto& [k, v] : fields.items()) line[k] = v;
  events_ << line.dump() << '\n';
  if (type == "stopped" && line.contains("why") && line["why"].is_string()) stop_rule_ = line["why"];
  if (type == "stopped_after_completion") stopped_after_completion_ = true;
  if (type == "server_load") server_loads_.push_back(line);
  if (is_failure_accounting_event(type)) failure_events_.push_back(std::move(line));
}

void RunRecorder::finish(const std::string& params_sha256, bool diverged,
                         const std::string& reason) {
  finished_ = true;
  sha256_ = params_sha256;
  diverged_ = diverged;
  reason_ = reason;
  flush();
}

double RunRecorder::staleness_mean() const {
  return count_all_ ? sum_all_ / static_cast<double>(count_all_) : 0.0;
}

void RunRecorder::flush() {
  metrics_.flush();
  events_.flush();
}

}  // namespace pstwin
