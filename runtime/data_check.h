// The checks of a scenario's data that `pstwin validate` makes without loading it: what they
// find wrong is what `simulate` and `launch` would refuse, with the same message.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "runtime/job_setup.h"
#include "runtime/scenario/scenario.h"

namespace pstwin {

/// Bytes of a LIBSVM or ratings file that check_data_cheaply parses (the whole file when shorter).
inline constexpr std::size_t kDataCheckBytes = std::size_t{1} << 20;

/// What check_data_cheaply looked at, and what only loading the data checks. One sentence each.
struct DataCheck {
  std::vector<std::string> checked;
  std::vector<std::string> not_checked;
  /// The model's shape (features and classes, or users and items) when what was read fixes it:
  /// an IDX pair's headers and labels, or LIBSVM and ratings files read whole (at most
  /// kDataCheckBytes each). Otherwise empty, and `not_checked` says why. Never set for the
  /// synthetic model, whose size is the scenario's.
  std::optional<ModelShape> shape;
};

/// Checks cheaply what prepare_training would refuse:
/// - every data file exists and can be read;
/// - LIBSVM and ratings files: their first kDataCheckBytes (cut after the last complete line)
///   parse as read_libsvm and read_ratings_table parse them; IDX pairs: both headers, and every
///   label (a label file is small), not the images;
/// - the labels read fit the model (check_labels_fit);
/// - the training set's size (check_training_set_size): beyond the parsed head, rows are
///   counted as data lines, stopping once every worker has a full batch (or the file ends), or
///   all of them with training.epochs; a ratings file's training split is its ratings less
///   round(test_fraction x ratings), counted on until neither split can be empty
///   (test_split_size); what needs the exact count is checked when the file ended first;
/// - a target metric the model's metric can reach (check_target_metric);
/// - a synthetic model's keys per server (check_servers_have_keys);
/// - the model's shape (DataCheck::shape), which the caller checks the job against
///   (check_runs_fit_their_models, runtime/model_size_checks.h).
/// Throws DataError (file:line) or ScenarioError (pointer) with prepare_training's messages.
DataCheck check_data_cheaply(const Scenario& scenario);

}  // namespace pstwin
