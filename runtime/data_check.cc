#include "runtime/data_check.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>

#include "runtime/data/dataset.h"
#include "runtime/data/ratings.h"
#include "runtime/data/read_file.h"
#include "runtime/job_checks.h"
#include "runtime/model/label_fit.h"
#include "runtime/count_text.h"

namespace pstwin {
namespace {

/// The head of a text file as far as its last complete line (outside quotes when `quotes`: in
/// CSV a quoted field may hold line ends), and whether that is the whole file.
struct Head {
  std::string text;
  bool whole = false;
};

Head read_head(const std::string& path, bool quotes) {
  Head h;
  h.text = read_file_head(path, kDataCheckBytes, h.whole);
  if (h.whole) return h;
  std::size_t cut = 0;
  bool quoted = false;
  for (std::size_t i = 0; i < h.text.size(); ++i) {
    if (quotes && h.text[i] == '"') quoted = !quoted;
    else if (h.text[i] == '\n' && !quoted) cut = i + 1;
  }
  h.text.resize(cut);
  return h;
}

/// "all of it" or "its first 1048576 bytes (14210 lines)".
std::string extent(const Head& h) {
  std::uint64_t lines = 0;
  for (const char c : h.text) lines += c == '\n';
  if (h.whole) return "all of it";
  return "its first " + std::to_string(h.text.size()) + " bytes (" + std::to_string(lines) + " lines)";
}

/// The labels in ascending order: "-1, 1", "0, 1, ..., 9"; at most 10.
std::string labels_text(std::vector<LabelSeen> labels) {
  std::sort(labels.begin(), labels.end(), [](const LabelSeen& a, const LabelSeen& b) { return a.label < b.label; });
  std::string out;
  for (std::size_t i = 0; i < labels.size() && i < 10; ++i) out += (i ? ", " : "") + std::to_string(labels[i].label);
  if (labels.size() > 10) out += ", ... (" + std::to_string(labels.size()) + " labels)";
  return out;
}

/// What is left for the job to find in the rest of a file read only in part.
std::string not_parsed(const std::string& path, const char* what) {
  return path + " after its first " + std::to_string(kDataCheckBytes) + " bytes: parsed when the job starts (" +
         what + " there is reported then)";
}

void check_libsvm(const Scenario& s, const std::string& path, bool train, DataCheck& out) {
  const Head head = read_head(path, false);
  std::uint64_t rows = 0;
  std::string what = path + ": ";
  if (head.text.empty() && !head.whole) {
    what += "readable (its first line is longer than " + std::to_string(kDataCheckBytes) + " bytes, so none parsed)";
  } else {
    const Dataset d = parse_libsvm(head.text, path);
    check_labels_fit(s.model.type, d);
    rows = d.rows;
    what += extent(head) + " parses; labels " + labels_text(d.labels_seen) + " fit model type \"" + s.model.type + "\"";
  }
  if (!head.whole) out.not_checked.push_back(not_parsed(path, "a malformed line or a label the model cannot learn"));
  if (!train) {
    out.checked.push_back(what);
    return;
  }
  const std::uint32_t workers = s.cluster.workers;
  // With epochs the iteration count needs every row: counting lines is cheap next to parsing.
  const bool count_all = s.training.epochs.has_value();
  if (!head.whole && (rows < workers || count_all))
    rows += count_data_lines(path, head.text.size(), '#', count_all ? UINT64_MAX : workers - rows);
  check_training_set_size(s, rows, path, head.whole || count_all);
  out.checked.push_back(what + "; " + (head.whole || count_all ? "" : "at least ") + count_text(rows, "row") + " for " +
                        count_text(workers, "worker"));
}

void check_idx(const Scenario& s, const std::string& images, const std::string& labels, bool train,
               DataCheck& out) {
  const IdxHead head = read_idx_head(images, labels, SIZE_MAX);
  check_labels_fit(s.model.type, labels, head.labels_seen, /*by_record=*/true);
  if (train) check_training_set_size(s, head.images, images + " + " + labels);
  out.checked.push_back(images + " + " + labels + ": headers of " + count_text(head.images, "image") + " of " +
                        count_text(head.pixels, "pixel") + " and as many labels; labels " +
                        labels_text(head.labels_seen) + " fit model type \"" + s.model.type + "\"" +
                        (train ? "; a row for each of " + count_text(s.cluster.workers, "worker") : ""));
  out.not_checked.push_back(images + " after its header: read when the job starts");
}

void check_ratings(const Scenario& s, const DataSection& d, DataCheck& out) {
  const Head head = read_head(d.file, true);
  const std::uint64_t parsed = parse_ratings_table(head.text, d.file).all.size();
  std::uint64_t ratings = parsed;
  const auto train_rows = [&](std::uint64_t n) {
    return n - static_cast<std::uint64_t>(std::llround(d.test_fraction * static_cast<double>(n)));
  };
  const std::uint32_t workers = s.cluster.workers;
  const bool count_all = s.training.epochs.has_value();  // as for LIBSVM above
  if (!head.whole && (train_rows(ratings) < workers || count_all)) {
    // Enough ratings that the training split has a row per worker, and two more for rounding.
    const auto enough = static_cast<std::uint64_t>(std::ceil(workers / (1.0 - d.test_fraction))) + 2;
    ratings += count_data_lines(d.file, head.text.size(), '\0', count_all ? UINT64_MAX : enough - ratings);
  }
  check_training_set_size(s, train_rows(ratings), d.file, head.whole || count_all);
  out.checked.push_back(d.file + ": " + extent(head) + " parses (" + count_text(parsed, "rating") + "); " +
                        (head.whole || count_all ? "" : "at least ") +
                        count_text(train_rows(ratings), "training rating") + " for " + count_text(workers, "worker"));
  if (!head.whole) out.not_checked.push_back(not_parsed(d.file, "a malformed record"));
}

}  // namespace

DataCheck check_data_cheaply(const Scenario& s) {
  DataCheck out;
  if (s.model.type == "synthetic") {
    check_servers_have_keys(s, s.model.parameters);
    out.checked.push_back("model type \"synthetic\" reads no data; its keys (" + count_text(s.model.parameters, "key") +
                          ") give each of " + count_text(s.cluster.servers, "server") + " some");
    return out;
  }
  check_target_metric(s);
  const DataSection& d = *s.data;
  if (d.format == "ratings") {
    check_ratings(s, d, out);
  } else if (d.format == "libsvm") {
    check_libsvm(s, d.train, true, out);
    check_libsvm(s, d.test, false, out);
  } else {
    check_idx(s, d.train, d.train_labels, true, out);
    check_idx(s, d.test, d.test_labels, false, out);
  }
  out.not_checked.push_back(
      "the model's size (from the features and classes, or users and items, of all the data), and so whether "
      "every server gets a key: checked when the job builds the model");
  return out;
}

}  // namespace pstwin
