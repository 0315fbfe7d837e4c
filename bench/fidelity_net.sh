# shellcheck shell=bash
# Network of bench/fidelity.sh (sourced, not run): a bridge in the root namespace, where the
# scheduler runs, and one network namespace per server or worker, each joined to the bridge by a
# veth pair. Every name starts with $NET_PREFIX and every address is in $NET_SUBNET.0/24, so that
# two harnesses with different prefixes and subnets can run side by side.
#
#   root namespace: bridge ${P}br, $NET_SUBNET.1 (the scheduler's address)
#   namespace ${P}nI: veth ${P}cI, $NET_SUBNET.(10+I); its peer ${P}hI is a port of the bridge
#
# Shaping: a tbf qdisc at the case's rate on both ends of each veth, so a node's traffic is
# limited in both directions, like a NIC. This kernel has no netem, so latency stays native
# (a few tens of microseconds through veth and the bridge).

NET_PREFIX=${NET_PREFIX:-psfd}
NET_SUBNET=${NET_SUBNET:-10.213.7}
NET_NODES=0  # namespaces created so far

net_bridge() { echo "${NET_PREFIX}br"; }
net_ns() { echo "${NET_PREFIX}n$1"; }
net_address() { echo "$NET_SUBNET.$((10 + $1))"; }
net_scheduler_address() { echo "$NET_SUBNET.1"; }

# Exits 2 when a name with our prefix or our subnet is already in use (another harness, or one
# killed by SIGKILL before its trap ran).
net_refuse_existing() {
  local clash
  clash=$( { ip netns list | awk '{print $1}'; ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1; } |
           grep "^${NET_PREFIX}" | head -3 | tr '\n' ' ' || true)
  if [ -n "$clash" ]; then
    echo "fidelity: names with prefix ${NET_PREFIX} already exist ($clash); another run is using them," \
         "or one was killed before cleaning up: remove them (ip netns del NAME; ip link del NAME)" \
         "or pick another --prefix" >&2
    exit 2
  fi
  if ip -o -4 addr show | grep -q " $NET_SUBNET\."; then
    echo "fidelity: subnet $NET_SUBNET.0/24 is already in use on this machine; pick another --subnet" >&2
    exit 2
  fi
}

# Creates the bridge and namespaces 0..N-1. Exits 77 when this machine does not allow it.
net_up() {
  local n=$1 i ns
  if ! ip netns add "$(net_ns 0)" 2>"$WORK/netns.err"; then
    echo "fidelity: SKIPPED: cannot create network namespaces here ($(cat "$WORK/netns.err"))" >&2
    exit 77
  fi
  ip netns del "$(net_ns 0)"
  # A kernel (or container) may allow namespaces yet lack bridges, veth pairs or tbf: each is
  # tried once, and its absence is a skip, not a failure.
  if ! { ip link add "${NET_PREFIX}probe0" type veth peer name "${NET_PREFIX}probe1" &&
         tc qdisc add dev "${NET_PREFIX}probe0" root tbf rate 1gbit burst 256kb latency 100ms &&
         ip link add "$(net_bridge)" type bridge; } 2>"$WORK/netns.err"; then
    ip link del "${NET_PREFIX}probe0" 2>/dev/null || true
    echo "fidelity: SKIPPED: no veth pairs, tbf shaping or bridges here ($(cat "$WORK/netns.err"))" >&2
    exit 77
  fi
  ip link del "${NET_PREFIX}probe0"
  ip addr add "$(net_scheduler_address)/24" dev "$(net_bridge)"
  ip link set "$(net_bridge)" up
  for ((i = 0; i < n; ++i)); do
    ns=$(net_ns "$i")
    ip netns add "$ns"
    NET_NODES=$((i + 1))
    ip link add "${NET_PREFIX}h$i" type veth peer name "${NET_PREFIX}c$i"
    ip link set "${NET_PREFIX}c$i" netns "$ns"
    ip link set "${NET_PREFIX}h$i" master "$(net_bridge)" up
    ip -n "$ns" addr add "$(net_address "$i")/24" dev "${NET_PREFIX}c$i"
    ip -n "$ns" link set "${NET_PREFIX}c$i" up
    ip -n "$ns" link set lo up
  done
}

# Removes everything net_up made. Safe to call twice. Each host-side veth end is deleted
# explicitly: deleting a namespace also frees its pair, but the kernel does that in the
# background, so the names could still be there when the harness has returned.
net_down() {
  local i
  for ((i = 0; i < NET_NODES; ++i)); do
    ip link del "${NET_PREFIX}h$i" 2>/dev/null || true
    ip netns del "$(net_ns "$i")" 2>/dev/null || true
  done
  NET_NODES=0
  ip link del "$(net_bridge)" 2>/dev/null || true
}

# Shapes every veth end to RATE (tc's syntax: 100mbit, 1gbit), or removes shaping ("unshaped").
# The bucket holds two full Ethernet frames (NET_BURST_FRAMES x (MTU + 14) bytes), what a NIC
# sending at line rate can put out back to back: a NIC saves up no credit while its link is idle.
# The bucket was 2 ms at the rate (25 kB at 100 Mbit/s), which let a link idle at a BSP barrier
# send a whole reply at once, faster than a NIC of that rate (README, "How accurate is the
# simulation"). tbf cuts a GSO packet larger than its bucket into frames (tbf_segment), and its
# watchdog is a high-resolution timer, so the rate holds with so small a bucket. The queue
# holds 100 ms.
NET_BURST_FRAMES=2
net_shape() {
  local rate=$1 i ns burst
  for ((i = 0; i < NET_NODES; ++i)); do
    ns=$(net_ns "$i")
    tc qdisc del dev "${NET_PREFIX}h$i" root 2>/dev/null || true
    tc -n "$ns" qdisc del dev "${NET_PREFIX}c$i" root 2>/dev/null || true
    [ "$rate" = unshaped ] && continue
    burst=$((NET_BURST_FRAMES * ($(cat "/sys/class/net/${NET_PREFIX}h$i/mtu") + 14)))
    tc qdisc add dev "${NET_PREFIX}h$i" root tbf rate "$rate" burst "$burst" latency 100ms
    tc -n "$ns" qdisc add dev "${NET_PREFIX}c$i" root tbf rate "$rate" burst "$burst" latency 100ms
  done
}

# 100mbit -> 100000000, 1gbit -> 1000000000 (tc's units, decimal).
rate_bits() {
  local r=${1,,}
  case $r in
    *gbit) echo $((${r%gbit} * 1000000000)) ;;
    *mbit) echo $((${r%mbit} * 1000000)) ;;
    *kbit) echo $((${r%kbit} * 1000)) ;;
    *) echo "fidelity: link rate '$1' is not N[kbit|mbit|gbit] or unshaped" >&2; exit 2 ;;
  esac
}

# Prints "BYTES_PER_S ONE_WAY_LATENCY_S" between namespaces 0 and 1 as shaped now: iperf3 for the
# bandwidth ($FIDELITY_IPERF_S whole seconds of TCP, default 2, what the receiver got), and the median of 500 TCP round trips of one
# byte, halved, for the latency (user space to user space, as a message sees it).
net_measure() {
  local a b bw lat
  a=$(net_ns 0)
  b=$(net_ns 1)
  ip netns exec "$b" iperf3 -s -1 -p 5298 >/dev/null 2>&1 &
  sleep 0.5
  bw=$(ip netns exec "$a" iperf3 -c "$(net_address 1)" -p 5298 -t "${FIDELITY_IPERF_S:-2}" -J 2>/dev/null |
       /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 8)')
  wait
  ip netns exec "$b" /usr/bin/python3 - <<'PY' &
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 5299)); s.listen(1)
c, _ = s.accept(); c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
while (b := c.recv(1)):
    c.sendall(b)
PY
  sleep 0.5
  lat=$(ip netns exec "$a" /usr/bin/python3 - "$(net_address 1)" <<'PY'
import socket, statistics, sys, time
c = socket.create_connection((sys.argv[1], 5299)); c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
rtts = []
for _ in range(500):
    t = time.perf_counter(); c.sendall(b"x"); c.recv(1); rtts.append(time.perf_counter() - t)
c.close()
print(statistics.median(rtts) / 2)
PY
)
  wait
  if ! /usr/bin/python3 -c 'import sys; sys.exit(not (float(sys.argv[1]) > 0 and float(sys.argv[2]) > 0))' "${bw:-0}" "${lat:-0}"; then
    echo "fidelity: measuring the link between $a and $b failed (bandwidth '${bw:-}' B/s, latency '${lat:-}' s)" >&2
    exit 1
  fi
  echo "$bw $lat"
}
