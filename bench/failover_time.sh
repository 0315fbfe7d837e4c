#!/usr/bin/env bash
# Failover time: from the failure of a primary server to the first push its key range applies
# again (the "failover_first_push" event of the promoted backup).
#   1. In simulation, as a function of the heartbeat timeout (interval = timeout / 5): a
#      timing-only BSP job, 4 workers, 2 servers, replication 2, server 0 failing at 1 s.
#   2. In real runs over ZeroMQ on this machine (SIGKILL to the primary's process, at 0.5 s).
# Detection dominates: a failure is noticed between timeout and timeout + interval after it, and
# promotion, state transfer and the workers' resends take a few round trips more.
#
# usage: bench/failover_time.sh        (needs build/cli/pstwin)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/cli/pstwin}
[ -x "$BIN" ] || { echo "no $BIN: build first" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/sim.json" <<'JSON'
{"name": "failover", "seed": 1,
 "model": {"type": "synthetic", "parameters": 1000000, "flops_per_iteration": 2e9},
 "training": {"iterations": 400, "eval_every": 100},
 "consistency": [{"mode": "bsp"}],
 "cluster": {"workers": 4, "servers": 2,
   "worker": {"device": {"flops": "1Tf", "bandwidth": "1TBps"}, "link": {"bandwidth": "10Gbps", "latency": "50us"}},
   "server": {"device": {"flops": "1Tf", "bandwidth": "1TBps"}, "link": {"bandwidth": "10Gbps", "latency": "50us"}}},
 "fault_tolerance": {"replication": 2},
 "failures": [{"node": "server:0", "at": "1s"}]}
JSON

# The events of a run: failure time, declared-dead time, first push after failover.
summarize() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
events = [json.loads(l) for l in open(sys.argv[1])]
failed = min(e["time_s"] for e in events if e["type"] == "node_failed")
dead = min(e["time_s"] for e in events if e["type"] == "node_dead")
first = [e["time_s"] for e in events if e["type"] == "failover_first_push"]
print(f"{sys.argv[2]:<26} {dead - failed:12.3f} {(first[0] - failed) if first else float('nan'):16.3f}")
PY
}

echo "simulated (timing-only BSP job; seconds of simulated time after the failure)"
printf '%-26s %12s %16s\n' "heartbeat timeout" "declared" "first push"
for t in 0.01 0.05 0.1 0.2 0.5 1; do
  i=$(/usr/bin/python3 -c "print($t / 5)")
  "$BIN" simulate "$work/sim.json" --quiet --out "$work/sim-$t" \
    --set /fault_tolerance/heartbeat_timeout="${t}s" --set /fault_tolerance/heartbeat_interval="${i}s" >/dev/null
  summarize "$work/sim-$t/bsp/events.jsonl" "${t} s"
done

# Real: the toy logistic problem is not needed; a timing-only job moves real bytes too.
cat >"$work/real.json" <<'JSON'
{"name": "failover-real", "seed": 1,
 "model": {"type": "synthetic", "parameters": 100000},
 "training": {"iterations": 20000, "eval_every": 5000},
 "consistency": [{"mode": "bsp"}],
 "cluster": {"workers": 4, "servers": 2,
   "worker": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "10us"}},
   "server": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "10us"}}},
 "fault_tolerance": {"replication": 2},
 "failures": [{"node": "server:0", "at": "0.5s"}]}
JSON
echo
echo "real, ZeroMQ on loopback (wall seconds after the SIGKILL; the server's clock and the launcher's differ by a few ms)"
printf '%-26s %12s %16s\n' "heartbeat timeout" "declared" "first push"
for t in 0.25 0.5 1; do
  i=$(/usr/bin/python3 -c "print($t / 5)")
  out="$work/real-$t"
  "$BIN" launch "$work/real.json" --out "$out" --set /fault_tolerance/heartbeat_timeout="${t}s" \
    --set /fault_tolerance/heartbeat_interval="${i}s" >"$out.log" 2>&1 || { cat "$out.log"; exit 1; }
  # The promoted server reports its events on stderr ("pstwin event: {...}").
  { cat "$out/bsp/events.jsonl"; sed -n 's/^pstwin event: //p' "$out.log"; } >"$out.events"
  summarize "$out.events" "${t} s"
done
