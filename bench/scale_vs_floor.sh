#!/usr/bin/env bash
# Simulation speed of pstwin against the bare-S4U floor (../shared/reference/s4u_ps_floor.cpp):
# the same synchronous push/pull pattern (W workers x S servers x R rounds, P float32
# parameters) timed in one run, with peak memory. Prints one line per program and the ratio.
#
# usage: bench/scale_vs_floor.sh [WORKERS SERVERS ROUNDS PARAMETERS]   (default 1024 16 20 10000000)
# needs: a built pstwin (BUILD, default ./build) and the reference program's source beside the
# checkout (../shared/reference); it is compiled into $BUILD/bench/ on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
W=${1:-1024} S=${2:-16} R=${3:-20} P=${4:-10000000}
BUILD=${BUILD:-build}
FLOOR_SRC=../shared/reference/s4u_ps_floor.cpp
FLOOR_BIN=$BUILD/bench/s4u_ps_floor
[ -x "$BUILD/cli/pstwin" ] || { echo "no $BUILD/cli/pstwin: build first" >&2; exit 2; }
if [ ! -x "$FLOOR_BIN" ]; then
  [ -f "$FLOOR_SRC" ] || { echo "reference program $FLOOR_SRC not found" >&2; exit 2; }
  mkdir -p "$(dirname "$FLOOR_BIN")"
  g++ -O2 -std=c++17 "$FLOOR_SRC" -o "$FLOOR_BIN" $(pkg-config --cflags --libs simgrid)
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The floor: 1 Tflop/s hosts, 10 Gbit/s links, 10 us latency; worker compute 1e10 flops/round.
/usr/bin/time -f "%e %M" -o "$out/floor.time" "$FLOOR_BIN" "$W" "$S" "$R" "$P" >"$out/floor.log" 2>&1
# pstwin: scenarios/scale-synthetic.json has the same platform and per-iteration work.
/usr/bin/time -f "%e %M" -o "$out/pstwin.time" "$BUILD/cli/pstwin" simulate scenarios/scale-synthetic.json \
  --quiet --jobs 1 --out "$out/run" --set /cluster/workers="$W" --set /cluster/servers="$S" \
  --set /training/iterations="$R" --set /model/parameters="$P" >"$out/pstwin.log" 2>&1

read -r floor_s floor_kb <"$out/floor.time"
read -r ps_s ps_kb <"$out/pstwin.time"
floor_sim=$(grep -o 'simulated [0-9.]*' "$out/floor.log" | awk '{print $2}')
ps_sim=$(/usr/bin/python3 -c "import json;print(json.load(open('$out/run/bsp/summary.json'))['sim_time_s'])")
printf 'pattern: %s workers x %s servers x %s rounds, %s parameters\n' "$W" "$S" "$R" "$P"
printf 'floor : wall %8.2f s  peak %7.1f MiB  simulated %s s\n' "$floor_s" "$(echo "$floor_kb/1024" | bc -l)" "$floor_sim"
printf 'pstwin: wall %8.2f s  peak %7.1f MiB  simulated %s s\n' "$ps_s" "$(echo "$ps_kb/1024" | bc -l)" "$ps_sim"
printf 'ratio (pstwin / floor): wall %.2f  peak memory %.2f\n' "$(echo "$ps_s/$floor_s" | bc -l)" "$(echo "$ps_kb/$floor_kb" | bc -l)"
