// OptimizerState: a server optimizer's per-key state as plain data, for checkpoints and replica
// transfer. Below both the optimizer (runtime/optimizer.h) and the checkpoint format
// (runtime/checkpoint/shard_checkpoint.h), so that a checkpoint needs no optimizer code
// (DESIGN.md, "Layers").
#pragma once

#include <cstdint>
#include <vector>

namespace pstwin {

/// The optimizer's per-key state. `first` holds momentum's velocity, Adagrad's sum of squares or
/// Adam's m (empty for sgd); `second` holds Adam's v (empty otherwise); each non-empty vector has
/// one float per parameter of the shard, in the shard's order. `steps` is the number of
/// ServerOptimizer::apply()/apply_rows() calls so far (Adam's t).
struct OptimizerState {
  std::vector<float> first, second;
  std::uint64_t steps = 0;
};

}  // namespace pstwin
