#!/bin/sh
# Issue 35, in the VM guest: run as bench/dp.sh by LNETD_VM_ONLY=dpbench from a
# copy of the tree whose bench/dp.sh is this file (and bench/tbf-live.sh and
# bench/health.sh "exit 0"; -smp 2 added to run.sh's qemu for two CPUs), e.g.
#   cp doc/measure/dplock.sh COPY/bench/dp.sh
#   LNETD_TOP_SRCDIR=COPY LNETD_VM_ONLY=dpbench COPY/tests/vm/run.sh WORK
# Bulk throughput between two lnetk nodes (lnetd, kernel
# engine, one unshaped veth rail; the module's traffic generator, 1 MiB PUTs,
# 8 in flight) alone, beside 100 rounds a second of the module reads an
# unprivileged `net show -v` makes (genl-test reader: the counters and each
# NI's health, as uid 65534: they take the data path's lock), beside as
# many reads that do not take it (GET_INFO and each NI: the reads' CPU
# without the lock), and beside
# unprivileged `lnetctl net show -v` run back to back (as fast as they go, at
# most 100 a second).  ROUNDS alternations; medians; ratios loaded / alone.
set -u
T=/tmp/dplock
mkdir -p "$T"
NS=dl
N=${DL_COUNT:-300}
ROUNDS=${DL_ROUNDS:-7}
. "$TOP_SRCDIR/tests/integration/nodes.sh"
node_ns a b && node_link a a0 b b0 10.95.0 || exit 1
node_start a && node_start b || exit 1
node_ctl a net add --net tcp --if a0 >/dev/null && node_ctl b net add --net tcp --if b0 >/dev/null
node_up a && node_up b || exit 1
node_ctl b selftest service on >/dev/null
rate() { # MiB/s of one run
	node_ctl a selftest run --nid 10.95.0.2@tcp --mode write --size 1048576 --count "$N" \
		--concurrency 8 2>&1 | awk -v n="$N" '$1 == "seconds:" { printf "%.1f\n", n / $2; exit }'
}
rate >/dev/null # connected, warm
lnetctl_loop() { # unprivileged net show -v, at most 100/s, until $T/stop
	k=0
	while [ ! -e "$T/stop" ]; do
		DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/a.bus setpriv --reuid=65534 --regid=65534 \
			--clear-groups lnetctl net show -v >/dev/null 2>&1
		k=$((k + 1))
	done
	echo "$k" >"$T/k"
}
r=0
while [ $r -lt "$ROUNDS" ]; do
	echo "alone $(rate)" >>"$T/rates"
	for how in lock nolock; do
		"$IP" netns exec "${NS}a" genl-test reader 100 600 $how 10.95.0.1@tcp 10.95.0.2@tcp \
			>"$T/reader" 2>&1 &
		rp=$!
		echo "reads-$how $(rate)" >>"$T/rates"
		kill "$rp" 2>/dev/null
		wait "$rp" 2>/dev/null
		echo "# round $r: $(cat "$T/reader")"
	done
	rm -f "$T/stop"
	lnetctl_loop &
	lp=$!
	t1=$(cut -d' ' -f1 /proc/uptime)
	echo "lnetctl $(rate)" >>"$T/rates"
	t2=$(cut -d' ' -f1 /proc/uptime)
	touch "$T/stop"
	wait "$lp"
	echo "# round $r: lnetctl net show -v ran $(cat "$T/k") times in $(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.1f", b - a }') s"
	r=$((r + 1))
done
med() { awk -v k="$1" '$1 == k { print $2 }' "$T/rates" | sort -n |
	awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
a=$(med alone) rd=$(med reads-lock) rn=$(med reads-nolock) lc=$(med lnetctl)
ratio() { awk -v x="$1" -v y="$a" 'BEGIN { printf "%.3f", x / y }'; }
echo "# dplock: $(nproc) CPU(s); MiB/s medians of $ROUNDS: alone $a; beside 100 rounds/s of the module reads net show -v makes (the data path's lock) $rd, ratio $(ratio "$rd"); beside as many reads that do not take it $rn, ratio $(ratio "$rn"); beside lnetctl net show -v back to back $lc, ratio $(ratio "$lc")"
echo "# dplock: all $(tr '\n' ' ' <"$T/rates")"
nodes_cleanup
exit 0
