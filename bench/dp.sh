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
#   D5  the wire itself, one unshaped rail: bulk 1 MiB writes through LNet
#       ÷ raw TCP on the same veth, iperf3 with as many parallel streams as
#       LNet opened connections (target >= 0.8); and LNet over 2 unshaped
#       rails ÷ over 1 (no target: above 1 where the CPU, not the link, is
#       the limit and the engine spreads the work)
# Each figure is also recorded for doc/BENCHMARKS.md (bench/figure.sh).
# DP_FIGURES="D5" (any of D1-D5, blank-separated) measures only those (D4
# needs D3: it runs with it), and then not in the guest.
# Needs root and ip netns; says so and exits 0 otherwise.  Figures, not
# tests: nothing here fails on a slow machine.
#
# The same figures in the VM tier's guest, with the kernel engine (lnetk
# nodes), come from `LNETD_VM_ONLY=dpbench tests/vm/run.sh`, which runs this
# script there with NODE_ENGINE=kernel, IP=/bin/ip2, and a lower
# DP_RAIL_RATE and DP_MIB_PER_RAIL for TCG; at its end this script runs
# that when the VM tier can (BENCH_VM=0: never), with the interop group
# (upstream's LNet beside lnetd: X1, X2), takes the guest's figures and
# traces off the console, and draws the kernel engine's plots here.
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
IPERF=${IPERF:-iperf3}
OUT=${BENCH_OUT:-bench/out}
RATE=${DP_RAIL_RATE:-200mbit}
MIB=${DP_MIB_PER_RAIL:-64}
FIGS=" ${DP_FIGURES:-D1 D2 D3 D4 D5} "
want() { case "$FIGS" in *" $1 "*) return 0 ;; esac; return 1; }
want D4 && FIGS="$FIGS D3 "
[ -z "${DP_FIGURES:-}" ] || BENCH_VM=0
# the engine the figures are of, on each line
E="$ENGINE engine"
mkdir -p "$OUT"
T=$(mktemp -d "${TMPDIR:-/tmp}/lnetd-dp.XXXXXX")
NS=lnb$$
TOP=${TOP_SRCDIR:-$(dirname "$0")/..}
. "$TOP/tests/integration/nodes.sh"
. "$TOP/bench/figure.sh"
. "$TOP/bench/plot.sh"
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

# raw TCP's side of D2 and D3
if want D2 || want D3; then
	"$IP" netns exec "${NS}b" "$TCPRR" serve 10.66.0.2 5999 &
	NODE_PIDS="$NODE_PIDS $!"
	sleep 0.2
fi

# --- D2: round trips ----------------------------------------------------------
if want D2; then
N=2000
# the best of three each: a figure of the path, not of the machine's other load
lnet_rtt=
raw_rtt=
for _ in 1 2 3; do
	R=$(on a selftest run --nid 10.66.0.2@tcp --mode ping --count $N --concurrency 1)
	x=$(awk -v s="$(field seconds)" -v n=$N 'BEGIN { printf "%.2f", s / n * 1e6 }')
	lnet_rtt=$(awk -v a="$lnet_rtt" -v x="$x" 'BEGIN { print (a == "" || x < a ? x : a) }')
	x=$("$IP" netns exec "${NS}a" "$TCPRR" rr 10.66.0.2 5999 96 $N)
	raw_rtt=$(awk -v a="$raw_rtt" -v x="$x" 'BEGIN { print (a == "" || x < a ? x : a) }')
done
d2=$(ratio "$lnet_rtt" "$raw_rtt")
echo "D2 ($E): ping round trip through LNet ${lnet_rtt} us, raw TCP ${raw_rtt} us: ratio $d2 (target <= 1.5): $(verdict "$d2" "<=" 1.5)"
figure D2 "$ENGINE" "a ping's round trip through LNet ÷ a raw TCP round trip of the same size (96 bytes) on the same veth (best of 3 × $N)" \
	"$lnet_rtt µs" "$raw_rtt µs, raw TCP" "$d2" "≤ 1.5" "$(okfail "$d2" "<=" 1.5)"
fi

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
if want D3; then
lnet_rate=$(best_rate)
raw_rate=0
for _ in 1 2 3; do
	x=$("$IP" netns exec "${NS}a" "$TCPRR" stream 10.66.0.2 5999 96 50000)
	raw_rate=$(awk -v a="$raw_rate" -v x="${x:-0}" 'BEGIN { print (x > a ? x : a) }')
done
d3=$(ratio "$lnet_rate" "$raw_rate")
echo "D3 ($E): 0-byte PUTs ${lnet_rate}/s, raw TCP 96-byte messages ${raw_rate}/s: ratio $d3 (target >= 0.5): $(verdict "$d3" ">=" 0.5)"
figure D3 "$ENGINE" "0-byte PUTs per second (no ACK, 128 in flight) ÷ raw TCP messages of LNet's 96-byte header per second, streamed on the same veth" \
	"$lnet_rate PUTs/s" "$raw_rate messages/s, raw TCP" "$d3" "≥ 0.5" "$(okfail "$d3" ">=" 0.5)"
fi

# --- D4: 1,000 UDSP rules ------------------------------------------------------
if want D4; then
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
figure D4 "$ENGINE" "a message's cost with 1,000 UDSP rules configured ÷ with none (0-byte PUTs per second, inverted)" \
	"$rules_rate PUTs/s, 1,000 rules" "$lnet_rate PUTs/s, none" "$d4" "≤ 1.05" "$(okfail "$d4" "<=" 1.05)"
on a udsp del --all >/dev/null 2>&1 || on a import --del "$T/rules.yaml" >/dev/null 2>&1
fi

# b as a Multi-Rail peer of four NIDs, one per rail (D5 and D1)
on a peer add --prim_nid 10.66.0.2@tcp --nid 10.66.1.2@tcp1,10.66.2.2@tcp2,10.66.3.2@tcp3 \
	>/dev/null

# --- D5: the wire itself: unshaped rails, LNet ÷ raw TCP -------------------------
# rails N: node a's NIs on rails 1..N-1 besides rail 0's, as many as asked
rails() {
	r=1
	while [ $r -lt 4 ]; do
		if [ $r -lt "$1" ]; then
			on a net add --net "$(net $r)" --if "a$r" >/dev/null 2>&1
		else
			on a net del --net "$(net $r)" >/dev/null 2>&1
		fi
		r=$((r + 1))
	done
	up a
}
# cpu_ns: the CPU time both lnetd have had (ns; 0 with the kernel engine,
# whose work runs in the kernel's threads, not lnetd's)
cpu_ns() {
	[ "$ENGINE" = userspace ] || { echo 0; return; }
	for x in a b; do
		p=$(pgrep -f -- "--state-dir=$T/$x.state" | head -n 1)
		awk '{ print $1 }' "/proc/$p/schedstat" 2>/dev/null || echo 0
	done | awk '{ s += $1 } END { printf "%.0f\n", s }'
}
# lnet_mbs RAILS COUNT: MB/s of COUNT 1 MiB writes over RAILS unshaped rails,
# 8 in flight each; the CPU both lnetd took for it, ns per MB, in $lnet_cpu
lnet_mbs() {
	c0=$(cpu_ns)
	R=$(on a selftest run --nid 10.66.0.2@tcp --size 1048576 --count "$2" --concurrency $((8 * $1)))
	lnet_cpu=$(awk -v a="$c0" -v b="$(cpu_ns)" -v n="$2" 'BEGIN { printf "%.0f", (b - a) / (n * 1.048576) }')
	field MB/s
}
# conns: the TCP connections node a holds on rail 0 to LNet's port (988), the
# one LNet opens; /proc/net/tcp gives them in every engine and in the guest
conns() {
	"$IP" netns exec "${NS}a" cat /proc/net/tcp | awk '
		$4 == "01" && ($2 == "0100420A:03DC" || ($2 ~ /^0100420A:/ && $3 ~ /:03DC$/)) { n++ }
		END { print n + 0 }'
}
# raw_mbs STREAMS: MB/s of raw TCP from a to b on rail 0, iperf3 with STREAMS
# streams for D5_SECONDS (what the receiver got); the CPU both iperf3 took for
# it, ns per MB, in $raw_cpu (iperf3's own account)
raw_mbs() {
	# shellcheck disable=SC2046 # two numbers
	set -- $("$IP" netns exec "${NS}a" "$IPERF" -c 10.66.0.2 -p 5201 -P "$1" -t "$D5S" -J \
		2>/dev/null | tr -d '",' | awk '
		$1 == "cpu_utilization_percent:" { c = 1 }
		c && $1 == "host_total:" { h = $2 } c && $1 == "remote_total:" { r = $2 }
		$1 == "sum_received:" { f = 1 }
		f && $1 == "seconds:" && !s { s = $2 } f && $1 == "bytes:" && !b { b = $2 }
		f && $1 == "bits_per_second:" && !m { m = $2 }
		END { if (b > 0) printf "%.1f %.0f\n", m / 8e6, (h + r) / 100 * s * 1e9 / (b / 1e6) }')
	raw_cpu=${2:-0}
	echo "${1:-0}"
}
D5S=${DP_D5_SECONDS:-3}
if ! want D5; then
	:
elif command -v "$IPERF" >/dev/null 2>&1; then
	"$IP" netns exec "${NS}b" "$IPERF" -s -B 10.66.0.2 -p 5201 >/dev/null 2>&1 &
	NODE_PIDS="$NODE_PIDS $!"
	rails 1
	# as many 1 MiB writes as take about D5_SECONDS at the rate a first short run gives
	x=$(lnet_mbs 1 64)
	cnt=$(awk -v r="${x:-0}" -v s="$D5S" 'BEGIN { n = int(r * s / 1.048576); print (n < 64 ? 64 : n) }')
	streams=$(conns)
	[ "$streams" -ge 1 ] 2>/dev/null || streams=1
	one=0 raw=0 two=0 one_cpu=0 raw_cpu_b=0
	# interleaved, the best of three each: the path, not the machine's other load
	# (and the least CPU per MB each)
	for _ in 1 2 3; do
		lnet_mbs 1 "$cnt" >"$T/x"
		one=$(awk -v a="$one" -v x="$(cat "$T/x")" 'BEGIN { print (x + 0 > a ? x + 0 : a) }')
		one_cpu=$(awk -v a="$one_cpu" -v x="$lnet_cpu" 'BEGIN { print (a == 0 || x < a ? x : a) }')
		raw_mbs "$streams" >"$T/x"
		raw=$(awk -v a="$raw" -v x="$(cat "$T/x")" 'BEGIN { print (x + 0 > a ? x + 0 : a) }')
		raw_cpu_b=$(awk -v a="$raw_cpu_b" -v x="$raw_cpu" 'BEGIN { print (a == 0 || x < a ? x : a) }')
	done
	rails 2
	for _ in 1 2 3; do
		x=$(lnet_mbs 2 $((cnt * 2)))
		two=$(awk -v a="$two" -v x="${x:-0}" 'BEGIN { print (x > a ? x : a) }')
	done
	rails 1
	d5=$(ratio "$one" "$raw")
	d52=$(ratio "$two" "$one")
	echo "D5 ($E): 1 MiB writes on one unshaped rail ${one} MB/s, raw TCP (iperf3, $streams stream(s), as many as LNet's connections) ${raw} MB/s: ratio $d5 (target >= 0.8): $(verdict "$d5" ">=" 0.8)"
	echo "D5 ($E): 1 MiB writes over 2 unshaped rails ${two} MB/s ÷ over 1: $d52 (above 1 where the CPU, not the link, is the limit)"
	figure D5 "$ENGINE" "bulk 1 MiB writes through LNet on one unshaped rail (8 in flight) ÷ raw TCP on the same veth, iperf3 with as many streams as LNet opened connections ($streams)" \
		"$one MB/s" "$raw MB/s, iperf3 -P $streams" "$d5" "≥ 0.8" "$(okfail "$d5" ">=" 0.8)"
	figure D5 "$ENGINE" "bulk 1 MiB writes over 2 unshaped rails ÷ over 1 (above 1 where the CPU, not the link, is the limit and the engine spreads the work)" \
		"$two MB/s, 2 rails" "$one MB/s, 1 rail" "$d52" "-" "-"
	if [ "$one_cpu" -gt 0 ] 2>/dev/null; then
		d5c=$(ratio "$one_cpu" "$raw_cpu_b")
		echo "D5 ($E): CPU per MB, both lnetd ${one_cpu} ns, both iperf3 ${raw_cpu_b} ns: ratio $d5c (target <= 1.25)"
		figure D5 "$ENGINE" "the CPU both nodes spend per MB of those writes (both lnetd) ÷ raw TCP's (both iperf3, their own account): the data path's cost, whatever the machine's load" \
			"$one_cpu ns/MB" "$raw_cpu_b ns/MB, iperf3" "$d5c" "≤ 1.25" "$(okfail "$d5c" "<=" 1.25)"
	fi
else
	echo "D5 ($E): skipped (no $IPERF: apt-get install iperf3)"
fi

# --- D1: Multi-Rail --------------------------------------------------------------
if want D1; then
for r in 0 1 2 3; do
	"$IP" netns exec "${NS}a" "$TC" qdisc replace dev "a$r" root tbf rate "$RATE" burst 256kb latency 100ms
done
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
four=$(mbs 4 --trace "$OUT/d1-rails.csv" --interval 100)
echo "D1 ($E): writes over 1 rail ${one} MB/s, 2 rails ${two} MB/s, 4 rails ${four} MB/s (each rail shaped to $RATE)"
d12=$(ratio "$two" "$one")
d14=$(ratio "$four" "$one")
echo "D1 ($E): 2 rails ÷ 1: $d12 (target >= 1.9): $(verdict "$d12" ">=" 1.9); 4 rails ÷ 1: $d14 (target >= 3.7): $(verdict "$d14" ">=" 3.7)"
figure D1 "$ENGINE" "1 MiB writes over 2 rails ÷ over 1, each rail shaped by tc to $RATE (8 writes in flight per rail)" \
	"$two MB/s, 2 rails" "$one MB/s, 1 rail" "$d12" "≥ 1.9" "$(okfail "$d12" ">=" 1.9)"
figure D1 "$ENGINE" "1 MiB writes over 4 rails ÷ over 1, each rail shaped by tc to $RATE" \
	"$four MB/s, 4 rails" "$one MB/s, 1 rail" "$d14" "≥ 3.7" "$(okfail "$d14" ">=" 3.7)"
mb=$(echo "$RATE" | awk '{ r = $1 + 0; if ($1 ~ /gbit/) r *= 1000; printf "%g", r / 8 }')
if plot_or_ship "$OUT/d1-rails.csv" "$OUT/d1-rails.png" \
	"D1 ($E): 1 MiB writes over 4 rails at once, $((MIB * 4)) of them, 32 in flight\n4 veth rails (one LNet net each), each shaped by tc to $RATE" "$mb"; then
	echo "D1: plot in $OUT/d1-rails.png (data: $OUT/d1-rails.csv)"
else
	echo "D1: per-rail data in $OUT/d1-rails.csv (no gnuplot for the plot)"
fi
fi

# --- the same in the VM tier's guest, with the kernel engine ---------------------
# The guest's figures, traces and plots come back on its console (BENCH_SHIP,
# bench/plot.sh); so do the interop group's figures (tests/vm/interop-import.sh:
# the same lnet.conf imported and one udsp add, by upstream's LNet and by lnetd
# with lnetk), made figures X1 and X2 here.
if [ "$ENGINE" = userspace ] && [ "${BENCH_VM:-1}" != 0 ] && [ -n "${TOP_SRCDIR:-}" ]; then
	trap - EXIT
	nodes_cleanup
	rm -rf "$T"
	T=$(mktemp -d "${TMPDIR:-/tmp}/lnetd-dp.XXXXXX")
	trap 'rm -rf "$T"' EXIT
	echo "== D1-D5, T1-T2, H1-H3 in the VM tier's guest (lnetk nodes, kernel engine; TCG: ratios only), and upstream's LNet beside lnetd"
	LNETD_VM_ONLY=${BENCH_VM_ONLY:-dpbench,interop} "$TOP_SRCDIR/tests/vm/run.sh" 2>&1 |
		ship_collect "$OUT" kernel "$T/plots" |
		sed -u -n 's/^# \([DTH][1-5] (kernel engine).*\)/\1/p; s/^\(1\.\.0 # SKIP.*\)/VM: \1/p;
			s/^not ok.*/VM: &/p; s/^ok.*# SKIP.*/VM: &/p; s/^# \(interop: .*\)/\1/p' |
		tee "$T/console"
	ship_plots "$T/plots"
	awk '
		# the number after the first match of RE in the line, "?" without one
		function after(re,    s) {
			if (!match($0, re)) return "?"
			s = substr($0, RSTART, RLENGTH); sub(/.* /, "", s); return s
		}
		/^interop: import of [0-9]+ peers: upstream/ {
			n = $4; up = after(": upstream [0-9.]+"); ours = after("lnetd [0-9.]+")
			r = after("upstream / lnetd [0-9.]+")
			printf "FIGURE\tX1\tkernel\tthe same lnet.conf of %s peers (2 NIDs each) imported: by upstream'\''s lnetctl into its LNet ÷ by ours into lnetd + lnetk (VM guest; over 1: lnetd is faster)\t%s s, upstream\t%s s, lnetd\t%s\t≥ 10\t%s\n",
				n, up, ours, r, (r + 0 >= 10 ? "ok" : "FAIL")
		}
		/^interop: udsp add with [0-9]+ peers and 100 rules/ {
			n = $5; up = after(": upstream [0-9.]+"); ours = after("lnetd [0-9.]+")
			r = after("upstream / lnetd [0-9.]+")
			printf "FIGURE\tX2\tkernel\tone udsp add with %s peers and 100 rules configured: upstream'\''s lnetctl ÷ ours on lnetd'\''s own socket, process start to exit (mean of 5, VM guest; over 1: lnetd is faster)\t%s s, upstream\t%s s, lnetd\t%s\t≥ 2\t%s\n",
				n, up, ours, r, (r + 0 >= 2 ? "ok" : "FAIL")
		}' "$T/console" >>"${BENCH_FIGURES:-/dev/null}"
fi
