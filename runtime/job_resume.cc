#include "runtime/job_resume.h"

#include "runtime/checkpoint/checkpoint_dir.h"
#include "runtime/errors.h"
#include "runtime/optimizer.h"
#include "runtime/partition.h"
#include "runtime/count_text.h"

namespace pstwin {

ResumePoint load_resume_point(const std::string& dir, const JobSpec& spec,
                              std::vector<std::string>* skipped) {
  const auto clock = latest_complete(dir, skipped);
  if (!clock) throw CheckpointError(dir + ": no complete checkpoint to resume from");
  const auto ranges = load_checkpoint(dir, *clock);
  const auto expected = spec.key_ranges();
  const std::string where = checkpoint_clock_dir(dir, *clock);
  if (ranges.size() != expected.size())
    throw CheckpointError(where + ": " + count_text(ranges.size(), "key range") +
                          ", but the job has " + count_text(expected.size(), "key range") +
                          " (resume with the same servers and partition)");
  if (*clock > static_cast<std::int64_t>(spec.iterations))
    throw CheckpointError(where + ": clock " + std::to_string(*clock) + " is past the job's " +
                          count_text(spec.iterations, "iteration"));
  ResumePoint rp;
  rp.clock = *clock;
  for (std::size_t r = 0; r < ranges.size(); ++r) {
    const ShardCheckpoint& c = ranges[r];
    if (c.key_begin != expected[r].begin || c.key_count != expected[r].size() ||
        c.width != spec.values_per_key())
      throw CheckpointError(where + ": range " + std::to_string(r) + " holds keys [" +
                            std::to_string(c.key_begin) + ", " +
                            std::to_string(c.key_begin + c.key_count) + ") of width " +
                            std::to_string(c.width) + "; the job's range is [" +
                            std::to_string(expected[r].begin) + ", " +
                            std::to_string(expected[r].end) + ") of width " +
                            std::to_string(spec.values_per_key()) + " (another model?)");
    if (!spec.synthetic && c.params.size() != c.key_count * c.width)
      throw CheckpointError(where + ": range " + std::to_string(r) + " has no parameters");
    // The optimizer's state must be what the job's optimizer keeps (momentum's velocity, Adam's
    // two moments, ...): a checkpoint written under another optimizer does not fit.
    try {
      ServerOptimizer check(spec.optimizer, spec.learning_rate, spec.momentum,
                            spec.synthetic ? 0 : c.key_count * c.width);
      check.restore(c.optimizer);
    } catch (const std::invalid_argument& e) {
      throw CheckpointError(where + ": range " + std::to_string(r) +
                            ": its optimizer state does not fit training.optimizer \"" +
                            spec.optimizer.kind + "\" (written under another optimizer?): " + e.what());
    }
    rp.params.push_back(c.params);
    rp.optimizer_first.push_back(c.optimizer.first);
    rp.optimizer_second.push_back(c.optimizer.second);
    rp.optimizer_steps.push_back(c.optimizer.steps);
  }
  return rp;
}

}  // namespace pstwin
