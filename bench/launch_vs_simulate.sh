#!/usr/bin/env bash
# The quickstart's per-iteration time for real (pstwin launch over ZeroMQ on loopback) against
# its simulation on a platform that describes this machine: links at the loopback TCP bandwidth
# measured by iperf3 (or 2 GB/s without it) with 20 us latency, and devices at the flop rate
# and memory bandwidth this machine's CPU kernels reach (KERNEL_GFLOPS, KERNEL_GBPS; defaults
# from build/bench/kernels_bench on a 2-core test machine). Both run BSP only, same iterations.
#
# usage: bench/launch_vs_simulate.sh [ITERATIONS]      (default 200)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/cli/pstwin}
IT=${1:-200}
GFLOPS=${KERNEL_GFLOPS:-15}
GBPS=${KERNEL_GBPS:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
link_GBps=2
if command -v iperf3 >/dev/null; then
  iperf3 -s -1 -p 5298 >/dev/null 2>&1 &
  sleep 0.5
  link_GBps=$(iperf3 -c 127.0.0.1 -p 5298 -t 2 -J 2>/dev/null |
              /usr/bin/python3 -c 'import json,sys; print(round(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]/8e9, 2))')
fi
common=(--set '/consistency=[{"mode":"bsp"}]' --set /training/iterations="$IT" --set /training/eval_every=$((IT / 4)))
platform=(--set "/cluster/worker={\"device\":{\"flops\":\"${GFLOPS}Gf\",\"bandwidth\":\"${GBPS}GBps\"},\"link\":{\"bandwidth\":\"${link_GBps}GBps\",\"latency\":\"20us\"}}"
          --set "/cluster/server={\"device\":{\"flops\":\"${GFLOPS}Gf\",\"bandwidth\":\"${GBPS}GBps\"},\"link\":{\"bandwidth\":\"${link_GBps}GBps\",\"latency\":\"20us\"}}"
          --set '/stragglers=[]')
"$BIN" launch scenarios/quickstart.json "${common[@]}" "${platform[@]}" --out "$work/real" >"$work/real.log" 2>&1
"$BIN" simulate scenarios/quickstart.json "${common[@]}" "${platform[@]}" --quiet --out "$work/sim" >"$work/sim.log" 2>&1
/usr/bin/python3 - "$work" "$link_GBps" "$GFLOPS" "$GBPS" "$(nproc)" <<'PY'
import csv, sys
work, link, gf, gb, cores = sys.argv[1:]
def per_iter(path):
    rows = list(csv.DictReader(open(path)))
    return (float(rows[-1]["time_s"]) - float(rows[0]["time_s"])) / (int(rows[-1]["clock"]) - int(rows[0]["clock"]))
real = per_iter(f"{work}/real/bsp/metrics.csv")
sim = per_iter(f"{work}/sim/bsp/metrics.csv")
print(f"platform: links {link} GB/s, 20 us; devices {gf} GFLOP/s, {gb} GB/s; this machine has {cores} cores for 11 processes")
print(f"launch (ZeroMQ, loopback): {real * 1e3:8.3f} ms per iteration")
print(f"simulate                 : {sim * 1e3:8.3f} ms per iteration")
print(f"ratio launch / simulate  : {real / sim:8.2f}")
PY
