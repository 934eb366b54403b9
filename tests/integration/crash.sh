#!/bin/sh
# kill -9 at random points of a 10,000-object Apply: after a restart the
# configuration is all of it or none of it, and the generation says which.
# CRASH_TRIALS trials (20 in make check; `make bench` runs 100).  TAP.
set -u
. "$(dirname "$0")/lib.sh"
LNETD=${LNETD:-lnetd/lnetd}
TRIALS=${CRASH_TRIALS:-20}
N=10000

if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root"
	exit 0
fi
start_bus
ARGS=$(awk -v n="$N" 'BEGIN { printf "a(ssa{sv})b %d", n
	for (i = 0; i < n; i++) printf " add peer 1 primary s 10.%d.%d.1@tcp", int(i / 250), i % 250
	printf " false" }')

# How long a whole Apply takes here: the kills land anywhere in it.
check "lnetd starts" start_lnetd
t0=$(date +%s%N)
# shellcheck disable=SC2086 # the operations are words on purpose
bcall Apply $ARGS
t1=$(date +%s%N)
check "a $N-object Apply succeeds" has "tas 1 $N"
span=$(((t1 - t0) / 1000))
diag "one Apply of $N objects: $((span / 1000)) ms"
stop_lnetd
rm -rf "$T/state"

all=0
none=0
bad=0

# trial N DELAY: start lnetd, send the Apply, kill -9 lnetd DELAY seconds later
# (DELAY "reply": once the Apply was answered), restart it and count what survived.
trial() {
	start_lnetd || {
		bad=$((bad + 1))
		return
	}
	# shellcheck disable=SC2086
	busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" --timeout="$TEST_WAIT" call org.lnetd1 /org/lnetd1 \
		org.lnetd1.Manager Apply $ARGS >/dev/null 2>&1 &
	caller=$!
	if [ "$2" = reply ]; then
		wait "$caller"
	else
		sleep "$2"
	fi
	kill -9 "$LNETD_PID"
	wait "$LNETD_PID" 2>/dev/null
	wait "$caller" 2>/dev/null
	LNETD_PID=
	start_lnetd || {
		bad=$((bad + 1))
		diag "trial $1: lnetd does not start again"
		return
	}
	bcall Export
	got=$(echo "$OUT" | cut -d' ' -f3)
	gen=$(echo "$OUT" | cut -d' ' -f2)
	if [ "$got" = "$N" ] && [ "$gen" = 1 ]; then
		all=$((all + 1))
	elif [ "$got" = 0 ] && [ "$gen" = 0 ]; then
		none=$((none + 1))
	else
		bad=$((bad + 1))
		diag "trial $1 (kill after $2 s): $got objects at generation $gen"
	fi
	stop_lnetd
	rm -rf "$T/state"
}

i=0
while [ "$i" -lt "$TRIALS" ]; do
	i=$((i + 1))
	# A random point in the i-th slice of [0, 1.2 x the Apply's time]: the
	# kills cover the whole Apply, from before the call arrives to after.
	trial "$i" "$(awk -v s="$span" -v i="$i" -v n="$TRIALS" -v seed="$$" \
		'BEGIN { srand(seed + i); printf "%.6f", (i - rand()) * s * 1.2 / n / 1e6 }')"
done
# The machine's load changes while the trials run: a slower one can push the
# commit past the last kill, a quicker one put every kill after it.  Then a
# kill once the Apply was answered (after the commit, whatever the load), or
# kills each twice as early as the one before (ten cover a machine a
# thousand times quicker than when the Apply was timed), land on the side
# that none did.
if [ "$all" = 0 ]; then
	i=$((i + 1))
	trial "$i" reply
fi
k=1
while [ "$none" = 0 ] && [ "$k" -le 10 ]; do
	i=$((i + 1))
	trial "$i" "$(awk -v s="$span" -v k="$k" 'BEGIN { printf "%.6f", s * 1.2 / 20 / 2 ^ k / 1e6 }')"
	k=$((k + 1))
done
diag "$i trials: $all kept everything, $none kept nothing, $bad other"
check "every kill -9 left all of the Apply or none of it" test "$bad" = 0
check "the kills landed both before and after the commit" test "$all" -gt 0 -a "$none" -gt 0
finish
