// The one encoding of a key range's state in messages: the whole state a primary sends a backup
// (kShardState) and the scheduler's kStart of a range, fresh or resuming from a checkpoint.
// Pure functions of plain values: no Env, no Shard. Layouts: docs/DESIGN.md, "Protocol".
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "runtime/consistency/controller.h"
#include "runtime/message.h"
#include "runtime/optimizer.h"
#include "runtime/partition.h"
#include "runtime/roles/job.h"

namespace pstwin {

/// One worker's gradient buffered for the current BSP clock.
struct BufferedGradient {
  std::uint32_t worker = 0;             ///< worker index
  std::int64_t version = 0;             ///< the parameter version it was computed on
  std::vector<float> values;            ///< the gradient (rows.size() x width when keyed)
  std::vector<std::uint32_t> rows;      ///< keyed: its local rows; empty for a whole range
};

/// Everything a replica of one range holds, as a backup takes it over.
struct ShardState {
  std::int64_t clock = 0;                  ///< the range's clock (informational)
  std::vector<float> params;               ///< keys x width floats (empty: synthetic model)
  OptimizerState optimizer;
  ConsistencyState consistency;
  std::vector<std::uint64_t> last_request;  ///< by worker: request id of the last push applied
  std::vector<BufferedGradient> buffered;   ///< in worker order
  /// Gradients applied since the range's last snapshot, by staleness (index): a backup promoted
  /// later, or a block's new holder after a join, reports them as the old primary would have.
  std::vector<std::uint32_t> staleness_counts;
};

/// The kShardState message of `range` at log position `seq`. Wire layout: values = params ++
/// optimizer first ++ second ++ each buffered gradient in order; data = JSON of the counts,
/// the consistency state, last request ids and each buffer's worker, version and rows, and
/// "staleness" (the counts since the last snapshot) when there are any.
Message shard_state_message(std::uint32_t range, std::uint64_t seq, ShardState state);

/// Reads a kShardState message. Throws ProtocolError (naming the sender and range) when the
/// JSON is malformed or the values do not add up to the layout it describes.
ShardState read_shard_state(const Message& m);

/// Floats a replica of `keys` holds: keys.size() x values_per_key, 0 for the synthetic model.
std::size_t range_floats(const JobSpec& spec, const KeyRange& keys);

/// A checkpoint's state of one range, as a resuming kStart carries it.
struct ResumeStart {
  std::int64_t clock = 0;  ///< the checkpointed range clock: every worker starts there
  OptimizerState optimizer;
};

/// What a server's kStart for one range says.
struct RangeStart {
  std::vector<float> params;         ///< range_floats() floats
  std::optional<ResumeStart> resume;  ///< set when the job resumes from a checkpoint
};

/// The scheduler's kStart for one replica of range `range` (its keys `keys`). Fresh: values =
/// `init`'s floats of the range (`init`: the whole model's initial parameters), or virtual
/// values for the synthetic model. Resuming (spec.resume set; `init` unused): values = params
/// ++ optimizer first ++ second; data = JSON {clock, opt_first, opt_second, opt_steps}.
/// REQUIRES: init holds the whole model unless spec is synthetic or resuming.
Message range_start_message(const JobSpec& spec, std::uint32_t range, const KeyRange& keys,
                            const std::vector<float>& init);

/// Reads a server's kStart for a range of keys `keys` holding `floats` floats (range_floats).
/// Throws ProtocolError (naming the sender and range) when it does not carry the range's first
/// key and size, or carries the wrong number of values, or a malformed resume.
RangeStart read_range_start(const Message& m, const KeyRange& keys, std::size_t floats);

}  // namespace pstwin
