#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench/health.sh - failover figures, measured in this run (userspace
# engine; two lnetd nodes in network namespaces of their own, joined by
# four veth rails, one LNet net per rail, each shaped to the same rate):
#   H1  1 MiB writes over 4 rails; rail 0's link is set down in the middle.
#       The 3-rail rate after it ÷ the 4-rail rate before (about 0.75), and
#       how long after the link went down the total was back to >= 0.9 of
#       the 3-rail rate (target <= 1 s; upstream without a link event waits
#       for lnd_timeout, 49 s by default); messages lost (target 0).  A plot
#       of each rail's MB/s over time ($BENCH_OUT/h1-failover.png).
# NODE_ENGINE=kernel runs lnetk nodes instead (the VM tier's guest does, with
# IP=/bin/ip2 TC=/bin/tc2 and a lower HEALTH_RAIL_RATE for TCG): the module
# hears the link go down from its netdev notifier and samples the trace.
# Needs root and ip netns; says so and exits 0 otherwise.  Figures, not
# tests: nothing here fails on a slow machine.
set -u
IP=${IP:-ip}
TC=${TC:-tc}
E="${NODE_ENGINE:-userspace} engine"
if [ "$(id -u)" != 0 ] || ! "$IP" netns list >/dev/null 2>&1; then
	echo "health bench: skipped (needs root and ip netns)"
	exit 0
fi
LNETD=${LNETD:-lnetd/lnetd}
LNETCTL=${LNETCTL:-lnetctl/lnetctl}
OUT=${BENCH_OUT:-bench/out}
RATE=${HEALTH_RAIL_RATE:-200mbit}
DOWN_AT=${HEALTH_DOWN_AT:-3} # seconds into the transfer
mkdir -p "$OUT"
T=$(mktemp -d "${TMPDIR:-/tmp}/lnetd-health.XXXXXX")
NS=lnhb$$
. "${TOP_SRCDIR:-$(dirname "$0")/..}/tests/integration/nodes.sh"
trap 'nodes_cleanup; rm -rf "$T"' EXIT
on() { node_ctl "$@"; }
now_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }

node_ns a b && node_rails a b 4 10.67 || exit 1
for x in a b; do
	node_start $x || {
		echo "health bench: node $x did not start" >&2
		exit 1
	}
done
net() { [ "$1" = 0 ] && echo tcp || echo "tcp$1"; }
for r in 0 1 2 3; do
	on a net add --net "$(net $r)" --if "a$r" >/dev/null
	on b net add --net "$(net $r)" --if "b$r" >/dev/null
	"$IP" netns exec "${NS}a" "$TC" qdisc replace dev "a$r" root tbf rate "$RATE" burst 256kb \
		latency 100ms
done
on b selftest service on
on a peer add --prim_nid 10.67.0.2@tcp --nid 10.67.1.2@tcp1,10.67.2.2@tcp2,10.67.3.2@tcp3 \
	>/dev/null
node_up a
node_up b

# About 4 s on 4 rails at RATE, then the rest on 3: 1 MiB writes, 8 per rail in flight.
mb=$(echo "$RATE" | awk '{ r = $1 + 0; if ($1 ~ /gbit/) r *= 1000; print int(r / 8) }')
count=$((mb * 4 * (DOWN_AT + 4)))
t0=$(now_ms)
on a selftest run --nid 10.67.0.2@tcp --size 1048576 --count "$count" --concurrency 32 \
	--trace "$OUT/h1-failover.csv" --interval 100 >"$T/run.out" 2>&1 &
job=$!
sleep "$DOWN_AT"
"$IP" -n "${NS}a" link set a0 down
down=$(awk -v a="$(now_ms)" -v b="$t0" 'BEGIN { printf "%.2f", (a - b) / 1000 }')
wait $job
R=$(cat "$T/run.out")
failed=$(printf '%s\n' "$R" | awk '$1 == "failed:" { print $2; exit }')
echo "H1 ($E): $count writes of 1 MiB, rail 0's link down at ${down} s: ${failed:-?} lost (target 0)"
awk -F, -v down="$down" -v e="$E" '
	NR == 1 { next }
	{ t = $1; tot = 0; for (i = 2; i <= NF; i++) tot += $i; s[NR] = t; v[NR] = tot; n = NR }
	END {
		for (i = 2; i <= n; i++) {
			if (s[i] > 1 && s[i] <= down) { b += v[i]; nb++ }
			if (s[i] > down + 2 && i < n) { a += v[i]; na++ }
		}
		four = nb ? b / nb : 0; three = na ? a / na : 0
		for (i = 2; i <= n; i++)
			if (s[i] > down && three > 0 && v[i] >= 0.9 * three) { back = s[i] - down; break }
		printf "H1 (%s): 4 rails %.1f MB/s before, 3 rails %.1f MB/s after: ratio %.2f (about 0.75)\n",
			e, four, three, (four > 0 ? three / four : 0)
		if (back == "")
			print "H1 (" e "): the total never came back to 0.9 of the 3-rail rate: below target"
		else
			printf "H1 (%s): back to >= 0.9 of the 3-rail rate %.1f s after the link went down (target <= 1 s): %s\n",
				e, back, back <= 1 ? "ok" : "below target"
	}' "$OUT/h1-failover.csv"
if command -v gnuplot >/dev/null 2>&1 && [ -s "$OUT/h1-failover.csv" ]; then
	gnuplot <<GP
set datafile separator ","
set terminal pngcairo size 900,800 noenhanced
set output "$OUT/h1-failover.png"
set xlabel "seconds"
set ylabel "MB/s"
set grid
set arrow from $down, graph 0 to $down, graph 1 nohead dt 2 lc rgb "red"
set multiplot layout 4,1 title "H1: 1 MiB writes over 4 rails shaped to $RATE; rail 0's link down at $down s (red)"
unset title
set yrange [0:*]
do for [i=2:5] {
	plot "$OUT/h1-failover.csv" using 1:i with linespoints lw 2 pt 7 ps 0.4 title columnheader(i)
}
unset multiplot
GP
	echo "H1: per-rail plot in $OUT/h1-failover.png (data: $OUT/h1-failover.csv)"
else
	echo "H1: per-rail data in $OUT/h1-failover.csv (no gnuplot for the plot)"
fi
