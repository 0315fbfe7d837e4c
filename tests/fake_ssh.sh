#!/bin/sh
# Stands in for ssh in tests of `pstwin launch --hostfile`: "fake_ssh.sh HOST COMMAND" runs
# COMMAND here, as ssh would run it on HOST, and records the host it was asked for. Options
# before HOST ("-o X", as in --ssh-command 'fake_ssh.sh -o BatchMode=yes') are skipped.
while [ "$1" = "-o" ]; do shift 2; done
host="$1"
shift
[ -n "${FAKE_SSH_LOG:-}" ] && echo "$host" >>"$FAKE_SSH_LOG"
exec sh -c "$1"
