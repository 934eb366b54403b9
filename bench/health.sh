#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench/health.sh - health figures, measured in this run (userspace engine;
# two lnetd nodes in network namespaces of their own, joined by four veth
# rails, one LNet net per rail, each shaped to the same rate; 1 MiB writes,
# 8 per rail in flight; transaction_timeout 10 s, so lnd_timeout is 3 s):
#   H1  rail 0's link is set down mid-transfer.  The 3-rail rate after ÷
#       the 4-rail rate before (about 0.75); how long after the link went
#       down the total was back at >= 0.9 of the 3-rail rate, ÷ lnd_timeout
#       (what upstream waits without a link event; target <= 1 s);
#       messages lost (target 0).
#   H3  in the same transfer, the link comes back: how long until rail 0
#       carries writes again (target <= 2 s: recovery_interval 1 s and a
#       ping) and until the total is back at >= 0.9 of the 4-rail rate
#       before; the 4-rail rate then ÷ before (target >= 0.9).
#   H2  a second transfer; mid-way node b drops everything that arrives on
#       rail 1 (fault drop, rate 1), silently: no link event, only
#       timeouts tell.  Writes failed ÷ the writes in flight (32; target
#       <= 1: only those sent to rail 1 before the first response timed
#       out fail, as upstream, which resends no message whose response
#       timed out: the caller does); how long until the total is back at
#       >= 0.9 of 3 rails' share of the 4-rail rate, ÷ transaction_timeout
#       (a write's response deadline; target 1 to 1.25: not before the
#       deadline, and the writes the silent rail swallowed time out in the
#       order they were sent, over about a second); rail 1's share of
#       the bytes after that (target <= 0.05); the 3-rail rate ÷ the 4-rail.
# Times are on the trace's clock (lnetd's, from the test's start): rail 0's
# last write before its link went down sets this script's clock to it.
# Plots: each rail's MB/s and the total over time ($BENCH_OUT/h1-failover.png
# for H1 and H3, $BENCH_OUT/h2-drop.png for H2).
# NODE_ENGINE=kernel runs lnetk nodes instead (the VM tier's guest does, with
# IP=/bin/ip2 TC=/bin/tc2 and a lower HEALTH_RAIL_RATE for TCG): the module
# hears the link go down from its netdev notifier and samples the trace.
# Needs root and ip netns; says so and exits 0 otherwise.  Figures, not
# tests: nothing here fails on a slow machine.
set -u
IP=${IP:-ip}
TC=${TC:-tc}
ENGINE=${NODE_ENGINE:-userspace}
E="$ENGINE engine"
if [ "$(id -u)" != 0 ] || ! "$IP" netns list >/dev/null 2>&1; then
	echo "health bench: skipped (needs root and ip netns)"
	exit 0
fi
LNETD=${LNETD:-lnetd/lnetd}
LNETCTL=${LNETCTL:-lnetctl/lnetctl}
OUT=${BENCH_OUT:-bench/out}
RATE=${HEALTH_RAIL_RATE:-200mbit}
DOWN_AT=${HEALTH_DOWN_AT:-3} # seconds into the transfer (H1, and H2's drop)
DOWN_FOR=${HEALTH_DOWN_FOR:-3} # seconds rail 0's link stays down (H3 after)
# seconds of writes after each event; under TCG (the kernel engine's guest)
# every step of this script takes longer, so the writes must last longer too
TAIL=${HEALTH_TAIL:-$([ "$ENGINE" = kernel ] && echo 10 || echo 5)}
mkdir -p "$OUT"
T=$(mktemp -d "${TMPDIR:-/tmp}/lnetd-health.XXXXXX")
NS=lnhb$$
TOP=${TOP_SRCDIR:-$(dirname "$0")/..}
. "$TOP/tests/integration/nodes.sh"
. "$TOP/bench/figure.sh"
. "$TOP/bench/trace.sh"
. "$TOP/bench/plot.sh"
trap 'nodes_cleanup; rm -rf "$T"' EXIT
on() { node_ctl "$@"; }
now_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }
since() { awk -v a="$(now_ms)" -v b="$1" 'BEGIN { printf "%.2f", (a - b) / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {
	if (a ~ /^[0-9.]+$/ && b > 0) printf "%.2f", a / b; else print "n/a" }'; }
secs() { case $1 in never) echo "never (within the run)" ;; *) echo "$1 s" ;; esac; }
field() { printf '%s\n' "$2" | awk -v k="$1:" '$1 == k { print $2; exit }'; }

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
on a set transaction_timeout 10 >/dev/null
node_up a
node_up b
G=$(on a global show)
lnd=$(printf '%s\n' "$G" | awk '$1 == "lnd_timeout:" { print $2; exit }')
rint=$(printf '%s\n' "$G" | awk '$1 == "recovery_interval:" { print $2; exit }')
tt=$(printf '%s\n' "$G" | awk '$1 == "transaction_timeout:" { print $2; exit }')

# the rate of one rail in MB/s (tc's rate: wire bytes)
mb=$(echo "$RATE" | awk '{ r = $1 + 0; if ($1 ~ /gbit/) r *= 1000; printf "%g", r / 8 }')
# run RAIL_SECONDS CSV: 1 MiB writes for about RAIL_SECONDS (the sum over the
# run of the rails in use times the seconds they are) at RATE, in the background
run() {
	count=$(awk -v m="$mb" -v s="$1" 'BEGIN { printf "%d", m * s * 0.95 }')
	on a selftest run --nid 10.67.0.2@tcp --size 1048576 --count "$count" --concurrency 32 \
		--trace "$2" --interval 100 >"$T/run.out" 2>&1 &
	job=$!
	t0=$(now_ms)
}

# --- H1 and H3: rail 0's link goes down, and comes back ----------------------
run $((4 * DOWN_AT + 3 * DOWN_FOR + 4 * TAIL)) "$OUT/h1-failover.csv"
sleep "$DOWN_AT"
"$IP" -n "${NS}a" link set a0 down
down=$(since "$t0")
sleep "$DOWN_FOR"
"$IP" -n "${NS}a" link set a0 up
up=$(since "$t0")
wait $job
R=$(cat "$T/run.out")
c=$OUT/h1-failover.csv
# The trace's clock starts when lnetd starts the test, after this script's t0:
# rail 0's last write before the link went down gives the offset.
d=$(trace_last "$c" 1 "$(awk -v d="$down" 'BEGIN { print d + 0.3 }')")
skew=$(awk -v a="$down" -v b="$d" 'BEGIN { print (b > 0 && a > b) ? a - b : 0 }')
down=$(awk -v a="$down" -v s="$skew" 'BEGIN { printf "%.2f", a - s }')
up=$(awk -v a="$up" -v s="$skew" 'BEGIN { printf "%.2f", a - s }')
failed=$(field failed "$R")
msgs=$(field messages "$R")
echo "H1 ($E): $msgs writes of 1 MiB, rail 0's link down at ${down} s: ${failed:-?} lost (target 0)"
figure H1 "$ENGINE" "writes lost when rail 0's link goes down mid-transfer (4 rails shaped to $RATE, 1 MiB writes, 32 in flight)" \
	"${failed:-?} lost" "$msgs written" "$(ratio "${failed:-1}" "$msgs")" "0 lost" \
	"$([ "${failed:-1}" = 0 ] && echo ok || echo FAIL)"
four=$(trace_rate "$c" 1 "$down")
three=$(trace_rate "$c" "$(awk -v d="$down" 'BEGIN { print d + 1 }')" "$up")
r=$(ratio "$three" "$four")
echo "H1 ($E): 4 rails $four MB/s before, 3 rails $three MB/s after: ratio $r (about 0.75)"
figure H1 "$ENGINE" "the rate on 3 rails after rail 0's link went down ÷ on 4 before (3 of 4 rails: 0.75)" \
	"$three MB/s, 3 rails" "$four MB/s, 4 rails" "$r" "≥ 0.7" "$(okfail "$r" ">=" 0.7)"
back=$(trace_back "$c" "$down" "$(awk -v x="$three" 'BEGIN { print 0.9 * x }')")
if [ "$back" = never ]; then
	echo "H1 ($E): the total never came back to 0.9 of the 3-rail rate: below target"
else
	echo "H1 ($E): back to >= 0.9 of the 3-rail rate $back s after the link went down (target <= 1 s): $(okfail "$back" "<=" 1 | sed 's/FAIL/below target/')"
fi
figure H1 "$ENGINE" "from rail 0's link going down to the total at ≥ 0.9 of the 3-rail rate (over the 0.5 s after), ÷ lnd_timeout (upstream's wait without a link event)" \
	"$(secs "$back")" "lnd_timeout $lnd s" "$(ratio "$back" "$lnd")" "≤ 1 s" "$(okfail "$back" "<=" 1)"

# H3: the 4-rail rate again, from 2 s after the link came up to the end (the last steps drain)
end=$(trace_end "$c")
again=$(trace_rate "$c" "$(awk -v u="$up" 'BEGIN { print u + 2 }')" \
	"$(awk -v e="$end" 'BEGIN { print e - 0.5 }')")
r0=$(trace_back "$c" "$up" 0.01 0.1 1)
r4=$(trace_back "$c" "$up" "$(awk -v x="$four" 'BEGIN { print 0.9 * x }')")
ra=$(ratio "$again" "$four")
echo "H3 ($E): rail 0's link up at $up s: rail 0 carries writes again $(secs "$r0") later (target <= 2 s), the total is back at >= 0.9 of the 4-rail rate $(secs "$r4") later; 4 rails then $again MB/s ÷ before $four MB/s: $ra (target >= 0.9)"
# where rail 0 stands at the end: its NI's health, and that of b's NI on it as a's peer
hv() { awk -v nid="$1" '$1 == "-" && $2 == "nid:" { want = ($3 == nid); next }
	want && /health value:/ { print $NF; exit }'; }
echo "H3 ($E): at the end, a's NI on rail 0 has health $(on a net show -v | hv 10.67.0.1@tcp), b's NI on rail 0 as a's peer $(on a peer show -v | hv 10.67.0.2@tcp) (1000: healthy)"
figure H3 "$ENGINE" "from rail 0's link coming back up to rail 0 carrying writes again, ÷ recovery_interval (how often a recovering NI is pinged)" \
	"$(secs "$r0")" "recovery_interval $rint s" "$(ratio "$r0" "$rint")" "≤ 2 s" "$(okfail "$r0" "<=" 2)"
figure H3 "$ENGINE" "from rail 0's link coming back up to the total at ≥ 0.9 of the 4-rail rate before (over the 0.5 s after), ÷ recovery_interval" \
	"$(secs "$r4")" "recovery_interval $rint s" "$(ratio "$r4" "$rint")" "≤ 3 s" "$(okfail "$r4" "<=" 3)"
figure H3 "$ENGINE" "the rate on 4 rails once rail 0 is back ÷ on 4 rails before it went down" \
	"$again MB/s" "$four MB/s" "$ra" "≥ 0.9" "$(okfail "$ra" ">=" 0.9)"
if plot_or_ship "$c" "$OUT/h1-failover.png" \
	"H1, H3 ($E): rail 0's link down at $down s, up again at $up s\n1 MiB writes, 32 in flight, over 4 rails (one LNet net each), each shaped by tc to $RATE" \
	"$mb" "$down:3:rail 0 down" "$up:4:rail 0 up"; then
	echo "H1, H3: plot in $OUT/h1-failover.png (data: $c)"
else
	echo "H1, H3: data in $c (no gnuplot for the plot)"
fi

# --- H2: rail 1 silently drops everything -----------------------------------
# rail 0 recovered (a ping through it answers), and its peer NI with it
for _ in $(seq 100); do
	on a ping --timeout 1 --source 10.67.0.1@tcp 10.67.0.2@tcp >/dev/null 2>&1 && break
	sleep 0.1
done
sleep "$rint"
c=$OUT/h2-drop.csv
run $((4 * DOWN_AT + 3 * TAIL)) "$c"
sleep "$DOWN_AT"
on b fault drop add --source '*' --dest 10.67.1.2@tcp1 --rate 1 >/dev/null
drop=$(since "$t0")
wait $job
R=$(cat "$T/run.out")
on b fault drop del --dest 10.67.1.2@tcp1 >/dev/null
failed=$(field failed "$R")
msgs=$(field messages "$R")
four=$(trace_rate "$c" 1 "$drop")
end=$(trace_end "$c")
# the writes on rail 1 stall every write in flight: the total falls, then comes back
want=$(awk -v x="$four" 'BEGIN { print 0.9 * 0.75 * x }')
dip=$(trace_back "$c" "$drop" "$want" 0.5 0 below)
[ "$dip" = never ] && dip=0
back=$(trace_back "$c" "$(awk -v d="$drop" -v s="$dip" 'BEGIN { print d + s }')" "$want")
back=$(awk -v b="$back" -v s="$dip" 'BEGIN { print (b == "never") ? b : b + s }')
# the 3 rails from 1 s after that to the end (its last steps drain)
from=$(awk -v d="$drop" -v b="$back" 'BEGIN { print d + (b == "never" ? 0 : b) + 1 }')
three=$(trace_rate "$c" "$from" "$(awk -v e="$end" 'BEGIN { print e - 0.5 }')")
share=$(awk -v a="$(trace_rate "$c" "$from" "$end" 2)" -v t="$(trace_rate "$c" "$from" "$end")" \
	'BEGIN { printf "%.3f", (t > 0 ? a / t : 0) }')
r=$(ratio "$three" "$four")
echo "H2 ($E): $msgs writes of 1 MiB, node b drops all that arrives on rail 1 from $drop s: ${failed:-?} failed (those in flight to it: at most 32); the total back at >= 0.9 of 3 rails' share $(secs "$back") later (transaction_timeout $tt s: target 1 to 1.25 times it); rail 1's share of the bytes after that $share (target <= 0.05); 3 rails $three MB/s ÷ 4 before $four MB/s: $r"
figure H2 "$ENGINE" "writes failed when the peer silently drops all on rail 1 mid-transfer ÷ the writes in flight (32): only those sent to it before the first response timeout fail (no resend after a response timeout, as upstream)" \
	"${failed:-?} failed" "32 in flight" "$(ratio "${failed:-99}" 32)" "≤ 1" \
	"$(okfail "$(ratio "${failed:-99}" 32)" "<=" 1)"
figure H2 "$ENGINE" "from the silent drop starting to the total at ≥ 0.9 × ¾ of the 4-rail rate (over the 0.5 s after), ÷ transaction_timeout (a write's response deadline: only a timeout can tell; under 1, writes timed out before their deadline)" \
	"$(secs "$back")" "transaction_timeout $tt s" "$(ratio "$back" "$tt")" "1 to 1.25" \
	"$(okrange "$(ratio "$back" "$tt")" 1 1.25)"
figure H2 "$ENGINE" "rail 1's share of the bytes once the drop was noticed (it is pinged, not used)" \
	"$share of the bytes" "-" "$share" "≤ 0.05" "$(okfail "$share" "<=" 0.05)"
figure H2 "$ENGINE" "the rate on the 3 good rails once the drop was noticed ÷ on 4 rails before (0.75)" \
	"$three MB/s" "$four MB/s" "$r" "≥ 0.7" "$(okfail "$r" ">=" 0.7)"
if plot_or_ship "$c" "$OUT/h2-drop.png" \
	"H2 ($E): from $drop s node b silently drops all that arrives on rail 1 (transaction_timeout $tt s)\n1 MiB writes, 32 in flight, over 4 rails (one LNet net each), each shaped by tc to $RATE" \
	"$mb" "$drop:3:rail 1 drops"; then
	echo "H2: plot in $OUT/h2-drop.png (data: $c)"
else
	echo "H2: data in $c (no gnuplot for the plot)"
fi
