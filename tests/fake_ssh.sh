#!/bin/sh
# Stands in for ssh in tests of `pstwin launch --hostfile`: "fake_ssh.sh HOST COMMAND" runs
# COMMAND here, as ssh would run it on HOST, and records the host it was asked for.
host="$1"
shift
[ -n "${FAKE_SSH_LOG:-}" ] && echo "$host" >>"$FAKE_SSH_LOG"
exec sh -c "$1"
