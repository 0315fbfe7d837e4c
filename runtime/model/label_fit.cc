#include "runtime/model/label_fit.h"

#include <algorithm>
#include <cstddef>

#include "runtime/errors.h"

namespace pstwin {
namespace {

/// "2 (first on line 1), 4 (first on line 3) and 7 (first on line 9)"; at most 10 labels.
std::string list_labels(const std::vector<LabelSeen>& labels, bool by_record) {
  constexpr std::size_t kMax = 10;
  const std::size_t shown = std::min(labels.size(), kMax);
  std::string out;
  for (std::size_t i = 0; i < shown; ++i) {
    if (i > 0) out += i + 1 == shown && labels.size() <= kMax ? " and " : ", ";
    out += std::to_string(labels[i].label) + (by_record ? " (first in record " : " (first on line ") +
           std::to_string(labels[i].line) + ")";
  }
  if (labels.size() > kMax) out += " and " + std::to_string(labels.size() - kMax) + " more";
  return out;
}

}  // namespace

void check_labels_fit(const std::string& model_type, const std::string& file, const std::vector<LabelSeen>& labels,
                      bool by_record) {
  if (model_type != "logistic") return;  // softmax and mlp learn any class; mf and synthetic read no labels
  const auto bad = std::find_if(labels.begin(), labels.end(),
                                [](const LabelSeen& l) { return l.label < -1 || l.label > 1; });
  if (bad == labels.end()) return;
  const std::string where = by_record ? "record " + std::to_string(bad->line) + ": " : "";
  throw DataError(file, by_record ? 0 : bad->line,
                  where + "label " + std::to_string(bad->label) +
                      " does not fit model type \"logistic\", which is binary: its labels are -1 or 0 (negative) "
                      "and 1 (positive); the labels of " + file + " are " + list_labels(labels, by_record) +
                      "; map them to -1 and 1, or use model type \"softmax\"");
}

void check_labels_fit(const std::string& model_type, const Dataset& data) {
  check_labels_fit(model_type, data.labels_file, data.labels_seen, data.labels_by_record);
}

}  // namespace pstwin
