#!/usr/bin/env bash
# Simulating large clusters: the NIC window ("simulation": {"nic_window": K}) against the exact
# model, on scenarios/scale-synthetic.json (16 servers, 10M parameters, 20 BSP rounds, 10 Gbit/s).
# For each worker count in COMPARE it runs both models and prints the per-iteration simulated time
# (between the first and last evaluation, start-up excluded), their difference, and wall time and
# peak memory of each; then it runs BIG workers with the window alone (the exact model would take
# hours there) and prints the same. One run at a time; long (about 10 minutes on 2 free cores).
#
# usage: bench/scale_10k.sh [BIG [K]]   (default 10000 16)
#        COMPARE="256 1024" bench/scale_10k.sh      (the worker counts compared; default "256 1024")
# needs: a built pstwin (BUILD, default ./build), /usr/bin/time, /usr/bin/python3.
set -euo pipefail
cd "$(dirname "$0")/.."
BIG=${1:-10000} K=${2:-16}
COMPARE=${COMPARE:-256 1024}
BUILD=${BUILD:-build}
[ -x "$BUILD/cli/pstwin" ] || { echo "no $BUILD/cli/pstwin: build first" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# run NAME WORKERS [--set ...]: simulates, leaves "wall_s peak_kB" in $out/NAME.time.
run() {
  local name=$1 workers=$2
  shift 2
  /usr/bin/time -f "%e %M" -o "$out/$name.time" "$BUILD/cli/pstwin" simulate scenarios/scale-synthetic.json \
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
  read -r wall kb <"$out/$2.time"
  printf '%-26s %12s s %9.1f s %9.0f MiB\n' "$1" "$(per_iteration "$2")" "$wall" "$(echo "$kb/1024" | bc -l)"
}

window="--set /simulation={\"nic_window\":$K}"  # the scenario has no "simulation" section
printf '%-26s %14s %11s %13s\n' "run (16 servers, 10M)" "per iteration" "wall" "peak memory"
for w in $COMPARE; do
  run "exact-$w" "$w"
  run "window-$w" "$w" $window
  line "$w workers, exact" "exact-$w"
  line "$w workers, nic_window $K" "window-$w"
  e=$(per_iteration "exact-$w") c=$(per_iteration "window-$w")
  printf '%-26s %+13.2f %%\n' "  difference" "$(echo "($c - $e) / $e * 100" | bc -l)"
done
run "window-$BIG" "$BIG" $window
line "$BIG workers, nic_window $K" "window-$BIG"
