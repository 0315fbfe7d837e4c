#!/usr/bin/env bash
# Push/pull throughput of each pstwin transport, set against its ceiling measured in the same run
# (README, "Transport benchmark"; the goals are issue 14's):
#   inproc         `launch --transport inproc`, ceiling: a memcpy of the same bytes (messages are
#                  handed over without a copy since wire version 6, so with the timing-only model
#                  no byte is moved and the share only says how far below one copy it stays)
#   zmq            ZeroMQ over loopback TCP, --insecure, ceiling: iperf3 TCP over loopback
#   zmq-curve      the same with CURVE (the default), ceiling: the lower of iperf3 and
#                  libsodium's XSalsa20-Poly1305 (CURVE's cipher) alone on this CPU: both
#                  messages of a push + pull, each encrypted once and decrypted once, one after
#                  the other as the round trip must (BM_CurveCipher), so the share is the cipher's
#                  time over the transport's for the same work
#   ucx            --transport ucx --insecure (servers and workers over UCX, shared memory here),
#                  ceiling: UCX's own tag bandwidth of 40 MB messages (ucx_perftest)
# at 1K, 100K and 10M float32 values for 1, 2 and 4 workers; plus a bare ZeroMQ DEALER/ROUTER
# round trip of a push's and a pull reply's bytes between two peers with their own contexts (the
# floor of a push + pull over ZeroMQ), the same at 10M values in parts lent to ZeroMQ as pstwin
# sent them up to wire version 7 (1 and 4 MiB; "-gathered": each receiver also copies its parts into
# one buffer, as pstwin's did) and as it sends them since version 8 ("-streamed": each part a
# message of its own, copied as it arrives), which a ZeroMQ --insecure row at 10M values is also
# set against, and the peak memory of a 10M-value job. Then UCX at 10M values, 1 worker, under each UCX_TLS and rendezvous setting
# tried for the one-machine default (DESIGN.md, "The real environments"), and the goal ratio:
# UCX against ZeroMQ --insecure, 10M values, 1 worker, from the table above.
#
# Each case runs `pstwin launch` on a timing-only scenario: 1 server, W workers, P parameters,
# ASP, so every iteration of every worker is one push of P values and one pull reply of P values
# (the real roles and codec). Time is taken between the first and the last evaluation row of
# metrics.csv, which leaves out process start and rendezvous. One run, no repeats: on a shared
# machine the figures move by tens of percent.
#
# usage: bench/transports.sh   (needs build/cli/pstwin and build/bench/transport_ceilings_bench;
#                               iperf3 and /usr/bin/time for their ceilings)
#   TRANSPORTS="zmq ucx" SIZES=10000000 WORKERS=1 bench/transports.sh: only those cases (defaults:
#   "inproc zmq zmq-curve ucx", "1000 100000 10000000" (no others), "1 2 4"); with any set, the
#   peak memory and UCX settings sections are left out, and the UCX goal line needs both rows.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/cli/pstwin}
CEIL=${CEIL:-build/bench/transport_ceilings_bench}
some=${TRANSPORTS+x}${SIZES+x}${WORKERS+x}
read -r -a transports <<<"${TRANSPORTS:-inproc zmq zmq-curve ucx}"
read -r -a sizes <<<"${SIZES:-1000 100000 10000000}"
read -r -a worker_counts <<<"${WORKERS:-1 2 4}"
for T in "${transports[@]}"; do
  case $T in inproc|zmq|zmq-curve|ucx) ;; *) echo "TRANSPORTS: unknown transport '$T' (inproc, zmq, zmq-curve, ucx)" >&2; exit 2 ;; esac
done
for n in "${sizes[@]}"; do  # the sizes the ceilings are measured at
  case $n in 1000|100000|10000000) ;; *) echo "SIZES: '$n' is not one of 1000, 100000, 10000000" >&2; exit 2 ;; esac
done
for n in "${worker_counts[@]}"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "WORKERS: expected positive whole numbers, got '$n'" >&2; exit 2; }
done
for b in "$BIN" "$CEIL"; do [ -x "$b" ] || { echo "no $b: build first" >&2; exit 2; }; done
work=$(mktemp -d)
trap 'rm -rf "$work"; [ -n "${iperf_pid:-}" ] && kill "$iperf_pid" 2>/dev/null || true' EXIT

# ---- ceilings ----------------------------------------------------------------------------
tcp_gbps=0
if command -v iperf3 >/dev/null; then
  iperf3 -s -1 -p 5299 >/dev/null 2>&1 & iperf_pid=$!
  sleep 0.5
  tcp_gbps=$(iperf3 -c 127.0.0.1 -p 5299 -t 3 -J 2>/dev/null |
         /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]/8e9)')
  printf 'ceiling: iperf3 TCP over loopback, 1 stream: %.2f GB/s\n' "$tcp_gbps"
else
  echo "ceiling: iperf3 not installed (apt-get install iperf3); zmq shares are left out"
fi
"$CEIL" --benchmark_format=json --benchmark_min_time=0.5 >"$work/ceilings.json" 2>/dev/null
/usr/bin/python3 - "$work/ceilings.json" <<'PY' | tee "$work/ceilings.txt"
import json, sys
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    name, *args = [p for p in b["name"].split("/") if p != "real_time"]
    arg = int(args[0])
    gbps = b["bytes_per_second"] / 1e9
    us = b["real_time"] * {"ns": 1e-3, "us": 1, "ms": 1e3}[b["time_unit"]]
    values = arg if name.startswith("BM_Zmq") else arg // 4  # the round trips' argument counts values
    if name == "BM_ZmqLentPartsRoundTrip":  # named by its part size, and whether it gathers
        name += f"-{int(args[1]) >> 20}MiB" + ["", "-gathered", "-streamed"][int(args[2])]
    print(f"{name.removeprefix('BM_')} {values} {gbps:.4f} {us:.2f}")
PY
echo "(each line: what, values, GB/s, microseconds per push + pull)"
if command -v ucx_perftest >/dev/null; then
  (timeout 60 ucx_perftest -p 13377 >/dev/null 2>&1 &)
  sleep 1
  ucx_gbps=0
  ucx_mibps=$(timeout 60 ucx_perftest 127.0.0.1 -p 13377 -t tag_bw -s 40000000 -n 20 -w 2 2>/dev/null |
              awk '/^Final:/ { print $7 }')
  ucx_gbps=$(awk -v m="${ucx_mibps:-0}" 'BEGIN { printf "%.4f", m * 1048576 / 1e9 }')
  echo "ceiling: UCX tag bandwidth, 40 MB messages one way (ucx_perftest): $ucx_gbps GB/s"
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

# ---- transports --------------------------------------------------------------------------
echo
printf '%-10s %-8s %-9s %10s %14s %9s %s\n' transport workers values "GB/s" "us/iteration" "share" "of"
for P in "${sizes[@]}"; do
  iters=$(( P <= 1000 ? 4000 : P <= 100000 ? 400 : 10 ))
  for W in "${worker_counts[@]}"; do
    for T in "${transports[@]}"; do
      case $T in
        inproc) flags=(--transport inproc) ;;
        zmq) flags=(--transport zmq --insecure) ;;
        zmq-curve) flags=(--transport zmq) ;;
        ucx) flags=(--transport ucx --insecure) ;;
      esac
      out="$work/$T-w$W-p$P"
      "$BIN" launch "$work/base.json" "${flags[@]}" --out "$out" --set /cluster/workers=$W \
        --set /model/parameters=$P --set /training/iterations=$iters \
        --set /training/eval_every=$((iters / 2)) >"$out.log" 2>&1 || { echo "run failed:"; cat "$out.log"; exit 1; }
      /usr/bin/python3 - "$out/asp/metrics.csv" "$W" "$P" "$T" "$tcp_gbps" "$work/ceilings.txt" "${ucx_gbps:-0}" <<'PY' | tee -a "$work/rows.txt"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
w, p, t, tcp = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], float(sys.argv[5])
ceil = {(l.split()[0], int(l.split()[1])): float(l.split()[2]) for l in open(sys.argv[6])}
t0, t1 = float(rows[0]["time_s"]), float(rows[-1]["time_s"])
c0, c1 = int(rows[0]["clock"]), int(rows[-1]["clock"])
done = (c1 - c0) * w                      # iterations completed in the window, all workers
secs = t1 - t0
gbps = done * 2 * (p * 4 + 116) / secs / 1e9   # one push and one pull reply, header and checksum
if t == "inproc":
    ceiling, of = ceil[("Memcpy", p)], "memcpy"
elif t == "ucx":
    ceiling, of = float(sys.argv[7]), "ucx_perftest"
elif t == "zmq-curve" and ceil[("CurveCipher", p)] < tcp:
    ceiling, of = ceil[("CurveCipher", p)], "cipher"
else:
    ceiling, of = tcp, "iperf3"
share = f"{gbps / ceiling * 100:8.1f}%" if ceiling > 0 else "       -"
# ZeroMQ --insecure against what libzmq itself does with the same bytes in lent parts (the best
# part size measured, no gather): how much of the gap to iperf3 is pstwin's.
bare = [(g, n) for (n, v), g in ceil.items() if v == p and n.startswith("ZmqLentPartsRoundTrip-")
        and not n.endswith(("-gathered", "-streamed"))]
extra = ""
if t == "zmq" and bare:
    g, n = max(bare)
    extra = f"  ({gbps / g * 100:.1f}% of bare ZeroMQ, {n.split('-')[1]} lent parts)"
print(f"{t:<10} {w:<8} {p:<9} {gbps:10.3f} {secs / (c1 - c0) * 1e6:14.1f} {share} {of}{extra}")
PY
    done
  done
done

if [ -n "$some" ]; then exit 0; fi

# ---- peak memory -------------------------------------------------------------------------
# A node process holds ~200 MB before its first message (libraries, the CUDA runtime where
# built), so the figure is the largest process's peak of a 10M-value job less that of the same
# job at 1K values: the memory the 40 MB of parameters cost, as a multiple of them. (The largest
# process of the 1K job may be the launcher rather than a node, so the figure can read low.)
echo
peak_kb() {  # transport flags... -> the job's largest peak RSS in kB
  local P=$1; shift
  /usr/bin/time -v "$BIN" launch "$work/base.json" "$@" --out "$work/mem-$P-$RANDOM" \
    --set /model/parameters=$P --set /training/iterations=10 \
    --set /training/eval_every=5 >/dev/null 2>"$work/mem.log" || { cat "$work/mem.log"; exit 1; }
  sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/mem.log"
}
for T in inproc zmq ucx; do
  case $T in inproc) flags=(--transport inproc) ;; *) flags=(--transport $T --insecure) ;; esac
  big=$(peak_kb 10000000 "${flags[@]}"); small=$(peak_kb 1000 "${flags[@]}")
  awk -v t=$T -v big="$big" -v small="$small" 'BEGIN { printf "peak memory, 10M values, 1 worker, %s (%s): %.0f MB, %.0f MB over the 1K-value job = %.2f x the 40 MB of parameters\n", t, t == "inproc" ? "all nodes in one process" : "largest process", big / 1024, (big - small) / 1024, (big - small) * 1024 / 40e6 }'
done

# ---- UCX settings, and the goal ratio ----------------------------------------------------------
# The same 10M-value, 1-worker case under each transport choice and rendezvous threshold tried for
# the one-machine default ("default" is pstwin's own: UCX_TLS unset).
echo
settings=(default UCX_TLS=posix,cma,tcp UCX_TLS=sysv,cma,tcp UCX_TLS=posix,tcp UCX_TLS=tcp
          UCX_TLS=sm,tcp+UCX_RNDV_THRESH=inf UCX_TLS=sm,tcp+UCX_RNDV_SCHEME=get_zcopy
          UCX_TLS=sm,tcp+UCX_RNDV_SCHEME=put_zcopy)
header="UCX setting (10M values, 1 worker)"
# The first column as wide as its longest entry, so every row lines up under the header.
width=${#header}
for setting in "${settings[@]}"; do if [ ${#setting} -gt "$width" ]; then width=${#setting}; fi; done
printf '%-*s %10s %14s\n' "$width" "$header" "GB/s" "us/iteration"
for setting in "${settings[@]}"; do
  envs=(); [ "$setting" != default ] && IFS=+ read -ra envs <<<"$setting"
  out="$work/ucxset-$RANDOM"
  env "${envs[@]}" "$BIN" launch "$work/base.json" --transport ucx --insecure --out "$out" \
    --set /model/parameters=10000000 --set /training/iterations=10 --set /training/eval_every=5 \
    >"$out.log" 2>&1 || { printf '%-*s %s\n' "$width" "$setting" "failed: $(grep -m1 -i error "$out.log")"; continue; }
  /usr/bin/python3 - "$out/asp/metrics.csv" "$setting" "$width" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
secs = float(rows[-1]["time_s"]) - float(rows[0]["time_s"])
n = int(rows[-1]["clock"]) - int(rows[0]["clock"])
print(f"{sys.argv[2]:<{int(sys.argv[3])}} {n * 2 * (4e7 + 116) / secs / 1e9:10.3f} {secs / n * 1e6:14.1f}")
PY
done
echo
/usr/bin/python3 - "$work/rows.txt" <<'PY'
import sys
rows = {(l.split()[0], int(l.split()[1]), int(l.split()[2])): float(l.split()[4]) for l in open(sys.argv[1])}
ucx, zmq = rows[("ucx", 1, 10000000)], rows[("zmq", 1, 10000000)]
print(f"goal: UCX push + pull of 10M values, 1 worker: {ucx / 1e3:.1f} ms against ZeroMQ --insecure's "
      f"{zmq / 1e3:.1f} ms: {zmq / ucx:.2f}x faster (goal: 2x or more)")
PY
