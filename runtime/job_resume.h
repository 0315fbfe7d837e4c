// Resuming a job from its newest complete checkpoint. Part of the job's setup, above the roles:
// it fits a checkpoint (runtime/checkpoint/) to a JobSpec, its partition and its optimizer
// (DESIGN.md, "Layers").
#pragma once

#include <string>
#include <vector>

#include "runtime/roles/job.h"

namespace pstwin {

/// The newest complete checkpoint in `dir` (checkpoint_dir.h layout) as a ResumePoint for the job
/// `spec` describes. Skipped newer checkpoints (incomplete or corrupt) are appended to `skipped`
/// when it is not null. Throws CheckpointError naming `dir` when it holds no complete checkpoint,
/// or when the checkpoint does not fit the job: another number of key ranges (servers), ranges
/// that differ from the job's range partition, another row width, optimizer state that the job's
/// optimizer does not keep (another training.optimizer), or a clock beyond the job's iterations.
ResumePoint load_resume_point(const std::string& dir, const JobSpec& spec,
                              std::vector<std::string>* skipped = nullptr);

}  // namespace pstwin
