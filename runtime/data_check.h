// The checks of a scenario's data that `pstwin validate` makes without loading it: what they
// find wrong is what `simulate` and `launch` would refuse, with the same message.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "runtime/scenario/scenario.h"

namespace pstwin {

/// Bytes of a LIBSVM or ratings file that check_data_cheaply parses (the whole file when shorter).
inline constexpr std::size_t kDataCheckBytes = std::size_t{1} << 20;

/// What check_data_cheaply looked at, and what only loading the data checks. One sentence each.
struct DataCheck {
  std::vector<std::string> checked;
  std::vector<std::string> not_checked;
};

/// Checks cheaply what prepare_training would refuse:
/// - every data file exists and can be read;
/// - LIBSVM and ratings files: their first kDataCheckBytes (cut after the last complete line)
///   parse as read_libsvm and read_ratings_table parse them; IDX pairs: both headers, and every
///   label (a label file is small), not the images;
/// - the labels read fit the model (check_labels_fit);
/// - the training set's size (check_training_set_size): beyond the parsed head, rows are
///   counted as data lines, stopping once every worker has one, or all of them with
///   training.epochs; a ratings file's training split is its ratings less
///   round(test_fraction x ratings); the batch is checked only when the count is exact;
/// - a target metric the model's metric can reach (check_target_metric);
/// - a synthetic model's keys per server (check_servers_have_keys).
/// Throws DataError (file:line) or ScenarioError (pointer) with prepare_training's messages.
DataCheck check_data_cheaply(const Scenario& scenario);

}  // namespace pstwin
