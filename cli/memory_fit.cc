#include "cli/memory_fit.h"

#include <unistd.h>

#include <algorithm>
#include <functional>

#include "runtime/count_text.h"
#include "runtime/model_size_checks.h"

namespace pstwin::cli {

namespace {

/// "(the scheduler 2.97 GiB, each of 4 servers 6.68 GiB, each of 16 workers 3.97 GiB; 398459650
/// parameters)": what the whole job's figure is made of.
std::string parts_text(const RunMemory& r) {
  const MemoryEstimate& m = r.estimate;
  return "(the scheduler " + bytes_text(m.scheduler_bytes) + ", " + each_of_text(r.servers, "server") + " " +
         bytes_text(m.server_bytes) + ", " + each_of_text(r.workers, "worker") + " " + bytes_text(m.worker_bytes) +
         "; " + count_text(m.parameters, "parameter") + ")";
}

}  // namespace

RunMemory run_memory(const Scenario& scenario, std::size_t i, const ModelKeys& keys) {
  const Scenario run = scenario_for_variant(scenario, i);
  return {"variant " + run.consistency.front().name, estimate_memory(run, keys), run.cluster.servers,
          run.cluster.workers, run.model.type == "synthetic"};
}

std::vector<RunMemory> prepared_memory(const Scenario& scenario, const VariantRuns& runs) {
  std::vector<RunMemory> out;
  for (std::size_t i = 0; i < runs.scenarios.size(); ++i) {
    const auto synthetic = synthetic_model_keys(runs.scenarios[i]);
    out.push_back(run_memory(scenario, i, synthetic ? *synthetic : model_keys(*runs.prepared_for(i).model)));
  }
  return out;
}

std::uint64_t machine_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

std::string memory_line(const RunMemory& r) {
  const MemoryEstimate& m = r.estimate;
  // Its figures are all 0, which read as a model of no size (a trial's "0 bytes").
  if (r.synthetic)
    return "memory (" + r.run + "): model synthetic holds no parameter values: its " +
           count_text(m.parameters, "parameter") + " of float32 (" +
           bytes_text(m.parameters > UINT64_MAX / 4 ? UINT64_MAX : m.parameters * 4) +
           ") are virtual, priced on the wire and in compute only; no node stores them";
  return "memory (" + r.run + "): " + count_text(m.parameters, "parameter") + " of float32: " +
         each_of_text(r.servers, "server") + " needs at least " + bytes_text(m.server_bytes) +
         " (its shard, optimizer state, replicas and buffered gradients), " + each_of_text(r.workers, "worker") +
         " " + bytes_text(m.worker_bytes) + ", the scheduler " + bytes_text(m.scheduler_bytes) +
         "; all on one machine (a simulated run, a launch without --hostfile) " + bytes_text(m.job_bytes);
}

std::string memory_refusal(const std::vector<RunMemory>& runs, unsigned jobs, std::uint64_t machine_bytes) {
  if (machine_bytes == 0 || runs.empty()) return "";
  for (const RunMemory& r : runs)
    if (r.estimate.job_bytes > machine_bytes)
      return r.run + " needs at least " + bytes_text(r.estimate.job_bytes) + " for its model's floats " +
             parts_text(r) + ", more than this machine's " + bytes_text(machine_bytes) +
             " of memory: give a smaller model, or fewer workers or servers";
  // The runs that may be in memory at once: the largest `jobs` of them.
  std::vector<std::uint64_t> sizes;
  for (const RunMemory& r : runs) sizes.push_back(r.estimate.job_bytes);
  std::sort(sizes.begin(), sizes.end(), std::greater<>());
  const std::size_t at_once = std::min<std::size_t>(std::max(jobs, 1u), sizes.size());
  std::uint64_t together = 0;
  std::size_t fit = 0;  // how many of the largest fit together
  for (std::size_t k = 0; k < at_once; ++k) {
    together = together > UINT64_MAX - sizes[k] ? UINT64_MAX : together + sizes[k];
    if (together <= machine_bytes) fit = k + 1;
  }
  if (together <= machine_bytes) return "";
  return count_text(at_once, "run") + " at once (--jobs " + std::to_string(jobs) + ") need at least " +
         bytes_text(together) + " for their models' floats, more than this machine's " + bytes_text(machine_bytes) +
         " of memory: give --jobs " + std::to_string(fit);
}

std::string memory_warning(const RunMemory& r, std::uint64_t machine_bytes) {
  if (machine_bytes == 0 || r.estimate.job_bytes <= machine_bytes) return "";
  return "warning: " + r.run + "'s nodes need at least " + bytes_text(r.estimate.job_bytes) + " together " +
         parts_text(r) + ", more than this machine's " + bytes_text(machine_bytes) +
         " of memory: it cannot run on one machine like this one (simulate, sweep and a launch without --hostfile refuse it)";
}

}  // namespace pstwin::cli
