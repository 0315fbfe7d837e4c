// Whether a scenario's runs fit in this machine's memory (runtime/memory_estimate.h makes the
// byte counts): validate reports and warns, simulate and sweep refuse a run that cannot fit,
// launch warns for a job whose nodes all run here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/scenario_options.h"
#include "runtime/memory_estimate.h"

namespace pstwin::cli {

/// One run's estimate, with what names it in messages ("variant bsp", a sweep's run folder).
struct RunMemory {
  std::string run;
  MemoryEstimate estimate;
  std::uint32_t servers = 0;
  std::uint32_t workers = 0;
  /// A synthetic (timing-only) model: its parameters are virtual, priced on the wire and in
  /// compute but holding no values, so the estimate's bytes are 0 (memory_estimate.h).
  bool synthetic = false;
};

/// The estimate of variant `i` of `scenario` (scenario_for_variant) with a model of `keys`.
RunMemory run_memory(const Scenario& scenario, std::size_t i, const ModelKeys& keys);

/// Every variant's estimate from the models `runs` prepared (resolve_variants_or_report with
/// load_data): their sizes are known whatever the data's size. REQUIRES runs' data loaded.
std::vector<RunMemory> prepared_memory(const Scenario& scenario, const VariantRuns& runs);

/// This machine's physical memory in bytes (sysconf; a container's cgroup limit is not read), or 0
/// when it cannot be told.
std::uint64_t machine_memory_bytes();

/// validate's lines for `run`: "memory (variant bsp): 398459650 parameters: each of 4 servers
/// needs at least 6.68 GiB (...), each of 16 workers 3.97 GiB, the scheduler 2.97 GiB; on one
/// machine 93.2 GiB". A synthetic model's: "memory (variant bsp): model synthetic holds no
/// parameter values: its 10000000 parameters of float32 (38.1 MiB) are virtual, priced on the
/// wire and in compute only; no node stores them".
std::string memory_line(const RunMemory& run);

/// Why `runs` cannot run on a machine of `machine_bytes` (0: unknown, never refused) with up to
/// `jobs` of them at once, each a whole job in one process (simulate's variants, sweep's runs), or
/// "" when they fit: the first run whose job alone is larger ("variant bsp needs at least 93.2
/// GiB for its model's floats (...), more than this machine's 23.4 GiB"), else the `jobs`
/// largest together, with the --jobs that fits.
std::string memory_refusal(const std::vector<RunMemory>& runs, unsigned jobs, std::uint64_t machine_bytes);

/// validate's and launch's warning for `run` when its nodes, all on this machine (launch without
/// --hostfile), need more than `machine_bytes`; "" when they fit or the size is unknown.
std::string memory_warning(const RunMemory& run, std::uint64_t machine_bytes);

}  // namespace pstwin::cli
