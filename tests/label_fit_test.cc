// Whether a data set's labels fit the model (runtime/model/label_fit.h).
#include "runtime/model/label_fit.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/errors.h"

namespace pstwin {
namespace {

/// what() of the DataError check_labels_fit throws, or "<fits>".
std::string error_of(const std::string& model, const std::vector<LabelSeen>& labels, bool by_record = false) {
  try {
    check_labels_fit(model, "train.svm", labels, by_record);
  } catch (const DataError& e) {
    return e.what();
  }
  return "<fits>";
}

TEST(LabelFit, LogisticTakesMinusOneOrZeroAndOne) {
  EXPECT_EQ(error_of("logistic", {{-1, 1}, {1, 2}}), "<fits>");
  EXPECT_EQ(error_of("logistic", {{0, 1}, {1, 5}}), "<fits>");
  EXPECT_EQ(error_of("logistic", {{1, 1}}), "<fits>");
}

TEST(LabelFit, LabelsTwoAndFourUnderLogisticNameTheLineAndTheLabelsFound) {
  // Was "a logistic model is binary, but the data has 5 classes".
  EXPECT_EQ(error_of("logistic", {{2, 1}, {4, 3}}),
            "train.svm:1: label 2 does not fit model type \"logistic\", which is binary: its labels are -1 or 0 "
            "(negative) and 1 (positive); the labels of train.svm are 2 (first on line 1) and 4 (first on line 3); "
            "map them to -1 and 1, or use model type \"softmax\"");
  const std::string third = error_of("logistic", {{1, 1}, {-1, 2}, {7, 40}});
  EXPECT_EQ(third.substr(0, 22), "train.svm:40: label 7 ") << third;
}

TEST(LabelFit, IdxLabelsAreNamedByRecord) {
  EXPECT_EQ(error_of("logistic", {{0, 1}, {9, 2}}, true),
            "train.svm: record 2: label 9 does not fit model type \"logistic\", which is binary: its labels are -1 or "
            "0 (negative) and 1 (positive); the labels of train.svm are 0 (first in record 1) and 9 (first in record "
            "2); map them to -1 and 1, or use model type \"softmax\"");
}

TEST(LabelFit, ManyLabelsAreListedInShort) {
  std::vector<LabelSeen> labels;
  for (int i = 0; i < 12; ++i) labels.push_back({i, static_cast<std::uint64_t>(i + 1)});
  const std::string e = error_of("logistic", labels);
  EXPECT_NE(e.find("9 (first on line 10) and 2 more;"), std::string::npos) << e;
}

TEST(LabelFit, MulticlassModelsTakeAnyLabel) {
  for (const char* model : {"softmax", "mlp", "mf", "synthetic"})
    EXPECT_EQ(error_of(model, {{2, 1}, {4, 3}, {-1, 5}}), "<fits>") << model;
}

}  // namespace
}  // namespace pstwin
