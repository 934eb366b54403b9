#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench/tbf-live.sh - NRS TBF on live requests, userspace engine: a server
# node whose test service has a TBF policy (service lnet_test, bucket depth
# DEPTH) and three client nodes writing to it at once, each with a rule of
# its own by source NID (tests/integration/tbf-live-lib.sh builds them).
#   T1  rules at 100, 500 and 1,000 requests/s for TBF_LIVE_SECONDS (default
#       4; the issue's figure is 10): each client's requests ÷ (rate x its
#       elapsed time + depth), as a % (target 99-101 %); a plot of achieved
#       vs configured requests/s over time per class ($BENCH_OUT/t1-rates.png)
#   T2  overloaded: each client offers more than its rule allows (rules at
#       T2_RATE x 1, 2, 4; default 10,000/s): each class's share of what the
#       policy dispatched in a 1 s window ÷ its share of the rates (target
#       1.0; none starves).  With T2_RATE=100000 the server's CPU runs out
#       before the rules do: requests never wait in the policy with a token
#       (the test service's handler costs nothing, there are no service
#       threads to wait for), so the shares are the clients' (equal), not
#       the rates'; proportional sharing there needs a service capacity.
# Each figure is also recorded for doc/BENCHMARKS.md (bench/figure.sh).
# Needs root and ip netns; says so and exits 0 otherwise.  Figures, not
# tests: nothing here fails on a slow machine.
#
# With NODE_ENGINE=kernel (the VM guest's dpbench group, bench/dp.sh says
# how) the nodes are lnetk instances: no trace, so no plot.
set -u
IP=${IP:-ip}
ENGINE=${NODE_ENGINE:-userspace}
if [ "$(id -u)" != 0 ] || ! "$IP" netns list >/dev/null 2>&1; then
	echo "tbf-live bench: skipped (needs root and ip netns)"
	exit 0
fi
LNETD=${LNETD:-lnetd/lnetd}
LNETCTL=${LNETCTL:-lnetctl/lnetctl}
OUT=${BENCH_OUT:-bench/out}
SECS=${TBF_LIVE_SECONDS:-4}
DEPTH=16 # the node's clock ticks in ms: a late tick loses nothing below 16 tokens
mkdir -p "$OUT"
T=$(mktemp -d "${TMPDIR:-/tmp}/lnetd-tbf.XXXXXX")
NS=lnb$$
TOP=${TOP_SRCDIR:-$(dirname "$0")/..}
. "$TOP/tests/integration/nodes.sh"
. "$TOP/tests/integration/tbf-live-lib.sh"
. "$TOP/bench/figure.sh"
trap 'nodes_cleanup; rm -rf "$T"' EXIT

tbf_live_net 10.83
if [ "$LIVE_OK" != yes ]; then
	echo "tbf-live bench: the nodes did not start" >&2
	exit 1
fi
node_ctl s tbf policy set --service lnet_test --queue reg --depth $DEPTH >/dev/null
tbf_live_rules a 100 b 500 c 1000 || exit 1
# the module's test service takes the policy that exists when it is turned on
node_ctl s selftest service on >/dev/null

# --- T1: each class at its rate -------------------------------------------------
if [ "$ENGINE" = userspace ]; then
	LIVE_SIZE=4096 LIVE_TRACE_MS=250 tbf_live_run "$SECS" a 100 b 500 c 1000
else
	LIVE_SIZE=4096 tbf_live_run "$SECS" a 100 b 500 c 1000
fi
for x in a b c; do
	eval "rate=\$rate_$x cnt=\$cnt_$x"
	tbf_live_result $x
	awk -v e="$ENGINE" -v x=$x -v n="$cnt" -v r="$rate" -v t="$LIVE_SECS" -v d=$DEPTH -v f="$LIVE_FAILED" 'BEGIN {
		want = r * t + d; p = want > 0 ? n / want * 100 : 0
		printf "T1 (%s engine) %s at %d/s: %d requests in %.3f s (%d failed): %.1f/s; ÷ (rate x time + depth) = %.2f %% (%s)\n",
			e, x, r, n, t, f, (t > 0 ? n / t : 0), p, ((p >= 99 && p <= 101) ? "ok" : "outside 99-101 %") }'
	want=$(awk -v r="$rate" -v t="$LIVE_SECS" -v d=$DEPTH 'BEGIN { printf "%.0f", r * t + d }')
	p=$(awk -v n="$cnt" -v w="$want" 'BEGIN { printf "%.2f", (w > 0 ? n / w * 100 : 0) }')
	figure T1 "$ENGINE" "class $x, a TBF rule of $rate requests/s: the requests it got ÷ what the rule allows (rate × time + bucket depth $DEPTH), in %" \
		"$cnt requests in $LIVE_SECS s" "$want allowed" "$p %" "99-101 %" "$(okrange "$p" 99 101)"
done
if command -v gnuplot >/dev/null 2>&1 && [ -s "$T/live-a.csv" ]; then
	for x in a b c; do cp "$T/live-$x.csv" "$OUT/t1-$x.csv"; done
	gnuplot <<GP
set datafile separator ","
set terminal pngcairo size 900,500 noenhanced
set output "$OUT/t1-rates.png"
set title "T1: achieved (points) vs configured (lines) requests/s per class, 4 KiB requests, depth $DEPTH"
set xlabel "seconds"
set ylabel "requests/s"
set grid
set yrange [0:1300]
set key outside right
plot "$OUT/t1-a.csv" using 1:(\$2*1e6/4096) skip 1 with linespoints pt 7 ps 0.5 title "a (rule 100/s)", \
     "$OUT/t1-b.csv" using 1:(\$2*1e6/4096) skip 1 with linespoints pt 7 ps 0.5 title "b (rule 500/s)", \
     "$OUT/t1-c.csv" using 1:(\$2*1e6/4096) skip 1 with linespoints pt 7 ps 0.5 title "c (rule 1000/s)", \
     100 with lines dt 2 lc 1 notitle, 500 with lines dt 2 lc 2 notitle, 1000 with lines dt 2 lc 3 notitle
GP
	echo "T1: plot in $OUT/t1-rates.png"
else
	echo "T1: no plot (no gnuplot or no trace)"
fi

# --- T2: overloaded, shares in proportion to the rates ---------------------------
# The rates: T2_RATE (10,000 by default) x 1, 2 and 4; a depth of a tick's tokens.
R2=${T2_RATE:-10000}
node_ctl s tbf policy set --service lnet_test --queue reg --depth $((R2 * 4 / 1000 + 16)) >/dev/null
for x in a b c; do
	case $x in a) r=$R2 ;; b) r=$((R2 * 2)) ;; c) r=$((R2 * 4)) ;; esac
	node_ctl s tbf rule change --service lnet_test --queue reg "c$x" "rate=$r" >/dev/null
done
snap() { for x in a b c; do tbf_live_dispatched "c$x"; done | tr '\n' ' '; }
LIVE_SIZE=64 tbf_live_start 2 a "$R2" b $((R2 * 2)) c $((R2 * 4))
sleep 0.5
# the clock: /proc/uptime (busybox's date, in the VM guest, has no %N)
s0=$(snap)
t0=$(cut -d' ' -f1 /proc/uptime)
sleep 1
s1=$(snap)
t1=$(cut -d' ' -f1 /proc/uptime)
# shellcheck disable=SC2086
wait $LIVE_PIDS
echo "$s0 $s1 $t0 $t1" | awk -v e="$ENGINE" -v r2="$R2" -v ship="${BENCH_SHIP:-0}" -v figs="${BENCH_FIGURES:-}" '{
	r[1] = r2; r[2] = 2 * r2; r[3] = 4 * r2; sr = 7 * r2; dt = $8 - $7; tot = 0
	for (i = 1; i <= 3; i++) { d[i] = $(i + 3) - $i; tot += d[i] }
	printf "T2 (%s engine) overloaded: %.0f requests/s dispatched in all, of %d/s the rules allow\n", e, (dt > 0 ? tot / dt : 0), sr
	split("a b c", nm, " ")
	for (i = 1; i <= 3; i++) {
		share = tot > 0 ? d[i] / tot : 0; want = r[i] / sr
		printf "T2 (%s engine) %s (rule %d/s): %.0f/s, share %.3f ÷ rate share %.3f = %.2f (%s)\n", e, nm[i], r[i],
			(dt > 0 ? d[i] / dt : 0), share, want, share / want,
			(d[i] == 0 ? "starved" : (share / want >= 0.9 && share / want <= 1.1 ? "ok" : "off"))
		# the figure for doc/BENCHMARKS.md (bench/figure.sh has the fields)
		fig = sprintf("FIGURE\tT2\t%s\toverloaded, class %s (rule %d/s; the rules at 1, 2, 4 × %d/s): its share of what the policy dispatched in 1 s ÷ its share of the rates\t%.3f of %.0f dispatched/s\t%.3f of the rates\t%.2f\t0.9-1.1\t%s",
			e, nm[i], r[i], r2, share, (dt > 0 ? tot / dt : 0), want, share / want,
			(share / want >= 0.9 && share / want <= 1.1 ? "ok" : "FAIL"))
		if (ship == 1) print fig
		else if (figs != "") print fig >> figs
	}
}'
