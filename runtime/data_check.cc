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

/// The shape of a classifier's model: `features` and `classes`.
ModelShape features_and_classes(std::size_t features, std::size_t classes) {
  ModelShape shape;
  shape.features = features;
  shape.classes = classes;
  return shape;
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

/// Checks one LIBSVM file; returns its features and classes when it was read whole.
std::optional<ModelShape> check_libsvm(const Scenario& s, const std::string& path, bool train, DataCheck& out) {
  const Head head = read_head(path, false);
  std::uint64_t rows = 0;
  std::string what = path + ": ";
  std::optional<ModelShape> shape;
  if (head.text.empty() && !head.whole) {
    what += "readable (its first line is longer than " + std::to_string(kDataCheckBytes) + " bytes, so none parsed)";
  } else {
    const Dataset d = parse_libsvm(head.text, path);
    check_labels_fit(s.model.type, d);
    rows = d.rows;
    what += extent(head) + " parses; labels " + labels_text(d.labels_seen) + " fit model type \"" + s.model.type + "\"";
    if (head.whole) shape = features_and_classes(d.cols, d.num_classes);
  }
  if (!head.whole) out.not_checked.push_back(not_parsed(path, "a malformed line or a label the model cannot learn"));
  if (!train) {
    out.checked.push_back(what);
    return shape;
  }
  const std::uint32_t workers = s.cluster.workers;
  // Rows are counted on until every worker has a full batch, or the file ends (then the count is
  // exact); with epochs the iteration count needs them all. Counting is cheap next to parsing.
  const bool count_all = s.training.epochs.has_value();
  const std::uint64_t needed = std::uint64_t{workers} * s.training.batch_size;
  bool exact = head.whole;
  if (!head.whole && (rows < needed || count_all)) {
    const std::uint64_t wanted = count_all ? UINT64_MAX : needed - rows;
    const std::uint64_t counted = count_data_lines(path, head.text.size(), '#', wanted);
    rows += counted;
    exact = count_all || counted < wanted;
  }
  check_training_set_size(s, rows, path, exact);
  out.checked.push_back(what + "; " + (exact ? "" : "at least ") + count_text(rows, "row") + " for " +
                        count_text(workers, "worker"));
  return shape;
}

/// Checks one IDX pair; returns its features (pixels) and classes (largest label + 1), which its
/// header and labels fix.
ModelShape check_idx(const Scenario& s, const std::string& images, const std::string& labels, bool train,
                     DataCheck& out) {
  const IdxHead head = read_idx_head(images, labels, SIZE_MAX);
  check_labels_fit(s.model.type, labels, head.labels_seen, /*by_record=*/true);
  if (train) check_training_set_size(s, head.images, images + " + " + labels);
  out.checked.push_back(images + " + " + labels + ": headers of " + count_text(head.images, "image") + " of " +
                        count_text(head.pixels, "pixel") + " and as many labels; labels " +
                        labels_text(head.labels_seen) + " fit model type \"" + s.model.type + "\"" +
                        (train ? "; a row for " + each_of_text(s.cluster.workers, "worker") : ""));
  out.not_checked.push_back(images + " after its header: read when the job starts");
  std::size_t classes = 0;
  for (const LabelSeen& l : head.labels_seen) classes = std::max<std::size_t>(classes, static_cast<std::size_t>(l.label) + 1);
  return features_and_classes(head.pixels, classes);
}

/// Checks a ratings file; returns its users and items when it was read whole.
std::optional<ModelShape> check_ratings(const Scenario& s, const DataSection& d, DataCheck& out) {
  const Head head = read_head(d.file, true);
  const RatingsTable table = parse_ratings_table(head.text, d.file);
  const std::uint64_t parsed = table.all.size();
  std::uint64_t ratings = parsed;
  const auto train_rows = [&](std::uint64_t n) {
    return n - static_cast<std::uint64_t>(std::llround(d.test_fraction * static_cast<double>(n)));
  };
  const std::uint32_t workers = s.cluster.workers;
  const bool count_all = s.training.epochs.has_value();  // as for LIBSVM above
  // Counted on, as for LIBSVM, until the training split gives every worker a full batch and
  // neither split is empty (round(test_fraction x n) in [1, n - 1], test_split_size), with two
  // ratings more for rounding, or the file ends.
  const double f = d.test_fraction;
  const double batches = static_cast<double>(workers) * static_cast<double>(s.training.batch_size);
  const auto enough = static_cast<std::uint64_t>(
      std::max(std::ceil(batches / (1.0 - f)), std::max(std::ceil(0.5 / f), std::floor(0.5 / (1.0 - f)) + 1)) + 2);
  bool exact = head.whole;
  if (!head.whole && (ratings < enough || count_all)) {
    const std::uint64_t wanted = count_all ? UINT64_MAX : enough - ratings;
    const std::uint64_t counted = count_data_lines(d.file, head.text.size(), '\0', wanted);
    ratings += counted;
    exact = count_all || counted < wanted;
  }
  if (exact) (void)test_split_size(ratings, f, d.file);  // else there are `enough`
  check_training_set_size(s, train_rows(ratings), d.file, exact);
  out.checked.push_back(d.file + ": " + extent(head) + " parses (" + count_text(parsed, "rating") + "); " +
                        (exact ? "" : "at least ") + count_text(train_rows(ratings), "training rating") + " for " +
                        count_text(workers, "worker"));
  if (!head.whole) {
    out.not_checked.push_back(not_parsed(d.file, "a malformed record"));
    return std::nullopt;
  }
  ModelShape shape;
  shape.users = table.all.num_users;
  shape.items = table.all.num_items;
  return shape;
}

/// Both shapes' larger features and classes (a test set may have more, or fewer, than training).
std::optional<ModelShape> wider(const std::optional<ModelShape>& a, const std::optional<ModelShape>& b) {
  if (!a || !b) return std::nullopt;
  return features_and_classes(std::max(a->features, b->features), std::max(a->classes, b->classes));
}

}  // namespace

DataCheck check_data_cheaply(const Scenario& s) {
  DataCheck out;
  if (s.model.type == "synthetic") {
    check_servers_have_keys(s, s.model.parameters);
    out.checked.push_back("model type \"synthetic\" reads no data; its keys (" + count_text(s.model.parameters, "key") +
                          ") give " + each_of_text(s.cluster.servers, "server") + " some");
    return out;
  }
  check_target_metric(s);
  const DataSection& d = *s.data;
  if (d.format == "ratings") {
    out.shape = check_ratings(s, d, out);
  } else if (d.format == "libsvm") {
    const auto train = check_libsvm(s, d.train, true, out);
    out.shape = wider(train, check_libsvm(s, d.test, false, out));
  } else {
    const ModelShape train = check_idx(s, d.train, d.train_labels, true, out);
    out.shape = wider(train, check_idx(s, d.test, d.test_labels, false, out));
  }
  if (!out.shape)
    out.not_checked.push_back(
        std::string("the model's size (") +
        (d.format == "ratings" ? "its users and items" : "its features, the largest index of either file, and classes") +
        ", known once every line is read), and so whether every server gets a key and whether a key range fits "
        "in one message (at most 1 GiB): checked when simulate or launch reads the data, before the job starts");
  return out;
}

}  // namespace pstwin
