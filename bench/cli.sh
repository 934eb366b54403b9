#!/bin/sh
# C1: lnetctl net show end to end with 64 NIs (bench-cli), against an lnetd
# of its own on a private bus.  Run from the build dir (make bench).
set -u
. "${TOP_SRCDIR:-../..}/tests/integration/lib.sh"
LNETD=${LNETD:-lnetd/lnetd}
start_bus
start_lnetd || { echo "FAIL: lnetd does not start"; exit 1; }
ops=$(awk 'BEGIN { printf "a(ssa{sv})b 64"
	for (i = 0; i < 64; i++) printf " add net 2 net s o2ib%d interface s ib%d", i % 4, i
	printf " false" }')
# shellcheck disable=SC2086 # the operations are words on purpose
bcall Apply $ops
has "tas 1 64" >/dev/null || { echo "FAIL: 64 NIs: $OUT"; exit 1; }
bench/bench-cli lnetctl/lnetctl
