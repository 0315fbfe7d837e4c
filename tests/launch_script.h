// Helpers of the launch tests that stop or lose a job on purpose: a job that never ends by
// itself, and bash scripts that start, signal and wait for `pstwin launch`.
#pragma once

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/sim_test_support.h"

namespace pstwin::testing_support {

/// A synthetic BSP job far too long to end by itself in a test (it is stopped), evaluated every
/// 100 clocks so that rows accumulate from the start; no fault tolerance.
inline nlohmann::json endless_job() {
  return nlohmann::json::parse(R"({
    "name": "endless", "seed": 1,
    "model": {"type": "synthetic", "parameters": 1000, "flops_per_iteration": 1000},
    "training": {"iterations": 10000000, "eval_every": 100},
    "consistency": [{"mode": "bsp"}],
    "cluster": {
      "workers": 2, "servers": 1,
      "worker": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}},
      "server": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}}
    }
  })");
}

/// Runs the bash `script` (with $PSTWIN set to the binary) and captures its output and status.
inline CommandResult run_script(const std::string& script) {
  const std::string path = fresh_dir("-script") + "/run.sh";
  std::ofstream(path) << script;
  return run_shell("PSTWIN=" + std::string(PSTWIN_BINARY) + " bash " + path + " 2>&1");
}

/// Bash lines that start `$PSTWIN launch s.json --insecure --out out` in the background in
/// `dir` (stdout to out.txt, stderr to `err`), set $launcher to its pid, and wait (30 s at most)
/// for the job to start (out/bsp/address_book.json).
inline std::string start_launch_script(const std::string& dir, const std::string& err = "&1") {
  return "cd " + dir + "\n"
         "$PSTWIN launch s.json --insecure --out out >out.txt 2>" + err + " &\n"
         "launcher=$!\n"
         "for i in $(seq 1 3000); do [ -s out/bsp/address_book.json ] && break; sleep 0.01; done\n";
}

/// Bash lines that set `var` to the pid of the first child of $launcher whose command line has
/// `--role ROLE`, and $args to that command line, read from /proc (no procps needed).
inline std::string find_launched_node(const std::string& role, const std::string& var) {
  return "for d in /proc/[0-9]*; do\n"
         "  [ \"$(cut -d' ' -f4 $d/stat 2>/dev/null)\" = \"$launcher\" ] || continue\n"
         "  args=$(tr '\\0' ' ' < $d/cmdline)\n"
         "  case \"$args\" in *'--role " + role + "'*) " + var + "=${d#/proc/}; break;; esac\n"
         "done\n";
}

}  // namespace pstwin::testing_support
