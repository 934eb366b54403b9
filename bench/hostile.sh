#!/bin/sh
# L1 and B1, on an lnetd of their own (private bus).  Run from the build
# dir (make bench).
#   L1: judging a change costs time linear in its size: lnetd's CPU time
#       for a dry run of 160,000 peer operations over that for 40,000
#       (linear: 4), on an empty configuration; each the least of three.
#       Both sizes are past the caches: since a dry run's peers are judged
#       by the mirror alone, 10,000 take 30 ms and fit in them, and a
#       ratio against that measured the caches, not the algorithm.
#   B1: the worst call an unprivileged caller can make, timed against a
#       trivial one, with 10,000 peers and 100 rules configured.
set -u
. "${TOP_SRCDIR:-../..}/tests/integration/lib.sh"
LNETD=${LNETD:-lnetd/lnetd}
start_bus
start_lnetd || { echo "FAIL: lnetd does not start"; exit 1; }
rc=0

# lnetd's CPU time so far in µs: the scheduler's count (ns) where the
# kernel keeps one, else the 10 ms ticks of /proc/PID/stat
cpu() {
	if [ -r "/proc/$LNETD_PID/schedstat" ]; then
		awk '{ printf "%d\n", $1 / 1000 }' "/proc/$LNETD_PID/schedstat"
	else
		awk '{ print ($14 + $15) * 10000 }' "/proc/$LNETD_PID/stat"
	fi
}
# ticks N: lnetd's CPU µs for a dry run of N operations, the least of three
# runs (one run alone is noise as much as cost, the more so on a busy machine).
ticks() {
	best=
	for _ in 1 2 3; do
		a=$(cpu)
		tests/integration/hostile ops "$1" >/dev/null
		t=$(($(cpu) - a))
		if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
	done
	echo "$best"
}
tests/integration/hostile ops 10000 >/dev/null # warm: the first run pays for the store's cache
s=$(ticks 40000)
l=$(ticks 160000)
awk -v s="$s" -v l="$l" 'BEGIN {
	r = s ? l / s : 0
	printf "L1: a 160,000-operation dry run costs lnetd %.2f times a 40,000-operation one " \
		"(%.3f and %.3f s of CPU, each the least of 3 runs; target <= 5, linear is 4)\n", \
		r, l / 1e6, s / 1e6
	if (!s || r > 5) { print "L1: FAIL"; exit 1 }
	print "L1: ok"
}' || rc=1

tests/integration/hostile peers 10000 >/dev/null || { echo "FAIL: cannot configure"; exit 1; }
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	LNETD_PID=$LNETD_PID setpriv --reuid=65534 --regid=65534 --clear-groups \
		tests/integration/hostile bench || rc=1
else
	LNETD_PID=$LNETD_PID tests/integration/hostile bench || rc=1
fi
exit $rc
