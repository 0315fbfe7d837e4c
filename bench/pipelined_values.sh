#!/usr/bin/env bash
# Before/after figures for pipelined values over ZeroMQ (wire version 7: a long values section goes
# as several parts; DESIGN.md, "Pipelined values"): the push + pull time of 10M float32 values,
# 1 server, 1 worker, under --insecure and under CURVE, for several pstwin binaries run in
# interleaved rounds (each round runs every binary once, in an order that rotates), so that a
# loaded machine slows them alike. Prints each binary's median and its ratio to the first's.
# Then the peak memory of each binary's largest process, as bench/transports.sh takes it. Each
# run is also printed on stderr as it ends, so a run cut short still leaves its figures.
# Not a test: it takes minutes, and its figures are ratios, not pass/fail.
#
# usage: bench/pipelined_values.sh ROUNDS NAME=BINARY [NAME=BINARY...]
#   e.g. bench/pipelined_values.sh 5 before=/tmp/pstwin-v6 after=build/cli/pstwin
#   MODES="ucx insecure" bench/pipelined_values.sh 5 ...  (modes: insecure, curve, ucx; default
#   "insecure curve")
#   (the first binary is the one ratios are taken against; each must be a whole pstwin build,
#   since nodes of different wire versions refuse each other)
#   IPERF=1: also measure iperf3's TCP over loopback at the start of every round (3 s), and print
#   each median as a share of the rounds' median rate (issue 14's ZeroMQ goal: 60% or more)
#   MEMORY=0: leave out the peak memory section
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { sed -n 's/^#   \{0,1\}//p' "$0" | sed -n '/^usage/,$p' >&2; exit 2; }
rounds=$1; shift
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS: expected a positive whole number, got '$rounds'" >&2; exit 2; }
names=(); bins=()
for arg in "$@"; do
  [[ $arg == *=* ]] || { echo "expected NAME=BINARY, got '$arg'" >&2; exit 2; }
  names+=("${arg%%=*}"); bins+=("${arg#*=}")
  [ -x "${arg#*=}" ] || { echo "$arg: not an executable" >&2; exit 2; }
done
# MODES (default "insecure curve"): ZeroMQ --insecure, ZeroMQ under CURVE, and ucx (--transport
# ucx --insecure: servers and workers over UCX, shared memory here).
read -r -a modes <<<"${MODES:-insecure curve}"
mode_flags() {
  case $1 in
    insecure) echo --transport zmq --insecure ;;
    curve) echo --transport zmq ;;
    ucx) echo --transport ucx --insecure ;;
    *) echo "MODES: unknown mode '$1' (insecure, curve, ucx)" >&2; exit 2 ;;
  esac
}
for mode in "${modes[@]}"; do mode_flags "$mode" >/dev/null || exit 2; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/base.json" <<'JSON'
{"name": "pushpull", "seed": 1,
 "model": {"type": "synthetic", "parameters": 10000000},
 "training": {"iterations": 12, "eval_every": 1},
 "consistency": [{"mode": "asp"}],
 "cluster": {"workers": 1, "servers": 1,
   "worker": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "10us"}},
   "server": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "10us"}}}}
JSON

# One run: milliseconds per push + pull, between the evaluation rows of clocks 2 and 12 (the first
# two iterations fault in the buffers every later one reuses).
run_ms() {  # binary transport-flags...
  local bin=$1; shift
  local out="$work/run-$RANDOM$RANDOM"
  # A run that fails (on a loaded machine, mostly a node slow to start) is said and left out.
  "$bin" launch "$work/base.json" "$@" --connect-timeout 120 --out "$out" >"$out.log" 2>&1 ||
    { echo "run failed, left out: $bin $*: $(grep -m1 -i -e error -e 'only .* registered' "$out.log")" >&2; return 0; }
  /usr/bin/python3 - "$out/asp/metrics.csv" <<'PY'
import csv, sys
rows = {int(r["clock"]): float(r["time_s"]) for r in csv.DictReader(open(sys.argv[1]))}
print(f"{(rows[12] - rows[2]) / 10 * 1e3:.1f}")
PY
  rm -rf "$out" "$out.log"
}

# iperf3's loopback TCP rate in GB/s, one stream for 3 s (as bench/transports.sh takes it).
iperf_gbps() {
  iperf3 -s -1 -p 5298 >/dev/null 2>&1 &
  local server=$!
  sleep 0.5
  iperf3 -c 127.0.0.1 -p 5298 -t 3 -J 2>/dev/null |
    /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]/8e9)'
  wait "$server" 2>/dev/null || true
}
if [ "${IPERF:-0}" = 1 ] && ! command -v iperf3 >/dev/null; then echo "IPERF=1 needs iperf3" >&2; exit 2; fi
n=${#bins[@]}
for r in $(seq 1 "$rounds"); do
  if [ "${IPERF:-0}" = 1 ]; then echo "iperf3 - $(iperf_gbps)" | tee -a "$work/times.txt" >&2; fi
  for mode in "${modes[@]}"; do
    flags=($(mode_flags $mode))
    for k in $(seq 0 $((n - 1))); do
      i=$(((k + r) % n))  # rotate the order each round
      ms=$(run_ms "${bins[$i]}" "${flags[@]}")
      [ -n "$ms" ] && echo "$mode ${names[$i]} $ms" | tee -a "$work/times.txt" >&2
    done
  done
  echo "round $r of $rounds done" >&2
done

/usr/bin/python3 - "$work/times.txt" "${modes[*]}" "${names[@]}" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
names = sys.argv[3:]
print(f"{'transport':<10} {'binary':<12} {'median ms':>10} {'vs ' + names[0]:>10}   runs (ms, push + pull of 10M values)")
gbps = [float(r[2]) for r in rows if r[0] == "iperf3"]
ceiling = statistics.median(gbps) if gbps else None
for mode in sys.argv[2].split():
    med = {n: statistics.median([float(r[2]) for r in rows if r[0] == mode and r[1] == n] or [float("nan")])
           for n in names}
    for n in names:
        runs = " ".join(r[2] for r in rows if r[0] == mode and r[1] == n)
        # A push + pull moves two frames of 40 MB of values and 116 bytes of header and checksum.
        share = f"   {2 * (4e7 + 116) / (med[n] / 1e3) / 1e9 / ceiling * 100:.1f}% of iperf3" if ceiling else ""
        print(f"{mode:<10} {n:<12} {med[n]:10.1f} {med[names[0]] / med[n]:9.2f}x   {runs}{share}")
if ceiling:
    print(f"iperf3 over loopback: {ceiling:.2f} GB/s, median of {' '.join(f'{g:.2f}' for g in gbps)}")
PY
[ "${MEMORY:-1}" = 0 ] && exit 0

# Peak memory: the largest process of the 10M-value job less that of a 1K-value one, over the
# 40 MB of parameters (bench/transports.sh, "peak memory").
peak_kb() {  # binary parameters transport-flags...
  local bin=$1 p=$2; shift 2
  /usr/bin/time -v "$bin" launch "$work/base.json" "$@" --out "$work/mem-$RANDOM" \
    --set /model/parameters="$p" >/dev/null 2>"$work/mem.log" || { cat "$work/mem.log" >&2; exit 1; }
  sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/mem.log"
}
echo
for i in $(seq 0 $((n - 1))); do
  for mode in "${modes[@]}"; do
    flags=($(mode_flags $mode))
    big=$(peak_kb "${bins[$i]}" 10000000 "${flags[@]}"); small=$(peak_kb "${bins[$i]}" 1000 "${flags[@]}")
    awk -v b="${names[$i]}" -v m=$mode -v big="$big" -v small="$small" 'BEGIN { printf "peak memory, %s, %s: %.0f MB, %.2f x the 40 MB of parameters\n", b, m, big / 1024, (big - small) * 1024 / 40e6 }'
  done
done
