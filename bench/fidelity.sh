#!/usr/bin/env bash
# How accurate is the simulation? Runs each case for real, `pstwin launch --hostfile` across network
# namespaces joined by shaped veth links (bench/fidelity_net.sh), then `pstwin simulate` on a
# platform of the same shape, and prints per-iteration time and time to target, simulated vs
# real, with the error, in one table (OUT/fidelity.csv, OUT/fidelity.md). Run as root; needs
# iproute2 (ip, tc), iperf3 and /usr/bin/python3. This kernel has no netem, so latency is not
# shaped: it stays native (measured, and given to the simulation as measured).
#
# usage: bench/fidelity.sh [--quick] [--case SPEC]... [--out DIR] [--prefix P] [--subnet A.B.C]
#                          [--resimulate]
#   --quick     one case (quickstart, 4 workers, 1 server, 100 Mbit/s, BSP): under a minute
#   --resimulate  simulate again against the real runs already in DIR (no root, no network):
#               for another platform or model, with the links measured then (DIR/cases.txt);
#               without --case or --quick, the cases of the last real run into DIR
#   --case SPEC replaces the built-in cases (repeatable); SPEC is "NAME SCENARIO WORKERS SERVERS
#               LINK MODES ITERATIONS TARGET STRAGGLER": LINK 100mbit|1gbit|unshaped|<N>mbit,
#               MODES a comma list of bsp, asp, sspN, STRAGGLER none or slow (worker 0 at 2x)
#   --prefix P  names of namespaces, veths and bridge start with P (default psfd)
#   --subnet    the /24 the namespaces live in (default 10.213.7)
# Environment: BIN (default build/cli/pstwin); KERNEL_GFLOPS, KERNEL_GBPS (the devices of the
# simulated platform; defaults from build/bench/kernels_bench on the 2-core test machine);
# FIDELITY_PLATFORM=auto|measured|calibrated (auto: calibrated when `pstwin calibrate` exists;
# FIDELITY_CALIBRATE_ARGS adds words to its command line, e.g. "--quick");
# FIDELITY_TRANSPORT_CALIBRATION=namespaces|loopback (calibrated platform only; default
# namespaces: per link kind, `pstwin calibrate --hostfile` times the transport between a server's
# and a worker's namespace over the shaped link, and the simulation takes its messaging costs from
# that, OUT/transport-LINK/calibrated.json; loopback: the per-scenario calibration's, measured
# inside one process);
# FIDELITY_CFG: SimGrid options for simulate, e.g. "network/model:CM02"; unset,
# "network/crosstraffic:0" (set but empty: SimGrid's defaults); FIDELITY_SIM_SET: --set
# words for simulate only (no spaces inside one); unset, '/simulation={"nic_send_window":1}'
# (each NIC sends first in, first out, as a real one does: README, "How accurate is the
# simulation"); set but empty, the exact model;
# FIDELITY_IPERF_S: seconds of iperf3 per link measured (whole seconds, default 2);
# FIDELITY_EVAL_EVERY: clocks between
# evaluations (default 10; the real scheduler's evaluation takes CPU from the roles).
# Exit status: 0 done; 1 a run or measurement failed; 2 bad usage, a tool missing, or names in
# use; 77 this machine does not allow namespaces (not root, no iproute2, `ip netns add` refused).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(realpath "${BIN:-build/cli/pstwin}")
HERE=$PWD/bench
OUT=runs/fidelity
CASES=()
RESIMULATE=0
# name scenario workers servers link modes iterations target straggler. The grid covers each
# dimension, not their cross product: every model under BSP, ASP and SSP(3); 2, 4 and 8
# workers; 1 and 2 servers; 100 Mbit/s, 1 Gbit/s and unshaped veth; a slow worker twice.
DEFAULT_CASES=(
  "qs-4w1s-100m scenarios/quickstart.json 4 1 100mbit bsp,asp,ssp3 200 0.75 none"
  "qs-2w1s-1g scenarios/quickstart.json 2 1 1gbit bsp 200 0.75 none"
  "qs-8w2s-1g scenarios/quickstart.json 8 2 1gbit bsp,asp,ssp3 200 0.75 none"
  "qs-8w2s-unshaped scenarios/quickstart.json 8 2 unshaped bsp 200 0.75 none"
  "qs-4w2s-100m-slow scenarios/quickstart.json 4 2 100mbit bsp,ssp3 200 0.75 slow"
  "a9a-4w2s-unshaped scenarios/a9a-stragglers.json 4 2 unshaped bsp,asp,ssp3 200 0.84 none"
  "a9a-8w1s-100m-slow scenarios/a9a-stragglers.json 8 1 100mbit bsp 200 0.84 slow"
  "mf-4w1s-100m scenarios/movielens-mf.json 4 1 100mbit bsp,asp,ssp3 200 0.90 none"
  "mf-8w2s-1g scenarios/movielens-mf.json 8 2 1gbit bsp 200 0.90 none"
)
# Prints the header above: on stdout for --help (exit status 0), else on stderr (exit status 2).
usage() {
  if [ "${1:-2}" = 0 ]; then exec 2>&1; fi
  sed -n '/^# usage/,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit "${1:-2}"
}
while (($#)); do
  case $1 in
    --quick) CASES=("${DEFAULT_CASES[0]%% bsp,*} bsp 200 0.75 none") ;;
    --case) [ $# -ge 2 ] || usage; CASES+=("$2"); shift ;;
    --out) [ $# -ge 2 ] || usage; OUT=$2; shift ;;
    --prefix) [ $# -ge 2 ] || usage; NET_PREFIX=$2; shift ;;
    --subnet) [ $# -ge 2 ] || usage; NET_SUBNET=$2; shift ;;
    --resimulate) RESIMULATE=1 ;;
    -h|--help) usage 0 ;;
    *) echo "fidelity: unknown argument '$1'" >&2; usage ;;
  esac
  shift
done
if ((!${#CASES[@]})) && ((RESIMULATE)) && [ -f "$OUT/specs.txt" ]; then
  mapfile -t CASES <"$OUT/specs.txt"  # the cases of the last real run into DIR
fi
((${#CASES[@]})) || CASES=("${DEFAULT_CASES[@]}")

tools=(/usr/bin/python3 "$BIN")
if ((!RESIMULATE)); then
  if [ "$(id -u)" != 0 ]; then echo "fidelity: SKIPPED: needs root (network namespaces, tc)" >&2; exit 77; fi
  for tool in ip tc; do
    command -v "$tool" >/dev/null ||
      { echo "fidelity: SKIPPED: no $tool here (iproute2), so no network namespaces or shaping" >&2; exit 77; }
  done
  tools+=(iperf3)
fi
[[ ${FIDELITY_EVAL_EVERY:-10} =~ ^[1-9][0-9]*$ ]] ||
  { echo "fidelity: FIDELITY_EVAL_EVERY=$FIDELITY_EVAL_EVERY is not a positive whole number" >&2; exit 2; }
[[ ${FIDELITY_IPERF_S:-2} =~ ^[1-9][0-9]*$ ]] ||
  { echo "fidelity: FIDELITY_IPERF_S=$FIDELITY_IPERF_S is not a whole number of seconds (iperf3 -t)" >&2; exit 2; }
for tool in "${tools[@]}"; do
  command -v "$tool" >/dev/null || { echo "fidelity: $tool not found" >&2; exit 2; }
done

# shellcheck source=bench/fidelity_net.sh
source "$HERE/fidelity_net.sh"
# Check every case before touching the network: a typo should not cost a half-run.
max_nodes=2
for spec in "${CASES[@]}"; do
  read -r name scenario workers servers link modes iterations target straggler extra <<<"$spec"
  if [ -z "${straggler:-}" ] || [ -n "${extra:-}" ]; then
    echo "fidelity: --case '$spec': needs 9 fields (NAME SCENARIO WORKERS SERVERS LINK MODES ITERATIONS TARGET STRAGGLER)" >&2
    exit 2
  fi
  [ -f "$scenario" ] || { echo "fidelity: case $name: no scenario file $scenario" >&2; exit 2; }
  [[ $workers =~ ^[1-9][0-9]*$ && $servers =~ ^[1-9][0-9]*$ && $iterations =~ ^[1-9][0-9]*$ ]] ||
    { echo "fidelity: case $name: workers, servers and iterations must be positive integers" >&2; exit 2; }
  [[ $modes =~ ^(bsp|asp|ssp[0-9]+)(,(bsp|asp|ssp[0-9]+))*$ ]] ||
    { echo "fidelity: case $name: modes '$modes' is not a comma list of bsp, asp, sspN" >&2; exit 2; }
  [[ $straggler == none || $straggler == slow ]] || { echo "fidelity: case $name: straggler '$straggler' is not none or slow" >&2; exit 2; }
  [ "$link" = unshaped ] || rate_bits "$link" >/dev/null
  ((workers + servers > max_nodes)) && max_nodes=$((workers + servers))
  if ((RESIMULATE)) && ! grep -q "^$name " "$OUT/cases.txt" 2>/dev/null; then
    echo "fidelity: --resimulate: case $name has no real run in $OUT (no line in $OUT/cases.txt)" >&2
    exit 2
  fi
done

WORK=$(mktemp -d)
if ((RESIMULATE)); then
  trap 'rm -rf "$WORK"' EXIT
  cp "$OUT/cases.txt" "$WORK/cases.before"
else
  net_refuse_existing
  # From here on every name with our prefix is ours: the trap removes them however the run ends.
  cleanup() { net_down; rm -rf "$WORK"; }
  trap cleanup EXIT
  trap 'exit 130' INT TERM
  net_up "$max_nodes"
  echo "fidelity: $max_nodes namespaces ${NET_PREFIX}n0.. on bridge $(net_bridge) ($NET_SUBNET.0/24); scheduler at $(net_scheduler_address)"
  echo "fidelity: latency is not shaped (this kernel has no netem): the links keep veth's native latency"
fi

transport_calibration=${FIDELITY_TRANSPORT_CALIBRATION:-namespaces}
case $transport_calibration in
  namespaces|loopback) ;;
  *) echo "fidelity: FIDELITY_TRANSPORT_CALIBRATION=$transport_calibration is not namespaces or loopback" >&2; exit 2 ;;
esac
platform=${FIDELITY_PLATFORM:-auto}
if [ "$platform" = auto ]; then
  if "$BIN" calibrate --help >/dev/null 2>&1; then platform=calibrated; else platform=measured; fi
fi
GFLOPS=${KERNEL_GFLOPS:-15}
GBPS=${KERNEL_GBPS:-2}
case $platform in
  calibrated)
    # Devices, per-message costs and cores from pstwin calibrate, once per scenario (its kernel
    # rates are the scenario's model's), over ZeroMQ with CURVE as launch runs by default. The
    # links are still measured per case below, since the harness shapes them.
    if [ "$transport_calibration" = namespaces ]; then
      echo "fidelity: platform: devices and cpu from pstwin calibrate (OUT/calibrated-*.json); messaging from pstwin calibrate --hostfile between two namespaces per link kind (OUT/transport-*/); links measured per case"
    else
      echo "fidelity: platform: devices, messaging and cpu from pstwin calibrate (OUT/calibrated-*.json, messaging over loopback in one process); links measured per case"
    fi ;;
  measured)
    echo "fidelity: platform: devices ${GFLOPS} GFLOP/s, ${GBPS} GB/s (KERNEL_GFLOPS, KERNEL_GBPS); links measured per case; host costs not modelled" ;;
  *) echo "fidelity: FIDELITY_PLATFORM=$platform is not auto, measured or calibrated" >&2; exit 2 ;;
esac

mkdir -p "$OUT"
# The NIC model that matched the shaped runs (README): a real NIC's queue is first in, first out.
fifo_nics='/simulation={"nic_send_window":1}'
FIDELITY_SIM_SET=${FIDELITY_SIM_SET-$fifo_nics}
# SimGrid's cross-traffic charges a flow's acknowledgements to the reverse links with weight 0.05,
# and its max-min sharing then gives that flow the same rate as the data flows of the reverse
# link: a reply leaving a server that receives two pushes is held to half of its uplink. A TCP
# flow's ACKs take about 2% of the reverse direction and do not slow it so (README, "How accurate
# is the simulation"). Unset: off; set (even empty): as given.
FIDELITY_CFG=${FIDELITY_CFG-network/crosstraffic:0}
cfg=()
for c in ${FIDELITY_CFG:-}; do cfg+=(--cfg "$c"); done
for c in ${FIDELITY_SIM_SET:-}; do cfg+=(--set "$c"); done
declare -A measured calibrated_now transport_now
rows="$WORK/rows.txt"
: >"$rows"
for spec in "${CASES[@]}"; do
  read -r name scenario workers servers link modes iterations target straggler <<<"$spec"
  if ((RESIMULATE)); then
    read -r _ _ _ _ link_Bps latency_s _ _ load <<<"$(grep "^$name " "$WORK/cases.before" | tail -1)"
  else
    net_shape "$link"
    if [ -z "${measured[$link]:-}" ]; then measured[$link]=$(net_measure); fi
    read -r link_Bps latency_s <<<"${measured[$link]}"
  fi
  # The simulated path crosses two NICs (sender's, receiver's), each with its latency.
  link_json=$(/usr/bin/python3 -c "import sys; print('{\"bandwidth\": \"%.0fBps\", \"latency\": \"%.2fus\"}' % (float(sys.argv[1]), float(sys.argv[2]) / 2 * 1e6))" "$link_Bps" "$latency_s")
  consistency=$(/usr/bin/python3 -c '
import json, sys
print(json.dumps([{"mode": m} if m in ("bsp", "asp") else {"mode": "ssp", "staleness": int(m[3:])}
                  for m in sys.argv[1].split(",")]))' "$modes")
  stragglers='[]'
  [ "$straggler" = slow ] && stragglers='[{"type": "slow", "workers": [0], "factor": 2}]'
  common=(--set "/consistency=$consistency" --set /training/iterations="$iterations"
          --set /training/eval_every="${FIDELITY_EVAL_EVERY:-10}" --set /training/target_metric="$target"
          --set /cluster/workers="$workers" --set /cluster/servers="$servers" --set "/stragglers=$stragglers")
  if [ "$platform" = calibrated ]; then
    calibrated="$(realpath "$OUT")/calibrated-$(basename "$scenario")"
    # --resimulate keeps the calibration of the real runs it compares with, when DIR has it.
    if ((RESIMULATE)) && [ -f "$calibrated" ]; then calibrated_now[$calibrated]=1; fi
    if [ -z "${calibrated_now[$calibrated]:-}" ]; then
      calibrated_now[$calibrated]=1
      # shellcheck disable=SC2086 # FIDELITY_CALIBRATE_ARGS is a list of words, e.g. "--quick"
      "$BIN" calibrate "$scenario" --transport zmq-curve ${FIDELITY_CALIBRATE_ARGS:-} --out "$calibrated" \
        >"$OUT/calibrate.log" 2>&1 ||
        { cat "$OUT/calibrate.log" >&2; echo "fidelity: pstwin calibrate $scenario failed" >&2; exit 1; }
    fi
    # The scenario's own worker and server groups would win over the included ones: they are
    # replaced by the link alone, so device, messaging and cpu come from the calibrated file.
    group="{\"link\": $link_json}"
    common+=(--set /cluster/include="$calibrated")
    if [ "$transport_calibration" = namespaces ]; then
      # The messaging costs of the path the job takes (veth, bridge and tbf, which cuts every
      # GSO packet into frames: more wake-ups and ACKs than loopback), between two processes.
      # Once per link kind, after the link is shaped; the other cases of that kind (and
      # --resimulate) reuse it. With the group's own messaging, the included one is not used.
      transport="$(realpath "$OUT")/transport-$link/calibrated.json"
      if ((RESIMULATE)) && [ -f "$transport" ]; then transport_now[$link]=1; fi
      if [ -z "${transport_now[$link]:-}" ]; then
        if ((RESIMULATE)); then
          echo "fidelity: --resimulate: $OUT has no $transport (its real runs predate it); run them again, or FIDELITY_TRANSPORT_CALIBRATION=loopback" >&2
          exit 2
        fi
        transport_now[$link]=1
        # A server's namespace and a worker's (servers take the first ones); messages up to 10 MB
        # (about 15 s at 100 Mbit/s), 1 MB on slower links.
        printf '%s\n%s\n' "$(net_ns 0)" "$(net_ns "$servers")" >"$WORK/transport-hosts"
        largest=10000000
        if [ "$link" != unshaped ] && (($(rate_bits "$link") < 100000000)); then largest=1000000; fi
        mkdir -p "$(dirname "$transport")"
        echo "fidelity: case $name: calibrate the transport between $(net_ns 0) and $(net_ns "$servers") ($link)"
        "$BIN" calibrate --quick --max-message "$largest" --transport zmq-curve --hostfile "$WORK/transport-hosts" \
          --ssh-command "$HERE/fidelity_ssh.sh" --out "$transport" >"$(dirname "$transport")/calibrate.log" 2>&1 ||
          { cat "$(dirname "$transport")/calibrate.log" >&2; echo "fidelity: pstwin calibrate --hostfile ($link) failed" >&2; exit 1; }
      fi
      messaging=$(/usr/bin/python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))["worker"]["messaging"]))' "$transport")
      group="{\"link\": $link_json, \"messaging\": $messaging}"
    fi
  else
    group="{\"device\": {\"flops\": \"${GFLOPS}Gf\", \"bandwidth\": \"${GBPS}GBps\"}, \"link\": $link_json}"
  fi
  common+=(--set "/cluster/worker=$group" --set "/cluster/server=$group")
  if ((!RESIMULATE)); then
    hosts="$WORK/hosts"
    : >"$hosts"
    for ((i = 0; i < workers + servers; ++i)); do echo "$(net_ns "$i") slots=1" >>"$hosts"; done
    # The machine's load when the real run starts: other work on it slows the real run only.
    load=$(cut -d' ' -f1 /proc/loadavg)
    echo "fidelity: case $name: launch ($workers workers, $servers servers, $link: $(/usr/bin/python3 -c "print(round($link_Bps * 8e-6))") Mbit/s, $(/usr/bin/python3 -c "print(round($latency_s * 1e6))") us one way; load average $load)"
    rm -rf "${OUT:?}/$name"
    status=0
    "$BIN" launch "$scenario" "${common[@]}" --hostfile "$hosts" --ssh-command "$HERE/fidelity_ssh.sh" \
      --scheduler-host "$(net_scheduler_address)" --metrics-address none --out "$OUT/$name/real" \
      >"$OUT/$name.launch.log" 2>&1 || status=$?
    ((status == 0)) || echo "fidelity: case $name: launch failed (exit $status); see $OUT/$name.launch.log" >&2
  fi
  echo "fidelity: case $name: simulate"
  rm -rf "${OUT:?}/$name/sim"
  status=0
  "$BIN" simulate "$scenario" "${common[@]}" "${cfg[@]}" --quiet --jobs 2 --out "$OUT/$name/sim" \
    >"$OUT/$name.simulate.log" 2>&1 || status=$?
  ((status == 0)) || echo "fidelity: case $name: simulate failed (exit $status); see $OUT/$name.simulate.log" >&2
  echo "$name $workers $servers $link $link_Bps $latency_s $straggler $OUT/$name $load" >>"$rows"
done
# What --resimulate reads back: the cases of this run, after those of earlier runs into DIR.
((RESIMULATE)) || { grep -v -F -f <(cut -d' ' -f1 "$rows" | sed 's/.*/& /') "$OUT/cases.txt" 2>/dev/null || true; cat "$rows"; } >"$WORK/cases.after"
((RESIMULATE)) || { cp "$WORK/cases.after" "$OUT/cases.txt"; printf '%s\n' "${CASES[@]}" >"$OUT/specs.txt"; }
label=$platform
[ "$platform" = calibrated ] && label="$platform (messaging: $transport_calibration)"
/usr/bin/python3 "$HERE/fidelity_table.py" "$rows" "$OUT" "$label${FIDELITY_CFG:+, --cfg $FIDELITY_CFG}${FIDELITY_SIM_SET:+, --set $FIDELITY_SIM_SET}"
