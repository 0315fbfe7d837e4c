#!/bin/sh
# Stands in for ssh in bench/fidelity.sh: "fidelity_ssh.sh NAMESPACE COMMAND" runs COMMAND inside
# network namespace NAMESPACE, as `pstwin launch --hostfile` would run it on a host over ssh.
# The node advertises the namespace's own address (its first global IPv4 one): every namespace
# shares this machine's host name, so the default (the host name) would point other nodes at
# the root namespace instead.
set -eu
ns="$1"
address=$(ip -n "$ns" -o -4 addr show scope global | awk '{ split($4, a, "/"); print a[1]; exit }')
if [ -z "$address" ]; then
  echo "fidelity_ssh.sh: namespace $ns has no IPv4 address" >&2
  exit 255
fi
exec ip netns exec "$ns" env PSTWIN_ADVERTISE="$address" sh -c "$2"
