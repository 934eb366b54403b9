#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/vm/dp.sh - in the guest: the module's data path between LNet nodes.
#
# Two lnetk instances, each in a network namespace of its own with its own
# bus and lnetd (kernel engine), joined by two veth rails; and, when run.sh
# put it in the guest, upstream Lustre's LNet in the initial namespace,
# joined to the first by a third veth.  Real TCP between them: pings every
# way, Lustre's own lnetctl included, a hostile client cut off, and the
# namespaces torn down with connections up.  Prints TAP lines ("ok - ..."),
# exits 1 if any failed.  Needs iproute2's ip as /bin/ip2 (busybox's ip has
# no netns) and veth.ko.
set -u
PATH=/bin
IP=/bin/ip2
failed=0
T=/tmp/dp
mkdir -p "$T" /run
# ip netns wants a /run it can make shared mounts in: a tmpfs, not the initramfs
grep -q ' /run ' /proc/mounts || mount -t tmpfs tmpfs /run
mkdir -p /run/netns

ok() { echo "ok - $*"; }
not_ok() {
	echo "not ok - $*"
	failed=$((failed + 1))
}
# check DESCRIPTION COMMAND...: a TAP line from the command's status; its output as
# comments on failure (kept apart from $T/out, which has reads).
check() {
	d=$1
	shift
	if "$@" >"$T/check" 2>&1; then ok "$d"; else
		not_ok "$d"
		sed 's/^/# /' "$T/check"
	fi
}
# on NODE lnetctl-args...
on() {
	n=$1
	shift
	DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/$n.bus lnetctl "$@"
}
has() { grep -q -- "$1" "$T/out"; }
# out_has DESCRIPTION TEXT CMD...: the command succeeds and prints TEXT
out_has() {
	d=$1
	want=$2
	shift 2
	if "$@" >"$T/out" 2>&1 && has "$want"; then ok "$d"; else
		not_ok "$d"
		echo "# expected: $want"
		sed 's/^/# /' "$T/out"
	fi
}

[ -e /sys/module/lnetk ] || modprobe lnetk || {
	not_ok "lnetk loads for the data path"
	exit 1
}
modprobe veth || {
	not_ok "veth loads"
	exit 1
}
$IP netns add dpa && $IP netns add dpb || {
	not_ok "two network namespaces"
	exit 1
}
for r in 0 1; do
	$IP link add "a$r" netns dpa type veth peer name "b$r" netns dpb
	$IP -n dpa addr add "10.8.$r.1/24" dev "a$r"
	$IP -n dpb addr add "10.8.$r.2/24" dev "b$r"
	$IP -n dpa link set "a$r" up
	$IP -n dpb link set "b$r" up
done
$IP -n dpa link set lo up
$IP -n dpb link set lo up

for n in dpa dpb; do
	dbus-daemon --config-file=/etc/lnetd-vm/bus.conf --address="unix:path=$T/$n.bus" \
		--nofork --nopidfile 2>>"$T/bus.log" &
done
i=0
while { [ ! -S "$T/dpa.bus" ] || [ ! -S "$T/dpb.bus" ]; } && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
for n in dpa dpb; do
	DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/$n.bus $IP netns exec "$n" \
		lnetd --engine=kernel --state-dir="$T/$n.state" 2>>"$T/lnetd-$n.log" &
done
for n in dpa dpb; do
	i=0
	while ! on "$n" status >/dev/null 2>&1 && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
done
check "dp: node a (lnetd, kernel engine) has two NIs" on dpa net add --net tcp --if a0,a1
check "dp: node b too" on dpb net add --net tcp --if b0,b1
# a veth's carrier can take a second to show
for n in dpa dpb; do
	i=0
	while on "$n" net show | grep -q "status: down" && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
done

out_has "dp: a pings b over TCP" "primary nid: 10.8.0.2@tcp" on dpa ping --timeout 10 10.8.0.2@tcp
check "dp: b's reply lists both its NIDs" has "nid: 10.8.1.2@tcp"
check "dp: b is Multi-Rail" has "Multi-Rail: True"
out_has "dp: b pings a's second NID" "nid: 10.8.0.1@tcp" on dpb ping --timeout 10 10.8.1.1@tcp
check "dp: a ping to a NID nobody has fails" sh -c '! DBUS_SYSTEM_BUS_ADDRESS=unix:path='"$T"'/dpa.bus lnetctl ping --timeout 1 10.8.0.9@tcp'

# b as a Multi-Rail peer of a: pings go through selection, both rails
check "dp: a: b as a peer with both NIDs" on dpa peer add --prim_nid 10.8.0.2@tcp --nid 10.8.1.2@tcp
i=0
while [ $i -lt 10 ] && on dpa ping --timeout 10 10.8.0.2@tcp >/dev/null 2>&1; do i=$((i + 1)); done
check "dp: 10 pings in a row to the peer answered" test $i = 10

out_has "dp: stats show has the module's counters" "send_count:" on dpa stats show
check "dp: the module counted what a sent" sh -c "awk '\$1 == \"send_count:\" { exit !(\$2 >= 12) }' $T/out"

# a rail's link goes down: the module's node takes its NI out at once (health 0, its
# connections closed, what they held resent), and recovery pings it back when it comes up
nih() { # the health value net show -v gives a's NI $1
	on dpa net show -v 2>/dev/null | awk -v nid="$1" '
		$1 == "-" && $2 == "nid:" { want = ($3 == nid); next }
		want && /health value:/ { print $NF; exit }'
}
$IP -n dpa link set a0 down
i=0
while [ "$(nih 10.8.0.1@tcp)" != 0 ] && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
check "health: a0's link down: its NI's health is 0 at once" test "$(nih 10.8.0.1@tcp)" = 0
out_has "health: b's primary NID still answers, over the other rail" "primary nid: 10.8.0.2@tcp" \
	on dpa ping --timeout 10 10.8.0.2@tcp
$IP -n dpa link set a0 up
i=0
while [ "$(nih 10.8.0.1@tcp)" != 1000 ] && [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
check "health: a0's link up: recovery brings its NI back to 1000" test "$(nih 10.8.0.1@tcp)" = 1000

# garbage to b's LNet port: cut off, counted in the log, b still answers
$IP netns exec dpa sh -c 'printf "GET / HTTP/1.0\r\n\r\n" | timeout 5 nc 10.8.0.2 988' >/dev/null 2>&1
sleep 0.3
out_has "dp: after a hostile client b still answers" "primary nid: 10.8.0.2@tcp" \
	on dpa ping --timeout 10 10.8.0.2@tcp
check "dp: the module logged the fault" sh -c 'dmesg | grep -q "lnetk: closed a connection from a peer before its hello: bad magic"'

# upstream Lustre's LNet, when run.sh put it here
if command -v upstream-lnetctl >/dev/null 2>&1 && command -v upstream-lnet >/dev/null 2>&1; then
	$IP link add u0 type veth peer name ua netns dpa
	$IP addr add 10.8.9.1/24 dev u0
	$IP link set u0 up
	$IP -n dpa addr add 10.8.9.2/24 dev ua
	$IP -n dpa link set ua up
	if [ -e /sys/module/lnet ] || upstream-lnet load >"$T/up.log" 2>&1; then
		upstream-lnetctl net add --net tcp --if u0 >>"$T/up.log" 2>&1
		check "dp: a gets an NI on the rail to upstream" on dpa net add --net tcp --if ua
		i=0
		while on dpa net show | grep -q "status: down" && [ $i -lt 100 ]; do
			sleep 0.05
			i=$((i + 1))
		done
		out_has "interop: lnetk pings upstream's LNet" "primary nid: 10.8.9.1@tcp" \
			on dpa ping --timeout 10 10.8.9.1@tcp
		out_has "interop: upstream's lnetctl pings lnetk" "nid: 10.8.9.2@tcp" \
			upstream-lnetctl ping 10.8.9.2@tcp
		check "interop: upstream lists every NID of lnetk's node" has "nid: 10.8.1.1@tcp"
		out_has "interop: upstream's peer show has lnetk's node" "primary nid: 10.8.9.2@tcp" \
			upstream-lnetctl peer show
		upstream-lnetctl net del --net tcp >/dev/null 2>&1
		upstream-lnet unload >/dev/null 2>&1
	else
		not_ok "interop: upstream's LNet loads"
		sed 's/^/# /' "$T/up.log"
	fi
else
	ok "interop: lnetk and upstream's LNet # SKIP upstream's LNet is not in this guest"
fi

# tear down with connections up: the namespaces go, their sockets with them
for n in dpa dpb; do
	pkill -f "state-dir=$T/$n.state" 2>/dev/null
done
sleep 0.3
$IP netns del dpa
$IP netns del dpb
sleep 0.5
check "dp: namespaces with live LNet connections go cleanly" test -e /sys/module/lnetk
[ $failed = 0 ]
