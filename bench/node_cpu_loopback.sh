#!/usr/bin/env bash
# Each node's CPU per clock, real against simulated: launches SCENARIO on this machine's loopback
# (no namespaces, no shaping, CURVE as launch's default), simulates the same job on the calibrated
# platform with an unshaped link, and prints bench/node_cpu.py's side-by-side table and both
# runs' time per clock. Settings as bench/fidelity.sh's: 200 clocks, evaluation every 10, no
# stragglers, nic_send_window 1, cross-traffic off.
#
# usage: bench/node_cpu_loopback.sh SCENARIO WORKERS SERVERS MODE CALIBRATED.json TARGET [OUT]
#   MODE bsp or asp; CALIBRATED.json a `pstwin calibrate` output (e.g. a fidelity run's
#   calibrated-<scenario>.json); OUT defaults to runs/node_cpu. Environment: BIN (default
#   build/cli/pstwin); LINK_BPS and LATENCY_US, the simulated link (default: the unshaped veths'
#   4.0 GB/s and 5.51 us a NIC, as the latest grid measured them).
# Exit status: 0 done; 1 a run failed (its log is printed); 2 bad usage.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 6 ] || [ $# -gt 7 ]; then sed -n '/^# usage/,/^# Exit/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; fi
scenario=$1 workers=$2 servers=$3 mode=$4 calibrated=$(realpath "$5") target=$6 out=${7:-runs/node_cpu}
case $mode in bsp|asp) ;; *) echo "node_cpu_loopback: MODE must be bsp or asp, not '$mode'" >&2; exit 2 ;; esac
[ -f "$calibrated" ] || { echo "node_cpu_loopback: no calibration file $calibrated" >&2; exit 2; }
BIN=$(realpath "${BIN:-build/cli/pstwin}")
link="{\"link\": {\"bandwidth\": \"${LINK_BPS:-4003872379}Bps\", \"latency\": \"${LATENCY_US:-5.51}us\"}}"
common=(--set "/consistency=[{\"mode\": \"$mode\"}]" --set /training/iterations=200 --set /training/eval_every=10
        --set /training/target_metric="$target" --set /cluster/workers="$workers" --set /cluster/servers="$servers"
        --set '/stragglers=[]' --set /cluster/include="$calibrated" --set "/cluster/worker=$link"
        --set "/cluster/server=$link")
mkdir -p "$out"
"$BIN" launch "$scenario" "${common[@]}" --metrics-address none --out "$out/real" >"$out/launch.log" 2>&1 ||
  { cat "$out/launch.log" >&2; exit 1; }
"$BIN" simulate "$scenario" "${common[@]}" --cfg network/crosstraffic:0 --set '/simulation={"nic_send_window":1}' \
  --quiet --out "$out/sim" >"$out/simulate.log" 2>&1 || { cat "$out/simulate.log" >&2; exit 1; }
/usr/bin/python3 bench/node_cpu.py "$out/real/$mode" "$out/sim/$mode"
for side in real sim; do
  /usr/bin/python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))[1:]
print(sys.argv[2], "%.3f ms per clock" % (1e3 * (float(rows[-1][0]) - float(rows[0][0])) / (float(rows[-1][1]) - float(rows[0][1]))))
' "$out/$side/$mode/metrics.csv" "$side"
done
