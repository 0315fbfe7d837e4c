#!/usr/bin/env bash
# Simulating large clusters: the NIC window ("simulation": {"nic_window": K}) against the exact
# model, on scenarios/scale-synthetic.json (16 servers, 10M parameters, 20 BSP rounds, 10 Gbit/s).
# For each worker count in COMPARE it runs both models and prints the per-iteration simulated time
# (between the first and last evaluation, start-up excluded), their difference, and CPU seconds
# (user + system: the machine may be shared, so wall time says little) and peak memory of each;
# then it runs BIG workers with the window alone (the exact model would take hours there) and
# prints the same. With CFG (SimGrid options, e.g. "network/crosstraffic:0"), each window run is
# made again with them added to "simulation.cfg". One run at a time; long (about 10 minutes of CPU).
#
# usage: bench/scale_10k.sh [BIG [K]]   (default 10000 16; BIG 0 skips the big run)
#        COMPARE="256 1024" bench/scale_10k.sh      (the worker counts compared; default "256 1024")
#        CFG="network/crosstraffic:0" bench/scale_10k.sh
# needs: a built pstwin (BUILD, default ./build), /usr/bin/time, /usr/bin/python3.
set -euo pipefail
cd "$(dirname "$0")/.."
BIG=${1:-10000} K=${2:-16}
COMPARE=${COMPARE:-256 1024}
CFG=${CFG:-}
BUILD=${BUILD:-build}
[ -x "$BUILD/cli/pstwin" ] || { echo "no $BUILD/cli/pstwin: build first" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# run NAME WORKERS [--set ...]: simulates, leaves "cpu_s peak_kB" in $out/NAME.time.
run() {
  local name=$1 workers=$2
  shift 2
  /usr/bin/time -f "%U %S %M" -o "$out/$name.time" "$BUILD/cli/pstwin" simulate scenarios/scale-synthetic.json \
    --quiet --jobs 1 --out "$out/$name" --set /cluster/workers="$workers" "$@" >"$out/$name.log" 2>&1 ||
    { cat "$out/$name.log" >&2; exit 1; }
}
# per_iteration NAME: simulated seconds per round between the first and last evaluation.
per_iteration() {
  /usr/bin/python3 - "$out/$1/bsp/metrics.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
a, b = rows[0], rows[-1]
print(f"{(float(b['time_s']) - float(a['time_s'])) / (int(b['clock']) - int(a['clock'])):.6f}")
EOF
}
# line LABEL NAME: one row of the table.
line() {
  read -r user sys kb <"$out/$2.time"
  printf '%-34s %12s s %9.1f s %9.0f MiB\n' "$1" "$(per_iteration "$2")" "$(echo "$user + $sys" | bc -l)" \
    "$(echo "$kb/1024" | bc -l)"
}

window="--set /simulation={\"nic_window\":$K}"  # the scenario has no "simulation" section
cfg_list=$(printf '"%s",' $CFG)
with_cfg="--set /simulation={\"nic_window\":$K,\"cfg\":[${cfg_list%,}]}"
# difference NAME: per iteration of NAME against the exact run of the same count ($e).
difference() {
  printf '%-34s %+13.2f %%\n' "  difference" "$(echo "($(per_iteration "$1") - $e) / $e * 100" | bc -l)"
}
printf '%-34s %14s %11s %13s\n' "run (16 servers, 10M)" "per iteration" "CPU" "peak memory"
for w in $COMPARE; do
  run "exact-$w" "$w"
  run "window-$w" "$w" $window
  line "$w workers, exact" "exact-$w"
  line "$w workers, nic_window $K" "window-$w"
  e=$(per_iteration "exact-$w")
  difference "window-$w"
  if [ -n "$CFG" ]; then
    run "cfg-$w" "$w" $with_cfg
    line "$w workers, nic_window $K + $CFG" "cfg-$w"
    difference "cfg-$w"
  fi
done
[ "$BIG" -gt 0 ] || exit 0
run "window-$BIG" "$BIG" $window
line "$BIG workers, nic_window $K" "window-$BIG"
if [ -n "$CFG" ]; then
  run "cfg-$BIG" "$BIG" $with_cfg
  line "$BIG workers, nic_window $K + $CFG" "cfg-$BIG"
fi
