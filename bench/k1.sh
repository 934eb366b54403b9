#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench/k1.sh VERSION - bench K1, in a lustre guest (tests/vm/lustre.sh with
# LNETD_VM_LUSTRE_CASES=k1 runs it from lustre-init, one guest per version):
# the same configuration (one NI, then N peers of two NIDs each from one
# file, in the layout of tests/vm/interop-import.sh) restored into a
# freshly loaded lnet.ko by lnetd --engine=lustre and by upstream's own
# `lnetctl import --old-api` of the same file, in the same boot.
#
# lnetd's restore: the file imported into lnetd's store while lnet.ko is
# away, then `modprobe lnet` and the wait until lnetd says everything is
# applied (lnetd's own log line gives the push alone).  Upstream's: `lnetctl
# lnet configure`, then the timed import (2.16.1: the same peers as `peer add`
# commands on its lnetctl's standard input, its import failing at ~25).  Prints figures as # lines and
# "ok"/"not ok" only for whether each restore completed (never for speed):
#   # K1 VERSION N: upstream X s, lnetd Y s, upstream/lnetd R
#   # K1 VERSION N: drift read: full F s, the poll's P s (looked into K of N peers), full/poll R
# (the second: lnetd started again beside the restored lnet.ko reads it whole,
# then its drift poll reads the peer list and looks into a few peers).
# Sizes: LNETD_VM_K1_PEERS (kernel command line, "10000,50000" by default);
# upstream is timed up to LNETD_VM_K1_UPSTREAM_MAX peers (10000: its import
# is quadratic, more than 11 minutes at 50,000 under TCG).
export PATH=/bin
version=$1
sizes=$(echo "${LNETD_VM_K1_PEERS:-10000,50000}" | tr ',' ' ')
up_max=${LNETD_VM_K1_UPSTREAM_MAX:-10000}
T=/tmp/k1
UL=upstream-lnetctl
L=lnetctl
WAIT=900
DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/bus
export DBUS_SYSTEM_BUS_ADDRESS
failed=0
case $version in
2.15.* | 2.16.*) modargs="" ;;
*) modargs="cpu_npartitions=2" ;;
esac
modargs="$modargs tiny_router_buffers=512 small_router_buffers=1024 large_router_buffers=64"

now() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" '{ printf "%.2f", $1 - a }' /proc/uptime; }
wait_until() {
	_end=$(($(cut -d. -f1 /proc/uptime) + WAIT))
	until "$@" >/dev/null 2>&1; do
		[ "$(cut -d. -f1 /proc/uptime)" -lt "$_end" ] || return 1
		sleep 0.2
	done
}
lnet_load() { modprobe libcfs cpu_npartitions=2 && modprobe lnet $modargs; }
lnet_unload() {
	$UL lnet unconfigure >/dev/null 2>&1
	for m in ksocklnd lnet; do
		[ -e /sys/module/$m ] || continue
		wait_until rmmod $m || return 1
	done
}
applied() { $L status 2>/dev/null | grep -q "pending: \[\]"; }
result() {
	if [ "$1" = 0 ]; then echo "ok - $version/k1: $2"; else
		echo "not ok - $version/k1: $2"
		failed=$((failed + 1))
	fi
}

rm -rf "$T" && mkdir -p "$T"
dbus-daemon --config-file=/etc/lnetd-vm/bus.conf --address="$DBUS_SYSTEM_BUS_ADDRESS" --nofork \
	>"$T/bus.log" 2>&1 &
bus=$!
wait_until [ -S "$T/bus" ]
lnet_unload

for n in $sizes; do
	f=$T/k1-$n.yaml
	# peers only (the NI is added by each side first), in the layout
	# upstream's own export writes, which its --old-api import reads
	awk -v n="$n" 'BEGIN {
		print "peer:"
		for (i = 0; i < n; i++) {
			a = int(i / 250) + 20; b = i % 250 + 1
			printf "    - primary nid: 10.%d.%d.1@tcp\n      Multi-Rail: True\n", a, b
			printf "      peer ni:\n        - nid: 10.%d.%d.1@tcp\n", a, b
			printf "        - nid: 10.%d.%d.2@tcp\n", a, b
		}
	}' >"$f"
	awk -v n="$n" 'BEGIN {
		for (i = 0; i < n; i++) {
			a = int(i / 250) + 20; b = i % 250 + 1
			printf "peer add --prim_nid 10.%d.%d.1@tcp --nid 10.%d.%d.2@tcp\n", a, b, a, b
		}
	}' >"$T/k1-$n.cmds"

	up=""
	if [ "$n" -le "$up_max" ]; then
		lnet_load && $UL lnet configure >/dev/null 2>&1 &&
			$UL net add --net tcp --if d0 >/dev/null 2>&1
		t0=$(now)
		# 2.15's and 2.16's lnetctl have no --old-api option: 2.15's import is
		# the ioctl one; 2.16's is the netlink one, which stops at ~25 peers
		# ("Writer error": its 4 KiB request), so 2.16's figure is its lnetctl
		# fed the same peers as `peer add` commands on its standard input (one
		# process, one netlink request per peer: upstream's own per-peer path)
		case $version in
		2.15.*) $UL import "$f" >"$T/up-$n.log" 2>&1 ;;
		2.16.*) $UL <"$T/k1-$n.cmds" >"$T/up-$n.log" 2>&1 ;;
		*) $UL import --old-api "$f" >"$T/up-$n.log" 2>&1 ;;
		esac
		rc=$?
		up=$(since "$t0")
		# its exit status counts every entry it could not apply: what the
		# import holds is what counts (its first and last peer)
		[ "$rc" = 0 ] || tail -n 5 "$T/up-$n.log" | sed 's/^/# upstream: /'
		last="10.$(((n - 1) / 250 + 20)).$(((n - 1) % 250 + 1))"
		# a figure, not a verdict: upstream's limits are not lnetd's to pass
		if ! $UL peer show --nid "$last.1@tcp" 2>&1 | grep -q "$last.2@tcp"; then
			echo "# K1 $version $n: upstream's import does not hold the last peer (exit status $rc)"
			up=""
		fi
		lnet_unload
	fi

	rm -rf "$T/state"
	lnetd --engine=lustre --state-dir="$T/state" >"$T/lnetd-$n.log" 2>&1 &
	lnetd=$!
	wait_until $L status
	# the router pools this guest's lnet.ko is loaded with, as lnetd's too
	$L set tiny_buffers 512 && $L set small_buffers 1024 && $L set large_buffers 64 &&
		$L net add --net tcp --if d0 >/dev/null &&
		$L import "$f" >"$T/imp-$n.log" 2>&1
	result $? "lnetd's store takes $n peers while lnet.ko is away"
	t0=$(now)
	lnet_load
	# the push is over when lnetd logs it; then everything must be applied
	wait_until grep -q "appeared: .* changes made" "$T/lnetd-$n.log"
	mine=$(since "$t0")
	applied
	rc=$?
	[ "$rc" = 0 ] || $L status 2>&1 | tail -n 8 | sed 's/^/# status: /'
	result $rc "lnetd restores $n peers into lnet.ko when it is loaded"
	push=$(sed -n 's/.*appeared: .* changes made in \([0-9.]*\) s.*/\1/p' "$T/lnetd-$n.log" | tail -n 1)
	kill "$lnetd"
	wait "$lnetd" 2>/dev/null
	# the drift poll's read: lnetd started again beside the loaded lnet.ko reads it
	# whole (every peer, a request each), then its poll reads the peer list and
	# looks into the peers whose entry changed and a rolling 1/16 of the others
	lnetd --engine=lustre --state-dir="$T/state" >"$T/lnetd-$n-b.log" 2>&1 &
	lnetd=$!
	wait_until grep -q "drift poll's read took" "$T/lnetd-$n-b.log"
	result $? "lnetd started beside $n peers polls lnet.ko"
	full=$(sed -n 's/.*at start: .*(its read \([0-9.]*\) s).*/\1/p' "$T/lnetd-$n-b.log" | tail -n 1)
	poll=$(sed -n "s/.*drift poll's read took \([0-9.]*\) s (\([0-9]*\) peers listed, \([0-9]*\) looked into.*/\1 \2 \3/p" \
		"$T/lnetd-$n-b.log" | tail -n 1)
	set -- $poll
	echo "# K1 $version $n: drift read: full ${full:-?} s, the poll's ${1:-?} s (looked into ${3:-?} of ${2:-?} peers), full/poll $(awk -v a="$full" -v b="${1:-0}" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "?" }')"
	kill "$lnetd"
	wait "$lnetd" 2>/dev/null
	lnet_unload
	if [ -n "$up" ]; then
		how=""
		case $version in 2.16.*) how=" (its lnetctl fed $n peer add commands: its import stops at ~25 peers)" ;; esac
		echo "# K1 $version $n: upstream $up s$how, lnetd $mine s (its push ${push:-?} s), upstream/lnetd $(awk -v a="$up" -v b="$mine" 'BEGIN { printf "%.1f", a / b }')"
	else
		echo "# K1 $version $n: lnetd $mine s (its push ${push:-?} s); no upstream figure (above $up_max peers, or its import failed)"
	fi
done
kill "$bus" 2>/dev/null
exit $((failed > 0))
