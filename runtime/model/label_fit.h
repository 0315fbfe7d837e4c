// Whether the labels of a data set fit the model that will learn them.
#pragma once

#include <string>
#include <vector>

#include "runtime/data/dataset.h"

namespace pstwin {

/// Throws DataError unless every label in `labels` (the distinct labels of `file` with where
/// each first appears, as Dataset::labels_seen) is one that model type `model_type` learns:
/// "logistic" is binary and takes -1 or 0 (negative) and 1 (positive); "softmax" and "mlp"
/// take every label a reader accepts; "mf" and "synthetic" read no labels. The error names the
/// file and line (`by_record`: the record, for IDX label files) of the first label that does
/// not fit, and lists the labels found with where each first appears, e.g. for 2/4 labels
/// under "logistic": "train.svm:1: label 2 does not fit model type "logistic", ...; the labels
/// of train.svm are 2 (first on line 1) and 4 (first on line 3); ...".
void check_labels_fit(const std::string& model_type, const std::string& file, const std::vector<LabelSeen>& labels,
                      bool by_record = false);

/// check_labels_fit for the labels of a loaded data set.
void check_labels_fit(const std::string& model_type, const Dataset& data);

}  // namespace pstwin
