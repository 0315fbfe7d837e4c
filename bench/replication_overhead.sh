#!/usr/bin/env bash
# Cost of server replication on push throughput over ZeroMQ (loopback, CURVE on), in one run:
# replication 1 (no backups), 2 and 3, against the same job without fault tolerance.
#
# A timing-only job, ASP, 4 workers, 3 servers, P float32 parameters: every iteration of every
# worker pushes P values (split over the 3 key ranges) and pulls them back. With replication R,
# each push is forwarded to R-1 backups and its pull reply waits for their acks (primary-backup,
# see runtime/roles/server.h), so a push costs R transfers of its values and one more round trip.
# Time is taken between the first and last evaluation rows of metrics.csv.
#
# usage: bench/replication_overhead.sh      (needs build/cli/pstwin)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/cli/pstwin}
[ -x "$BIN" ] || { echo "no $BIN: build first" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/base.json" <<'JSON'
{"name": "replication", "seed": 1,
 "model": {"type": "synthetic", "parameters": 1000},
 "training": {"iterations": 100, "eval_every": 50},
 "consistency": [{"mode": "asp"}],
 "cluster": {"workers": 4, "servers": 3,
   "worker": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "10us"}},
   "server": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "10us"}}}}
JSON

printf '%-10s %-12s %12s %10s\n' values replication "push+pull/s" "vs none"
for P in 3000 3000000; do
  case $P in 3000) iters=3000 ;; *) iters=40 ;; esac
  base_rate=""
  for R in none 1 2 3; do
    out="$work/p$P-r$R"
    ft=()
    [ "$R" != none ] && ft=(--set "/fault_tolerance={\"replication\": $R}")
    "$BIN" launch "$work/base.json" --out "$out" --set /model/parameters=$P \
      --set /training/iterations=$iters --set /training/eval_every=$((iters / 2)) "${ft[@]}" \
      >"$out.log" 2>&1 || { echo "run failed:"; cat "$out.log"; exit 1; }
    rate=$(/usr/bin/python3 - "$out/asp/metrics.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
t0, t1 = float(rows[0]["time_s"]), float(rows[-1]["time_s"])
c0, c1 = int(rows[0]["clock"]), int(rows[-1]["clock"])
print((c1 - c0) * 4 / (t1 - t0))
PY
)
    [ -z "$base_rate" ] && base_rate=$rate
    /usr/bin/python3 -c "import sys; r=float(sys.argv[1]); b=float(sys.argv[2]); print(f'{sys.argv[3]:<10} {sys.argv[4]:<12} {r:12.0f} {r/b:10.2f}')" \
      "$rate" "$base_rate" "$P" "$R"
  done
done
