#!/bin/sh
# 100 concurrent clients x 1,000 operations on lnetd: every change lnetd
# accepted is one generation, and what lnetd serves afterwards (its engine)
# is exactly what it serves after a restart (the engine rebuilt from the
# store): the store and the engine agree.  TAP.  STRESS_CLIENTS and
# STRESS_OPS change the load.
set -u
. "$(dirname "$0")/lib.sh"

# Without polkit on a private bus, lnetd takes changes from root only.
if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root"
	exit 0
fi
LNETD=${LNETD:-lnetd/lnetd}
STRESS=${STRESS:-tests/integration/stress}
clients=${STRESS_CLIENTS:-100}
ops=${STRESS_OPS:-1000}

start_bus
# fsync is the store's cost per change; on tmpfs the test measures lnetd.
state=$(mktemp -d /dev/shm/lnetd-stress.XXXXXX 2>/dev/null || mktemp -d)
# shellcheck disable=SC2317 # called by the trap
stop_all() { rm -rf "$state"; cleanup; }
trap stop_all EXIT
"$LNETD" --engine=userspace --state-dir="$state" 2>>"$T/lnetd.log" &
LNETD_PID=$!
check "lnetd starts" wait_until "$TEST_WAIT" lnetd_up

start=$(date +%s)
result=$("$STRESS" "$clients" "$ops" 2>"$T/stress.log")
rc=$?
set -- $result
diag "$clients clients x $ops operations in $(($(date +%s) - start)) s: $3 accepted, $1 generations handed out, the last $2"
check "every client's calls were answered (accepted or refused by lnetd)" test "$rc" = 0
bprop Generation
check "each change lnetd made was reported to exactly one caller" test "$OUT" = "t $1"
check "and the last generation handed out is lnetd's" test "$OUT" = "t $2"

snapshot() {
	for m in ListPeers ListRules ListGlobals; do
		bcall "$m"
		echo "$OUT"
	done
}
before=$(snapshot)
stop_lnetd
check "lnetd stops cleanly after the storm" test "$LNETD_RC" = 0
"$LNETD" --engine=userspace --state-dir="$state" 2>>"$T/lnetd.log" &
LNETD_PID=$!
check "lnetd starts again" wait_until "$TEST_WAIT" lnetd_up
after=$(snapshot)
check "the store holds exactly what the engine held (peers, rules, globals)" \
	test "$before" = "$after"
[ "$before" = "$after" ] || diag "before:" "$before" "after:" "$after"
finish
