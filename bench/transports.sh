#!/usr/bin/env bash
# Push/pull throughput of pstwin over ZeroMQ on loopback, with a plain TCP stream (iperf3) over
# loopback measured in the same run as the ceiling.
#
# Each case runs `pstwin launch` on a timing-only scenario: 1 server, W workers, P float32
# parameters, ASP, so every iteration of every worker is one push of P values and one pull reply
# of P values (the real roles, codec and CURVE security). Time is taken between the first and
# the last evaluation row of metrics.csv, which leaves out process start and rendezvous.
#
# usage: bench/zmq_pushpull.sh            (needs build/cli/pstwin; iperf3 optional)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/cli/pstwin}
[ -x "$BIN" ] || { echo "no $BIN: build first" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"; [ -n "${iperf_pid:-}" ] && kill "$iperf_pid" 2>/dev/null || true' EXIT

if command -v iperf3 >/dev/null; then
  iperf3 -s -1 -p 5299 >/dev/null 2>&1 & iperf_pid=$!
  sleep 0.5
  gbps=$(iperf3 -c 127.0.0.1 -p 5299 -t 3 -J 2>/dev/null |
         /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]/8e9)')
  printf 'ceiling: iperf3 TCP over loopback, 1 stream: %.2f GB/s\n' "$gbps"
else
  echo "ceiling: iperf3 not installed (apt-get install iperf3)"
fi

cat >"$work/base.json" <<'JSON'
{"name": "pushpull", "seed": 1,
 "model": {"type": "synthetic", "parameters": 1000},
 "training": {"iterations": 100, "eval_every": 50},
 "consistency": [{"mode": "asp"}],
 "cluster": {"workers": 1, "servers": 1,
   "worker": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "10us"}},
   "server": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "10us"}}}}
JSON

printf '%-8s %-9s %-7s %10s %12s %14s\n' workers values iters "GB/s" "push+pull/s" "us/iteration"
for P in 1000 100000 10000000; do
  case $P in 1000) iters=4000 ;; 100000) iters=400 ;; *) iters=10 ;; esac
  for W in 1 2 4; do
    out="$work/w$W-p$P"
    "$BIN" launch "$work/base.json" --out "$out" --set /cluster/workers=$W \
      --set /model/parameters=$P --set /training/iterations=$iters \
      --set /training/eval_every=$((iters / 2)) >"$out.log" 2>&1 || { echo "run failed: see log"; cat "$out.log"; exit 1; }
    /usr/bin/python3 - "$out/asp/metrics.csv" "$W" "$P" "$iters" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
w, p, iters = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
t0, t1 = float(rows[0]["time_s"]), float(rows[-1]["time_s"])
c0, c1 = int(rows[0]["clock"]), int(rows[-1]["clock"])
done = (c1 - c0) * w                      # iterations completed in the window, all workers
secs = t1 - t0
bytes_moved = done * 2 * (p * 4 + 92)     # one push and one pull reply, header and CRC included
print(f"{w:<8} {p:<9} {iters:<7} {bytes_moved / secs / 1e9:10.3f} {done / secs:12.0f} {secs / (c1 - c0) * 1e6:14.1f}")
PY
  done
done
