#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench/dp.sh - the data path's figures, each a ratio measured in this run
# (userspace engine; two lnetd nodes in network namespaces of their own,
# joined by veth rails):
#   D1  bulk writes over 2 and 4 rails, each shaped to the same rate with tc,
#       ÷ over 1 rail (targets: >= 1.9, >= 3.7); a plot of each rail's MB/s
#       over time during the 4-rail run ($BENCH_OUT/d1-rails.png)
#   D2  a ping's round trip through LNet ÷ a raw TCP round trip of the same
#       size on the same veth (target <= 1.5)
#   D3  0-byte PUTs per second ÷ raw TCP messages per second of the same
#       size (LNet's 96-byte header) on the same veth (target >= 0.5)
#   D4  the cost of a message with 1,000 UDSP rules ÷ with none (<= 1.05)
# Needs root and ip netns; says so and exits 0 otherwise.  Figures, not
# tests: nothing here fails on a slow machine.
#
# The same figures in the VM tier's guest, with the kernel engine (lnetk
# nodes), come from `LNETD_VM_ONLY=dpbench tests/vm/run.sh`, which runs this
# script there with NODE_ENGINE=kernel (D1's plot is the host's only),
# IP=/bin/ip2, and a lower DP_RAIL_RATE and DP_MIB_PER_RAIL for TCG; at its
# end this script runs that when the VM tier can (BENCH_VM=0: never).
set -u
IP=${IP:-ip}
TC=${TC:-tc}
ENGINE=${NODE_ENGINE:-userspace}
if [ "$(id -u)" != 0 ] || ! "$IP" netns list >/dev/null 2>&1; then
	echo "dp bench: skipped (needs root and ip netns)"
	exit 0
fi
LNETD=${LNETD:-lnetd/lnetd}
LNETCTL=${LNETCTL:-lnetctl/lnetctl}
TCPRR=${TCPRR:-bench/tcp-rr}
OUT=${BENCH_OUT:-bench/out}
RATE=${DP_RAIL_RATE:-200mbit}
MIB=${DP_MIB_PER_RAIL:-64}
# the engine the figures are of, on each line
E="$ENGINE engine"
mkdir -p "$OUT"
T=$(mktemp -d "${TMPDIR:-/tmp}/lnetd-dp.XXXXXX")
NS=lnb$$
. "${TOP_SRCDIR:-$(dirname "$0")/..}/tests/integration/nodes.sh"
trap 'nodes_cleanup; rm -rf "$T"' EXIT
on() { node_ctl "$@"; }
up() { node_up "$1"; }
# field KEY: the number after "KEY:" in $R (a selftest's YAML)
field() { printf '%s\n' "$R" | awk -v k="$1:" '$1 == k { print $2; exit }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
# verdict VALUE OP TARGET: "ok" or "below target" (a figure, not a test: the exit status stays 0)
verdict() { awk -v v="$1" -v op="$2" -v t="$3" 'BEGIN {
	good = (op == "<=") ? (v + 0 <= t + 0) : (v + 0 >= t + 0)
	print (v == "n/a" || !good) ? "below target" : "ok" }'; }

node_ns a b && node_rails a b 4 10.66 || exit 1
for x in a b; do
	node_start $x || {
		echo "dp bench: node $x did not start" >&2
		exit 1
	}
done
# One LNet net per rail, so that each rail is a path of its own.
net() { [ "$1" = 0 ] && echo tcp || echo "tcp$1"; }
for r in 0 1 2 3; do on b net add --net "$(net $r)" --if "b$r" >/dev/null; done
on b selftest service on
on a net add --net tcp --if a0 >/dev/null
up a
up b

# --- D2: round trips ----------------------------------------------------------
N=2000
# the best of three each: a figure of the path, not of the machine's other load
lnet_rtt=
raw_rtt=
"$IP" netns exec "${NS}b" "$TCPRR" serve 10.66.0.2 5999 &
NODE_PIDS="$NODE_PIDS $!"
sleep 0.2
for _ in 1 2 3; do
	R=$(on a selftest run --nid 10.66.0.2@tcp --mode ping --count $N --concurrency 1)
	x=$(awk -v s="$(field seconds)" -v n=$N 'BEGIN { printf "%.2f", s / n * 1e6 }')
	lnet_rtt=$(awk -v a="$lnet_rtt" -v x="$x" 'BEGIN { print (a == "" || x < a ? x : a) }')
	x=$("$IP" netns exec "${NS}a" "$TCPRR" rr 10.66.0.2 5999 96 $N)
	raw_rtt=$(awk -v a="$raw_rtt" -v x="$x" 'BEGIN { print (a == "" || x < a ? x : a) }')
done
d2=$(ratio "$lnet_rtt" "$raw_rtt")
echo "D2 ($E): ping round trip through LNet ${lnet_rtt} us, raw TCP ${raw_rtt} us: ratio $d2 (target <= 1.5): $(verdict "$d2" "<=" 1.5)"

# --- D3: small messages ---------------------------------------------------------
best_rate() { # the best of three: messages/s of 0-byte PUTs without ACKs
	b=0
	for _ in 1 2 3; do
		R=$(on a selftest run --nid 10.66.0.2@tcp --mode write --size 0 --no-ack \
			--count 50000 --concurrency 128)
		x=$(field messages/s)
		b=$(awk -v a="$b" -v x="${x:-0}" 'BEGIN { print (x > a ? x : a) }')
	done
	echo "$b"
}
lnet_rate=$(best_rate)
raw_rate=0
for _ in 1 2 3; do
	x=$("$IP" netns exec "${NS}a" "$TCPRR" stream 10.66.0.2 5999 96 50000)
	raw_rate=$(awk -v a="$raw_rate" -v x="${x:-0}" 'BEGIN { print (x > a ? x : a) }')
done
d3=$(ratio "$lnet_rate" "$raw_rate")
echo "D3 ($E): 0-byte PUTs ${lnet_rate}/s, raw TCP 96-byte messages ${raw_rate}/s: ratio $d3 (target >= 0.5): $(verdict "$d3" ">=" 0.5)"

# --- D4: 1,000 UDSP rules ------------------------------------------------------
{
	echo "udsp:"
	i=0
	while [ $i -lt 1000 ]; do
		printf '    - src: tcp7\n      dst: 10.%d.%d.[1-9]@tcp9\n      action:\n          priority: %d\n' \
			$((i / 250 + 100)) $((i % 250)) $((i % 100))
		i=$((i + 1))
	done
} >"$T/rules.yaml"
on a import --no-progress "$T/rules.yaml" >/dev/null || echo "D4: the rules did not import" >&2
rules_rate=$(best_rate)
d4=$(ratio "$lnet_rate" "$rules_rate")
echo "D4 ($E): 0-byte PUTs with 1,000 rules ${rules_rate}/s, with none ${lnet_rate}/s: per-message cost ratio $d4 (target <= 1.05): $(verdict "$d4" "<=" 1.05)"
on a udsp del --all >/dev/null 2>&1 || on a import --del "$T/rules.yaml" >/dev/null 2>&1

# --- D1: Multi-Rail --------------------------------------------------------------
for r in 0 1 2 3; do
	"$IP" netns exec "${NS}a" "$TC" qdisc replace dev "a$r" root tbf rate "$RATE" burst 256kb latency 100ms
done
on a peer add --prim_nid 10.66.0.2@tcp --nid 10.66.1.2@tcp1,10.66.2.2@tcp2,10.66.3.2@tcp3 \
	>/dev/null
mbs() { # RAILS: MB/s of 1 MiB writes over that many rails, about 3 s worth
	n=$1
	r=1
	while [ $r -lt "$n" ]; do
		on a net add --net "$(net $r)" --if "a$r" >/dev/null
		r=$((r + 1))
	done
	up a
	shift
	R=$(on a selftest run --nid 10.66.0.2@tcp --size 1048576 --count $((MIB * n)) \
		--concurrency $((8 * n)) "$@")
	r=1
	while [ $r -lt "$n" ]; do
		on a net del --net "$(net $r)" >/dev/null
		r=$((r + 1))
	done
	field MB/s
}
one=$(mbs 1)
two=$(mbs 2)
if [ "$ENGINE" = userspace ]; then
	four=$(mbs 4 --trace "$OUT/d1-rails.csv" --interval 100)
else
	four=$(mbs 4)
fi
echo "D1 ($E): writes over 1 rail ${one} MB/s, 2 rails ${two} MB/s, 4 rails ${four} MB/s (each rail shaped to $RATE)"
d12=$(ratio "$two" "$one")
d14=$(ratio "$four" "$one")
echo "D1 ($E): 2 rails ÷ 1: $d12 (target >= 1.9): $(verdict "$d12" ">=" 1.9); 4 rails ÷ 1: $d14 (target >= 3.7): $(verdict "$d14" ">=" 3.7)"
if [ "$ENGINE" != userspace ]; then
	: # no trace to plot
elif command -v gnuplot >/dev/null 2>&1 && [ -s "$OUT/d1-rails.csv" ]; then
	gnuplot <<GP
set datafile separator ","
set terminal pngcairo size 900,800 noenhanced
set output "$OUT/d1-rails.png"
set xlabel "seconds"
set ylabel "MB/s"
set grid
set multiplot layout 4,1 title "D1: 1 MiB writes over 4 rails, each shaped to $RATE: MB/s per rail"
unset title
set yrange [0:*]
do for [i=2:5] {
	plot "$OUT/d1-rails.csv" using 1:i with linespoints lw 2 pt 7 ps 0.4 title columnheader(i)
}
unset multiplot
GP
	echo "D1: per-rail plot in $OUT/d1-rails.png (data: $OUT/d1-rails.csv)"
else
	echo "D1: per-rail data in $OUT/d1-rails.csv (no gnuplot for the plot)"
fi

# --- the same in the VM tier's guest, with the kernel engine ---------------------
if [ "$ENGINE" = userspace ] && [ "${BENCH_VM:-1}" != 0 ] && [ -n "${TOP_SRCDIR:-}" ]; then
	trap - EXIT
	nodes_cleanup
	rm -rf "$T"
	echo "== D1-D4, T1-T2, H1 in the VM tier's guest (lnetk nodes, kernel engine; TCG: ratios only)"
	LNETD_VM_ONLY=dpbench "$TOP_SRCDIR/tests/vm/run.sh" 2>&1 |
		sed -n 's/^# \([DTH][1-4] (kernel engine).*\)/\1/p; s/^\(1\.\.0 # SKIP.*\)/VM: \1/p;
			s/^not ok.*/VM: &/p'
fi
