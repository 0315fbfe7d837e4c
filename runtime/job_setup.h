// Turning a validated Scenario into what the roles need: data, model, partitions, JobSpec.
#pragma once

#include <memory>
#include <vector>

#include "runtime/data/dataset.h"
#include "runtime/model/model.h"
#include "runtime/output/run_recorder.h"
#include "runtime/roles/job.h"
#include "runtime/scenario/scenario.h"

namespace pstwin {

/// Data and model of a scenario, loaded once and shared read-only by every variant and node.
struct PreparedTraining {
  std::unique_ptr<Dataset> train;   ///< null for the synthetic model
  std::unique_ptr<Dataset> test;
  std::unique_ptr<Model> model;
  std::vector<std::vector<std::uint32_t>> worker_rows;
  std::vector<std::uint32_t> train_eval_rows;
};

/// Loads the scenario's data (DataError on a bad file, and naming the file and line of a label
/// the model cannot learn: check_labels_fit), builds its model (ScenarioError at /model when the
/// data does not fit it otherwise, e.g. no features), and partitions the
/// training rows over the workers: "contiguous" gives worker w rows [w*N/W, (w+1)*N/W); "shuffled"
/// does the same over a permutation seeded by the scenario seed. Throws ScenarioError at
/// /cluster/workers when there are fewer training rows than workers.
PreparedTraining prepare_training(const Scenario& scenario);

/// Whether prepare_training gives the same result for `a` and `b` (same data and model sections,
/// seed and number of workers), so that variants may share one preparation.
bool same_preparation(const Scenario& a, const Scenario& b);

/// The test metric of the prepared model (Model::metric_name, higher_is_better), for RunRecorder;
/// an empty name for the synthetic model, which has none.
MetricGoal metric_goal(const PreparedTraining& prepared);

/// The JobSpec of one consistency variant. `prepared` must outlive the returned spec.
JobSpec make_job_spec(const Scenario& scenario, const ConsistencyVariant& variant,
                      const PreparedTraining& prepared);

}  // namespace pstwin
