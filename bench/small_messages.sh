#!/usr/bin/env bash
# Issue 14's small-message goal, measured as fairly as a shared machine allows: a push + pull of
# 1K float32 values (1 worker, 1 server, ASP; transports.sh's 1K rows) over ZeroMQ --insecure,
# UCX --insecure and in process, against the bare ZeroMQ DEALER/ROUTER round trip of the same
# bytes (transport_ceilings_bench's BM_ZmqDealerRouterRoundTrip/1000: two peers with their own
# contexts, blocking recv). Goal: ZeroMQ --insecure within 1.5x of the bare round trip.
#
# REPEATS rounds (default 5); each round runs every case once, in a new random order, so that a
# change in the machine's load falls on all of them alike. One line per round, microseconds per
# push + pull (pstwin: between the first and last evaluation rows of metrics.csv, which leaves out
# start-up; the floor: Google Benchmark's real time), and the ratio ZeroMQ / floor of that round;
# then the median of each column. With BEFORE=path/to/an/older/pstwin its ZeroMQ and in-process
# runs join each round too ("zmq-before", "inproc-before"), for a before/after in one run.
#
# usage: [REPEATS=5] [BEFORE=pstwin-binary] nice bench/small_messages.sh
#        (needs build/cli/pstwin and build/bench/transport_ceilings_bench)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/cli/pstwin}
CEIL=${CEIL:-build/bench/transport_ceilings_bench}
REPEATS=${REPEATS:-5}
ITERATIONS=${ITERATIONS:-4000}
for b in "$BIN" "$CEIL" ${BEFORE:+"$BEFORE"}; do [ -x "$b" ] || { echo "no $b: build first" >&2; exit 2; }; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/base.json" <<JSON
{"name": "pushpull", "seed": 1,
 "model": {"type": "synthetic", "parameters": 1000},
 "training": {"iterations": $ITERATIONS, "eval_every": $((ITERATIONS / 2))},
 "consistency": [{"mode": "asp"}],
 "cluster": {"workers": 1, "servers": 1,
   "worker": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "10us"}},
   "server": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "10us"}}}}
JSON
cases=(floor zmq ucx inproc)
[ -n "${BEFORE:-}" ] && cases+=(zmq-before inproc-before)

run_case() {  # case -> microseconds per push + pull on stdout
  local c=$1 bin=$BIN flags
  case $c in
    floor)
      "$CEIL" --benchmark_filter='ZmqDealerRouterRoundTrip/1000/' --benchmark_min_time=1 \
        --benchmark_format=json 2>/dev/null |
        /usr/bin/python3 -c 'import json,sys; b=json.load(sys.stdin)["benchmarks"][0]; print(b["real_time"]*{"ns":1e-3,"us":1,"ms":1e3}[b["time_unit"]])'
      return ;;
    zmq|zmq-before) flags=(--transport zmq --insecure) ;;
    ucx) flags=(--transport ucx --insecure) ;;
    inproc|inproc-before) flags=(--transport inproc) ;;
  esac
  [[ $c == *-before ]] && bin=$BEFORE
  local out="$work/$c-$RANDOM"
  "$bin" launch "$work/base.json" "${flags[@]}" --out "$out" >"$out.log" 2>&1 ||
    { echo "$c failed:" >&2; cat "$out.log" >&2; exit 1; }
  /usr/bin/python3 - "$out/asp/metrics.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print((float(rows[-1]["time_s"]) - float(rows[0]["time_s"])) /
      (int(rows[-1]["clock"]) - int(rows[0]["clock"])) * 1e6)
PY
}

printf '%-6s' round; printf ' %14s' "${cases[@]}" "zmq/floor"; echo
for r in $(seq 1 "$REPEATS"); do
  declare -A us=()
  for c in $(printf '%s\n' "${cases[@]}" | shuf); do us[$c]=$(run_case "$c"); done
  printf '%-6s' "$r"
  for c in "${cases[@]}"; do printf ' %14.1f' "${us[$c]}"; done
  awk -v z="${us[zmq]}" -v f="${us[floor]}" 'BEGIN { printf " %14.2f\n", z / f }'
  for c in "${cases[@]}"; do echo "$c ${us[$c]}"; done >>"$work/rows.txt"
  echo "ratio $(awk -v z="${us[zmq]}" -v f="${us[floor]}" 'BEGIN { print z / f }')" >>"$work/rows.txt"
  unset us
done
/usr/bin/python3 - "$work/rows.txt" "${cases[@]}" ratio <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
line = "median"
for c in sys.argv[2:]:
    v = statistics.median(float(x) for name, x in rows if name == c)
    line += f" {v:14.2f}" if c == "ratio" else f" {v:14.1f}"
print(line)
ratios = sorted(float(x) for name, x in rows if name == "ratio")
print(f"goal (ZeroMQ --insecure within 1.5x of the bare round trip, same round): "
      f"met in {sum(r <= 1.5 for r in ratios)} of {len(ratios)} rounds; ratios {', '.join(f'{r:.2f}' for r in ratios)}")
PY
