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
#
# No verdict depends on the guest's speed: every wait is for the condition
# then asserted (wait_until), bounded by WAIT seconds, which only turns a
# hang into a failure; a ping that must be answered waits up to 60 s.
set -u
PATH=/bin
IP=/bin/ip2
failed=0
T=/tmp/dp
mkdir -p "$T" /run
# ip netns wants a /run it can make shared mounts in: a tmpfs, not the initramfs
grep -q ' /run ' /proc/mounts || mount -t tmpfs tmpfs /run
mkdir -p /run/netns

WAIT=120
# wait_until SECONDS COMMAND...: poll COMMAND until it succeeds; 1 if it has not after SECONDS
wait_until() {
	_wu_end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$_wu_end" ] || return 1
		sleep 0.05
	done
}
quiet() { "$@" >/dev/null 2>&1; }
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
# stop_lnetd NODE: end node NODE's lnetd (the guest has no pkill) and wait until it is gone
gone() { ! kill -0 "$1" 2>/dev/null; }
stop_lnetd() {
	_p=$(cat "$T/$1.pid")
	kill "$_p"
	wait_until "$WAIT" gone "$_p"
}
# logged PATTERN FILE: lnetd logs PATTERN (grep -E); what the module announces
# on its dp group reaches lnetd's loop after the command that caused it
logged() { wait_until "$WAIT" grep -Eq -- "$1" "$2"; }
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
# The data path's workqueue (WQ_MEM_RECLAIM: a rescuer thread named after it)
# and its receive buffer come with a namespace's first NI, not with the
# namespace, and go with the namespace.  dpwq: the rescuers' PIDs;
# dpwq_in LIST [!]: those in LIST (with !, those not in it).
dpwq() { grep -lx lnetk-dp /proc/[0-9]*/comm 2>/dev/null | tr -dc '0-9\n'; }
dpwq_in() { dpwq | awk -v l=" $(printf '%s' "$1" | tr '\n' ' ') " -v neg="${2:-}" '(index(l, " " $0 " ") > 0) != (neg == "!")'; }
wq_before=$(dpwq)
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
check "dp: namespaces without an NI start no data path workqueue" \
	test -z "$(dpwq_in "$wq_before" !)"

for n in dpa dpb; do
	dbus-daemon --config-file=/etc/lnetd-vm/bus.conf --address="unix:path=$T/$n.bus" \
		--nofork --nopidfile 2>>"$T/bus.log" &
done
wait_until "$WAIT" test -S "$T/dpa.bus" -a -S "$T/dpb.bus"
for n in dpa dpb; do
	DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/$n.bus $IP netns exec "$n" \
		lnetd --engine=kernel --state-dir="$T/$n.state" --metrics-file="$T/$n.prom" \
		--metrics-interval=1 --metrics-peers 2>>"$T/lnetd-$n.log" &
	echo $! >"$T/$n.pid" # ip execs lnetd: the same process
done
for n in dpa dpb; do
	wait_until "$WAIT" quiet on "$n" status
done
check "dp: node a (lnetd, kernel engine) has two NIs" on dpa net add --net tcp --if a0,a1
check "dp: node b too" on dpb net add --net tcp --if b0,b1
wq_ours=$(dpwq_in "$wq_before" !)
check "dp: each namespace's first NI starts its data path workqueue" \
	test "$(printf '%s\n' "$wq_ours" | grep -c .)" = 2
# a veth's carrier can take a second to show
all_up() { ! on "$1" net show | grep -q "status: down"; }
wait_up() { wait_until "$WAIT" all_up "$1"; }
for n in dpa dpb; do
	wait_up "$n"
done

out_has "dp: a pings b over TCP" "primary nid: 10.8.0.2@tcp" on dpa ping --timeout 60 10.8.0.2@tcp
check "dp: b's reply lists both its NIDs" has "nid: 10.8.1.2@tcp"
check "dp: b is Multi-Rail" has "Multi-Rail: True"
out_has "dp: b pings a's second NID" "nid: 10.8.0.1@tcp" on dpb ping --timeout 60 10.8.1.1@tcp
# the module answers a ping of the node itself (Lustre's ping 0@lo, and of its own NID)
out_has "dp: a pings its own NID" "nid: 10.8.1.1@tcp" on dpa ping --timeout 60 10.8.0.1@tcp
out_has "dp: a pings 0@lo" "primary nid: 0@lo" on dpa ping --timeout 60 0@lo
check "dp: a ping to a NID nobody has fails" sh -c '! DBUS_SYSTEM_BUS_ADDRESS=unix:path='"$T"'/dpa.bus lnetctl ping --timeout 1 10.8.0.9@tcp'

# b as a Multi-Rail peer of a: pings go through selection, both rails
check "dp: a: b as a peer with both NIDs" on dpa peer add --prim_nid 10.8.0.2@tcp --nid 10.8.1.2@tcp
i=0
while [ $i -lt 10 ] && on dpa ping --timeout 60 10.8.0.2@tcp >/dev/null 2>&1; do i=$((i + 1)); done
check "dp: 10 pings in a row to the peer answered" test $i = 10

# Another module on lnetk's exported API (lnetk_api.h, tests/vm/api-src): b
# registers the service api_test, whose TBF policy holds a's requests to
# 50/s; a sends 40 PUTs and 4 GETs through the API.  Guaranteed whatever the
# load: every completion comes with success, the service sees each request
# once (not in order: a source NID's messages may go to either of b's NIDs,
# two connections that LNet does not order; the policy's FIFO per class is
# the unit tier's, test-svc.c), each GET's reply carries what the service put in it,
# and since a's two NIs make two classes (one per source NID, each 50/s
# with a bucket of 3), 44 requests take at least (44 - 6) / 100 s.
check "api: b's TBF policy for the service api_test, 50/s for a" \
	on dpb tbf rule start --service api_test --queue reg froma 'nid={10.8.[0-1].1@tcp}' rate=50
$IP netns exec dpa sleep 600 &
pa=$!
$IP netns exec dpb sleep 600 &
pb=$!
# until both have entered their namespace (ip execs sleep there)
entered() { [ "$(readlink /proc/$1/ns/net)" != "$(readlink /proc/self/ns/net)" ]; }
wait_until "$WAIT" entered $pa
wait_until "$WAIT" entered $pb
ko=$(find /lib/modules -name lnetk_api_test.ko | head -1)
check "api: a module puts and gets through lnetk_* and serves through the policy" \
	insmod "$ko" srv_pid=$pb cli_pid=$pa dst=10.8.0.2@tcp count=40 gets=4
api=$(cat /sys/module/lnetk_api_test/parameters/result 2>/dev/null)
echo "# api: $api"
field() { echo "$api" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }
check "api: 44 completions with success, none failed" \
	test "$(field ok) $(field failed)" = "44 0"
check "api: the service saw each request once" test "$(field served)" = 44
echo "# api: requests served out of their class's sending order (two rails): $(field disorder)"
check "api: each GET's reply carried what the service put in it" test "$(field replies)" = 4
check "api: register refuses a bound name, the reserved portal and a bad name" \
	test "$(field refused)" = 3
check "api: the policy held each of a's NIDs to 50/s (44 in at least 0.38 s)" \
	test "$(field elapsed)" -ge 380000000
rmmod lnetk_api_test
kill $pa $pb 2>/dev/null

# b knows a by one NID only; discovery (asked: a configured peer is not discovered on
# a send) adds a's other NID, marked as discovered, in the module's running state
check "dp: b: a as a peer with its first NID" on dpb peer add --prim_nid 10.8.0.1@tcp
check "dp: b discovers a" on dpb discover --force 10.8.0.1@tcp
out_has "dp: b's peer show lists a's second NID" "nid: 10.8.1.1@tcp" \
	on dpb peer show --nid 10.8.0.1@tcp
check "dp: as discovered, the configured first one not" \
	sh -c "awk '/nid: 10.8.1.1@tcp/ { w = 1 } w && /discovered: True/ { f = 1 } END { exit !f }' $T/out &&
		! awk '/nid: 10.8.0.1@tcp/ { w = 1; next } /nid:/ { w = 0 } w && /discovered: True/ { f = 1 } END { exit !f }' $T/out"
# PeerDiscovered of a peer with many NIDs: the module's announcement was one
# NLMSG_GOODSIZE message, so a peer of more NIDs than that holds went untold
# (issue 35).  a, configured on b anew with 190 long IPv6 NIDs more (about
# 9 KiB of NIDs: more than a page, and than liblnetk's first read), and
# discovered: lnetd hears the module announce every one.  Then a as it was on b.
# (in two calls: lnetctl takes no value over 4096 bytes, lnetd(8) bounds)
many() { awk -v a="$1" -v b="$2" 'BEGIN { for (i = a; i <= b; i++) printf "%s2001:db8:66:1234:5678:9abc:def0:%x@tcp", (i > a ? "," : ""), i }'; }
check "dp: b: a anew, with 190 IPv6 NIDs more" sh -c "DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/dpb.bus \
	lnetctl peer del --prim_nid 10.8.0.1@tcp && DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/dpb.bus \
	lnetctl peer add --prim_nid 10.8.0.1@tcp --nid $(many 1 95) && DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/dpb.bus \
	lnetctl peer add --prim_nid 10.8.0.1@tcp --nid $(many 96 190)"
check "dp: b discovers it" on dpb discover 10.8.0.1@tcp
check "dp: lnetd heard the module announce it with all its NIDs (PeerDiscovered)" \
	logged "peer 10.8.0.1@tcp discovered: 19[2-9] NIDs" "$T/lnetd-dpb.log"
check "dp: b: a as it was" sh -c "DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/dpb.bus \
	lnetctl peer del --prim_nid 10.8.0.1@tcp && DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/dpb.bus \
	lnetctl peer add --prim_nid 10.8.0.1@tcp && DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/dpb.bus \
	lnetctl discover 10.8.0.1@tcp"
out_has "dp: stats show has the module's counters" "send_count:" on dpa stats show
check "dp: the module counted what a sent" sh -c "awk '\$1 == \"send_count:\" { exit !(\$2 >= 12) }' $T/out"
# lnetd's metrics file carries the module's counters and health (lnetd --metrics-file)
# metric FILE PREFIX MIN: until a sample of FILE starting PREFIX is at least MIN
sample_at_least() {
	awk -v p="$2" -v m="$3" 'index($0, p) == 1 && $NF >= m { f = 1 } END { exit !f }' "$1"
}
metric() {
	wait_until "$WAIT" sample_at_least "$@" && return 0
	grep -v '^#' "$1"
	return 1
}
check "dp: a's metrics file has the module's NI counters" \
	metric "$T/dpa.prom" 'lnet_ni_sent_messages_total{nid="10.8.0.1@tcp",net="tcp"} ' 1
check "dp: and its peer NI counters" \
	metric "$T/dpa.prom" 'lnet_peer_ni_sent_messages_total{nid="10.8.0.2@tcp",net="tcp"} ' 1
check "dp: and the module's NI health" \
	metric "$T/dpa.prom" 'lnet_ni_health{nid="10.8.1.1@tcp",net="tcp",interface="a1"} ' 1000
check "dp: and the peer NI health" \
	metric "$T/dpa.prom" 'lnet_peer_ni_health{nid="10.8.1.2@tcp",net="tcp",peer="10.8.0.2@tcp"} ' 1000

# the module's traffic generator, both rails; then its counters back to 0
check "dp: b serves the test portal" on dpb selftest service on
out_has "dp: the module's traffic generator writes to b" "failed: 0" \
	on dpa selftest run --nid 10.8.0.2@tcp --mode write --size 65536 --count 64 --concurrency 8
check "dp: over both rails" sh -c "awk '/sent MB\/s:/ { if (\$NF > 0) n++ } END { exit n < 2 }' $T/out"
out_has "dp: and reads from b" "failed: 0" \
	on dpa selftest run --nid 10.8.0.2@tcp --mode read --size 65536 --count 32
check "dp: the module samples a trace of each rail" \
	on dpa selftest run --nid 10.8.0.2@tcp --size 65536 --count 64 --trace "$T/trace.csv" --interval 20
check "dp: the trace has a column per rail" \
	sh -c "head -n 1 $T/trace.csv | grep -qx 'seconds,10.8.0.1@tcp,10.8.1.1@tcp'"
check "dp: and rows in which bytes went" \
	awk -F, 'NR > 1 { for (i = 2; i <= NF; i++) if ($i > 0) moved = 1; n++ } END { exit !(n >= 1 && moved) }' "$T/trace.csv"
check "dp: stats reset in the module" on dpa stats reset
out_has "dp: and its counters start again from 0" "send_count: 0" on dpa stats show

# TBF on live requests in the module: b's test service through its lnet_test policy
# (a's two NIDs are two classes of the rule: 2 x 50/s, each bucket 3 deep)
check "dp: b: a rule for a's NIDs on the service lnet_test" on dpb tbf rule start \
	--service lnet_test --queue reg ca "nid={10.8.[0-1].1@tcp}" rate=50
check "dp: b's test service takes the policy" on dpb selftest service on
out_has "dp: a's writes pass b's policy, every one served" "failed: 0" \
	on dpa selftest run --nid 10.8.0.2@tcp --size 64 --count 60 --concurrency 8
check "dp: never faster than the rule (60 <= 2 x (50/s x seconds + 3))" \
	sh -c "awk '/seconds:/ { exit !(60 <= 2 * (50 * \$2 + 3)) }' $T/out"
out_has "dp: b's rule dispatched them" "name: ca" on dpb tbf show --service lnet_test
check "dp: all 60" sh -c "awk '/name: ca\$/ { w = 1; next } w && \$1 == \"dispatched:\" { exit !(\$2 == 60) }' $T/out"
# A long trace of many rails: 16 NIs on a (14 more on tcp5), and 700 writes through b's
# policy take 7 s at least, so a 10 ms interval makes hundreds of rows of 17 columns, more
# than one netlink attribute (64 KiB) carries: the module sends as many as fit, spread
# over the run and ending where it ended, and the rest of the reply intact.
r=0
while [ $r -lt 14 ]; do
	$IP link add "x$r" netns dpa type veth peer name "y$r" netns dpb
	$IP -n dpa addr add "10.9.$r.1/24" dev "x$r" && $IP -n dpa link set "x$r" up
	r=$((r + 1))
done
check "trace: a has 14 more NIs, on tcp5" \
	on dpa net add --net tcp5 --if x0,x1,x2,x3,x4,x5,x6,x7,x8,x9,x10,x11,x12,x13
rm -f "$T/trace16.csv"
out_has "trace: a long trace of 16 rails comes back whole" "failed: 0" \
	on dpa selftest run --nid 10.8.0.2@tcp --size 64 --count 700 --trace "$T/trace16.csv" \
	--interval 10
check "trace: a column per rail" \
	sh -c "head -n 1 $T/trace16.csv | awk -F, '{ n = NF } END { exit !(n == 17) }'"
check "trace: rows to the end of the run" \
	awk -F, 'NR > 1 { n++; last = $1 } END { exit !(n >= 100 && last >= 6.5) }' "$T/trace16.csv"
on dpa net del --net tcp5 >/dev/null 2>&1
check "dp: the service lets go of the policy when off" on dpb selftest service off
check "dp: which then goes" on dpb tbf del --service lnet_test

# a rail's link goes down: the module's netdev notifier takes its NI out at once (health
# 0, its connections closed, what they held resent), and recovery pings it back when it
# comes up.  NI_SET's link state from lnetd alone does not do this (conformance replays it).
nih() { # the health value net show -v gives a's NI $1
	on dpa net show -v 2>/dev/null | awk -v nid="$1" '
		$1 == "-" && $2 == "nid:" { want = ($3 == nid); next }
		want && /health value:/ { print $NF; exit }'
}
nih_is() { [ "$(nih "$1")" = "$2" ]; }
pnih() { # the health value peer show -v gives a's peer NI $1
	on dpa peer show -v 2>/dev/null | awk -v nid="$1" '
		$1 == "-" && $2 == "nid:" { want = ($3 == nid); next }
		want && /health value:/ { print $NF; exit }'
}
pnih_is() { [ "$(pnih "$1")" = "$2" ]; }
sends() { # what a's NI $1 has sent (net show -v's send_count)
	on dpa net show -v 2>/dev/null | awk -v nid="$1" '
		$1 == "-" && $2 == "nid:" { want = ($3 == nid); next }
		want && $1 == "send_count:" { print $2; exit }'
}
sends_above() { [ "$(sends "$1")" -gt "$2" ] 2>/dev/null; }
# The link goes down under a transfer: every write is delivered or sent again, none
# lost.  a's NIs reach b's crosswise too, and a1's connections to b0 leave by a0
# (10.8.0.0/24 is a0's): when a0 goes down the module closes those as well as a0's
# own, and sends again what they had not had answered (issue 35: a write or more
# waited for an ACK that could not come, and failed).  Pair rules make every write
# cross (a1 sends to b0, a0 to b1), and both rails are shaped to 80 Mbit/s, so that
# bytes wait in the sockets when the link goes, and 1,000 writes take 3 s or more
# whatever the guest's speed: the link goes down while they run.
tc_shape() { # tc_shape IF...: 80 Mbit/s out of each of a's interfaces IF
	for _if in "$@"; do
		$TC -n dpa qdisc replace dev "$_if" root tbf rate 80mbit burst 32k latency 200ms ||
			return 1
	done
}
TC=/bin/tc2
check "health: b serves the test portal" on dpb selftest service on
check "health: a sends to b0 from a1" on dpa udsp add --src 10.8.1.1@tcp --dst 10.8.0.2@tcp
check "health: and to b1 from a0" on dpa udsp add --src 10.8.0.1@tcp --dst 10.8.1.2@tcp
modprobe sch_tbf
check "health: a's two rails shaped to 80 Mbit/s" tc_shape a0 a1
s0=$(sends 10.8.0.1@tcp)
# (each write waits up to 300 s for its ACK: a loaded TCG guest once took 173 s for them
# all, and 25 outlived the 10 s the generator gave them then)
on dpa selftest run --nid 10.8.0.2@tcp --mode write --size 65536 --count 1000 --concurrency 16 \
	--timeout 300 \
	>"$T/h1.out" 2>&1 &
job=$!
check "health: a transfer is under way on rail 0" wait_until "$WAIT" sends_above 10.8.0.1@tcp $((s0 + 20))
$IP -n dpa link set a0 down
check "health: the link went down while the transfer ran" kill -0 $job
check "health: a0's link down: its NI's health is 0 at once" wait_until "$WAIT" nih_is 10.8.0.1@tcp 0
out_has "health: b's primary NID still answers, over the other rail" "primary nid: 10.8.0.2@tcp" \
	on dpa ping --timeout 60 10.8.0.2@tcp
wait $job
h1=$?
echo "# health: a's counters after the transfer: $(on dpa stats show 2>&1 | grep -E 'resend_count|dropped_count|response_timeout' | tr -s ' \n' ' ')"
check "health: the transfer completes" test $h1 = 0
check "health: all 1,000 writes" grep -q "messages: 1000" "$T/h1.out"
check "health: none lost across the link's fall" grep -q "failed: 0" "$T/h1.out"
grep -q "failed: 0" "$T/h1.out" || sed 's/^/# /' "$T/h1.out"
check "health: the pair rules go" on dpa udsp del --all
$TC -n dpa qdisc del dev a0 root 2>/dev/null
check "health: and the shaping" $TC -n dpa qdisc del dev a1 root
echo "# health: b's NI on rail 0, as a's peer, at health $(pnih 10.8.0.2@tcp) before a0's link comes up"
$IP -n dpa link set a0 up
check "health: a0's link up: recovery brings its NI back to 1000" \
	wait_until "$WAIT" nih_is 10.8.0.1@tcp 1000
check "health: and b's NI on that rail, as a's peer" wait_until "$WAIT" pnih_is 10.8.0.2@tcp 1000
pnih_is 10.8.0.2@tcp 1000 || { on dpa peer show -v; on dpa debug recovery --peer; } 2>&1 | sed 's/^/# /'
s1=$(sends 10.8.0.1@tcp)
out_has "health: a transfer after recovery loses nothing" "failed: 0" \
	on dpa selftest run --nid 10.8.0.2@tcp --mode write --size 65536 --count 400 --concurrency 8
d0=$(($(sends 10.8.0.1@tcp) - s1))
echo "# health: rail 0 sent $d0 messages of those 400 writes' traffic"
# Rail 0 should be chosen again.  Batches of 400 run until one puts 40 on it (the first
# may go the other way under load while rail 0's connections are made), bounded by WAIT.
# (Issue 35's "rail 0 never used again" was a0's counters misread: lnetd's Counters ran
# a0 as a local NI and a0 as a peer NI, pinged by its recovery, into one record.)
rail0_again() {
	_b=$(sends 10.8.0.1@tcp)
	on dpa selftest run --nid 10.8.0.2@tcp --mode write --size 65536 --count 400 \
		--concurrency 8 >/dev/null 2>&1
	[ $(($(sends 10.8.0.1@tcp) - _b)) -ge 40 ] 2>/dev/null
}
rc=0
[ "$d0" -ge 40 ] || wait_until "$WAIT" rail0_again || rc=1
check "health: rail 0 carries traffic again" test $rc = 0
[ $rc = 0 ] || { on dpa explain --dst 10.8.0.2@tcp; on dpa net show -v; } 2>&1 | sed 's/^/# /'
# a peer NI's health set below 1000 is the module's recovery's to take back up, as a
# local NI's is (the userspace engine's health.sh does both)
check "health: a sets b's NI on rail 0, as its peer, to health 600" \
	on dpa peer set --nid 10.8.0.2@tcp --health 600
check "health: recovery takes it back to 1000" wait_until "$WAIT" pnih_is 10.8.0.2@tcp 1000
pnih_is 10.8.0.2@tcp 1000 || { on dpa peer show -v; on dpa debug recovery --peer; } 2>&1 | sed 's/^/# /'
check "health: a sets its NI on rail 0 to health 300" on dpa net set --nid 10.8.0.1@tcp --health 300
check "health: recovery takes that back to 1000 too" wait_until "$WAIT" nih_is 10.8.0.1@tcp 1000
check "health: lnetd heard it from the module (the dp group: HealthChanged)" \
	logged "NI 10.8.0.1@tcp: down, health 0" "$T/lnetd-dpa.log"

# health counters, fault rules and recovery queues are the module's (LNETK_CMD_HEALTH_GET,
# _FAULT, _FAULT_GET, _RECOVERY_GET), read and set through lnetd as with the userspace engine
out_has "health: net show -v has the module's health stats for a0" "interrupts:" \
	on dpa net show -v
out_has "health: peer show -v has them for b's NIs" "network timeout:" on dpa peer show -v
check "fault: b drops everything that reaches it, in the module" \
	on dpb fault drop add --source '*' --dest '*' --rate 1
out_has "fault: b lists the rule" "statistics:" on dpb fault drop show
check "fault: so a's ping to b goes unanswered" \
	sh -c "! DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/dpa.bus lnetctl ping --timeout 2 10.8.1.2@tcp"
# (a gave up after 2 s; b counts the drop when the ping reaches it)
b_dropped() { on dpb fault drop show 2>&1 | awk '/dropped:/ { exit !($2 >= 1) }'; }
check "fault: b counted what it dropped" wait_until "$WAIT" b_dropped
# while b drops everything, a's recovery pings of b's NI fail: it stays queued
out_has "health: debug recovery --peer answers from the module" "peer NI recovery" \
	on dpa debug recovery --peer
check "fault: reset (what it zeroes: health.sh, the same engine code)" on dpb fault drop reset
check "fault: del --all removes the rule" on dpb fault drop del --all
on dpb fault drop show >"$T/out" 2>&1
check "fault: none left" sh -c "! grep -q dest: $T/out"
# the longest list FAULT_GET answers: 64 rules (LNE_FAULT_RULES_MAX) with every option at
# its longest, in one reply of at most 60 KiB whose list nest stays under 64 KiB
P=$(i=0; while [ $i -lt 64 ]; do printf '%s' "$i,"; i=$((i + 1)); done)
HS=local_interrupt,local_dropped,local_aborted,local_no_route,local_timeout,local_error
HS=$HS,remote_dropped,remote_error,remote_timeout,network_timeout
longest() {
	on dpb fault drop add --source 10.8.9.1@tcp --dest 10.8.9.2@tcp --rate 1000000000 \
		--portal "${P%,}" --message ACK,PUT,GET,REPLY --health_error "$HS"
}
check "fault: b takes a rule with every option at its longest" longest
i=1
while [ $i -lt 64 ] && longest >/dev/null 2>&1; do i=$((i + 1)); done
check "fault: and 63 more" test $i = 64
on dpb fault drop show >"$T/out" 2>&1
check "fault: and lists all 64 in one answer" sh -c "test \$(grep -c 'id:' $T/out) = 64"
check "fault: which del --all removes" on dpb fault drop del --all
out_has "dp: b still answers a, both rails" "nid: 10.8.1.2@tcp" on dpa ping --timeout 60 10.8.0.2@tcp

# router health in the module: b does not route, so a's router checker (module
# parameters: every second, 2 s to answer) takes a route through b down, and lnetd
# says so (route show -v's state, RouteStateChanged); router credits are the module's too
echo 1 >/sys/module/lnetk/parameters/alive_router_check_interval
echo 2 >/sys/module/lnetk/parameters/router_ping_timeout
check "router: avoid_asym_router_failure is a parameter, on by default (its effect: test-gw.c)" \
	grep -qx Y /sys/module/lnetk/parameters/avoid_asym_router_failure
check "router: a routes tcp9 through b" on dpa route add --net tcp9 --gateway 10.8.0.2@tcp
rstate() { on dpa route show -v 2>/dev/null | awk '$1 == "state:" { print $2; exit }'; }
rstate_down() { [ "$(rstate)" = down ]; }
check "router: the module's checker took it down (b does not route)" wait_until "$WAIT" rstate_down
check "router: lnetd heard it from the module (the dp group: RouteStateChanged)" \
	logged "route to tcp9 via 10.8.0.2@tcp: down" "$T/lnetd-dpa.log"
check "router: the route goes" on dpa route del --net tcp9 --gateway 10.8.0.2@tcp
echo 60 >/sys/module/lnetk/parameters/alive_router_check_interval
echo 50 >/sys/module/lnetk/parameters/router_ping_timeout
out_has "router: peer show -v has the module's router credits" "available_rtr_credits:" \
	on dpa peer show -v

# garbage to b's LNet port: cut off, counted in the log, b still answers
$IP netns exec dpa sh -c 'printf "GET / HTTP/1.0\r\n\r\n" | timeout 60 nc 10.8.0.2 988' >/dev/null 2>&1
out_has "dp: after a hostile client b still answers" "primary nid: 10.8.0.2@tcp" \
	on dpa ping --timeout 60 10.8.0.2@tcp
bad_magic_logged() { dmesg | grep -q "lnetk: closed a connection from a peer before its hello: bad magic"; }
check "dp: the module logged the fault" wait_until "$WAIT" bad_magic_logged

# IPv6: a third rail with only IPv6 addresses (nodad: usable at once), on tcp2: each
# NI's NID is large, so the connections speak socklnd version 4 (the nid16 header)
# rail6 NSA IFA ADDRA NSB IFB ADDRB: a veth pair with one IPv6 address each ("-": initial ns)
rail6() {
	if [ "$1" = - ]; then
		$IP link add "$2" type veth peer name "$5" netns "$4" &&
			$IP addr add "$3/64" dev "$2" nodad && $IP link set "$2" up
	else
		$IP link add "$2" netns "$1" type veth peer name "$5" netns "$4" &&
			$IP -n "$1" addr add "$3/64" dev "$2" nodad && $IP -n "$1" link set "$2" up
	fi && $IP -n "$4" addr add "$6/64" dev "$5" nodad && $IP -n "$4" link set "$5" up
}
check "dp6: an IPv6-only rail between a and b" rail6 dpa a6 2001:db8:8::1 dpb b6 2001:db8:8::2
check "dp6: a: an NI with an IPv6 NID on tcp2" on dpa net add --net tcp2 --if a6
check "dp6: b too" on dpb net add --net tcp2 --if b6
wait_up dpa
wait_up dpb
out_has "dp6: a's NI has b6's address as its NID" "nid: 2001:db8:8::1@tcp2" on dpa net show
out_has "dp6: a pings b over IPv6" "nid: 2001:db8:8::2@tcp2" \
	on dpa ping --timeout 60 2001:db8:8::2@tcp2
check "dp6: b's reply lists its IPv4 NIDs too" has "nid: 10.8.0.2@tcp"
out_has "dp6: b pings a over IPv6" "nid: 2001:db8:8::1@tcp2" \
	on dpb ping --timeout 60 2001:db8:8::1@tcp2
check "dp6: a discovers b by its IPv6 NID" on dpa discover 2001:db8:8::2@tcp2
out_has "dp6: a's peer show has b's IPv6 NID" "nid: 2001:db8:8::2@tcp2" \
	on dpa peer show --nid 2001:db8:8::2@tcp2
check "dp6: b serves the test portal" on dpb selftest service on
out_has "dp6: the module's traffic generator writes to b over IPv6" "failed: 0" \
	on dpa selftest run --nid 2001:db8:8::2@tcp2 --mode write --size 65536 --count 32 \
	--concurrency 4
check "dp6: b's test service off" on dpb selftest service off
out_has "dp6: a's module counted sends from its IPv6 NI" "nid: 2001:db8:8::1@tcp2" \
	on dpa net show -v --net tcp2
check "dp6: some" sh -c "awk '\$1 == \"send_count:\" { exit !(\$2 > 0) }' $T/out"

# Discovery both ways between upstream's LNet and an lnetk node of its own
# (namespace dpu) with two rails to it, on net tcp1, no peers configured.
disc_interop() {
	$IP netns add dpu && $IP -n dpu link set lo up || {
		not_ok "discovery: a namespace for the dual-rail node"
		return
	}
	for r in 0 1; do
		$IP link add "v$r" type veth peer name "c$r" netns dpu
		$IP addr add "10.8.2$r.1/24" dev "v$r"
		$IP link set "v$r" up
		$IP -n dpu addr add "10.8.2$r.2/24" dev "c$r"
		$IP -n dpu link set "c$r" up
	done
	dbus-daemon --config-file=/etc/lnetd-vm/bus.conf --address="unix:path=$T/dpu.bus" \
		--nofork --nopidfile 2>>"$T/bus.log" &
	wait_until "$WAIT" test -S "$T/dpu.bus"
	DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/dpu.bus $IP netns exec dpu \
		lnetd --engine=kernel --state-dir="$T/dpu.state" 2>>"$T/lnetd-dpu.log" &
	echo $! >"$T/dpu.pid"
	wait_until "$WAIT" quiet on dpu status
	upstream-lnetctl net add --net tcp1 --if v0,v1 >>"$T/up.log" 2>&1
	check "discovery: the lnetk node has two NIs on tcp1" on dpu net add --net tcp1 --if c0,c1
	wait_up dpu
	out_has "interop: lnetk discovers upstream's LNet" "nid: 10.8.21.1@tcp1" \
		on dpu discover 10.8.20.1@tcp1
	check "interop: upstream is Multi-Rail to lnetk" has "Multi-Rail: True"
	check "discovery: lnetd heard it from the module (the dp group: PeerDiscovered)" \
		logged "peer [0-9.]+@tcp1? discovered: [2-9] NIDs" "$T/lnetd-dpu.log"
	out_has "interop: lnetk's peer show lists both of upstream's NIDs" "nid: 10.8.20.1@tcp1" \
		on dpu peer show --nid 10.8.21.1@tcp1
	check "interop: as discovered" has "discovered: True"
	out_has "interop: upstream's peer show lists both of lnetk's NIDs (lnetk pushed them)" \
		"nid: 10.8.21.2@tcp1" upstream-lnetctl peer show --nid 10.8.20.2@tcp1
	out_has "interop: upstream discovers lnetk" "nid: 10.8.20.2@tcp1" \
		upstream-lnetctl discover 10.8.21.2@tcp1
	check "interop: and lists both of its NIDs" has "nid: 10.8.21.2@tcp1"
	# traffic through selection over both rails: upstream counts what each of lnetk's NIDs sent
	i=0
	while [ $i -lt 20 ] && on dpu ping --timeout 60 10.8.20.1@tcp1 >/dev/null 2>&1; do
		i=$((i + 1))
	done
	check "interop: 20 pings from lnetk to upstream answered" test $i = 20
	upstream-lnetctl peer show -v --nid 10.8.20.2@tcp1 >"$T/out" 2>&1
	for nid in 10.8.20.2@tcp1 10.8.21.2@tcp1; do
		check "interop: upstream received over lnetk's $nid" awk -v nid="$nid" '
			$0 ~ "nid: " nid "$" { want = 1; next }
			want && /- nid:/ { exit 1 }
			want && /recv_count:/ { exit !($2 > 0) }
			END { if (!want) exit 1 }' "$T/out"
	done
	grep -q "recv_count" "$T/out" || sed 's/^/# /' "$T/out"
	upstream-lnetctl net del --net tcp1 >/dev/null 2>&1
	stop_lnetd dpu
	$IP netns del dpu
}

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
		wait_up dpa
		out_has "interop: lnetk pings upstream's LNet" "primary nid: 10.8.9.1@tcp" \
			on dpa ping --timeout 60 10.8.9.1@tcp
		out_has "interop: upstream's lnetctl pings lnetk" "nid: 10.8.9.2@tcp" \
			upstream-lnetctl ping --timeout 60 10.8.9.2@tcp
		check "interop: upstream lists every NID of lnetk's node" has "nid: 10.8.1.1@tcp"
		out_has "interop: upstream's peer show has lnetk's node" "primary nid: 10.8.9.2@tcp" \
			upstream-lnetctl peer show
		disc_interop
		# over IPv6 (large NIDs): upstream takes an interface's IPv6 address when it has no IPv4
		if rail6 - u6 2001:db8:9::1 dpa ua6 2001:db8:9::2 &&
			upstream-lnetctl net add --net tcp3 --if u6 >>"$T/up.log" 2>&1; then
			check "interop6: a gets an NI on the IPv6 rail to upstream" \
				on dpa net add --net tcp3 --if ua6
			wait_up dpa
			out_has "interop6: lnetk pings upstream's LNet over IPv6" \
				"nid: 2001:db8:9::1@tcp3" on dpa ping --timeout 60 2001:db8:9::1@tcp3
			out_has "interop6: upstream's lnetctl pings lnetk over IPv6" \
				"nid: 2001:db8:9::2@tcp3" upstream-lnetctl ping --timeout 60 2001:db8:9::2@tcp3
			upstream-lnetctl net del --net tcp3 >/dev/null 2>&1
		else
			ok "interop6: over IPv6 # SKIP upstream's LNet takes no IPv6 NI"
			sed 's/^/# /' "$T/up.log" | tail -5
		fi
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
	stop_lnetd "$n"
done
$IP netns del dpa
$IP netns del dpb
# namespaces go in the kernel's own time
no_dpwq() { [ -z "$(dpwq_in "$wq_ours")" ]; }
wq_gone() {
	wait_until "$WAIT" no_dpwq
	echo "still there: $(dpwq_in "$wq_ours" | tr '\n' ' ')(lnetk instances: $(cat /sys/module/lnetk/parameters/instances))"
	[ -z "$(dpwq_in "$wq_ours")" ]
}
check "dp: the namespaces go, and their data path workqueues with them" wq_gone
check "dp: namespaces with live LNet connections go cleanly" test -e /sys/module/lnetk

# The module's lnet_port parameter (lnetd --lnet-port is lnet-port.sh's): a
# port that is no port is refused at load; loaded with lnet_port=7988, two
# nodes listen there, not on 988, and ping each other there.  Then the
# module is loaded again as it was, for what follows.
ko=$(find /lib/modules -name lnetk.ko | head -1)
# node_start NS [CMD...]: a bus and lnetd (kernel engine) for namespace NS, run by CMD
# (e.g. setpriv) when given
node_start() {
	_ns=$1
	shift
	dbus-daemon --config-file=/etc/lnetd-vm/bus.conf --address="unix:path=$T/$_ns.bus" \
		--nofork --nopidfile 2>>"$T/bus.log" &
	wait_until "$WAIT" test -S "$T/$_ns.bus"
	DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/$_ns.bus $IP netns exec "$_ns" \
		"$@" lnetd --engine=kernel --state-dir="$T/$_ns.state" 2>>"$T/lnetd-$_ns.log" &
	echo $! >"$T/$_ns.pid"
	wait_until "$WAIT" quiet on "$_ns" status
}
# no_bind_cap PID: the process may not bind a reserved port itself (no CAP_NET_BIND_SERVICE, bit 10)
no_bind_cap() {
	_eff=$(awk '$1 == "CapEff:" { print $2 }' "/proc/$1/status")
	echo "CapEff: $_eff"
	[ -n "$_eff" ] && [ $((0x$_eff >> 10 & 1)) = 0 ]
}
# from_reserved REMOTE: $T/out (tcp_socks) has connections to REMOTE (address:port), each
# from a port below 1024
from_reserved() {
	cat "$T/out"
	awk -v to="$1" '$2 == to { n = split($1, a, ":"); if (a[n] + 0 < 1024) r++; else o++ }
		END { exit !(r >= 1 && !o) }' "$T/out"
}
# tcp_socks NS STATE: NS's TCP sockets in STATE (LISTEN, ESTABLISHED), as
# "local remote" lines; the module's kernel sockets are there too
tcp_socks() {
	$IP netns exec "$1" netstat -tan | awk -v s="$2" '$6 == s { print $4, $5 }'
}
# refused VALUE: lnetk with lnet_port=VALUE does not load, and the kernel log says why
refused() {
	if insmod "$ko" lnet_port="$1"; then
		echo "loaded, lnet_port $(cat /sys/module/lnetk/parameters/lnet_port)"
		rmmod lnetk
		return 1
	fi
	dmesg | grep -q ".$1. invalid for parameter .lnet_port."
}
# socks_have [!] PATTERN: $T/out (tcp_socks) has a line matching PATTERN (with !, has none)
socks_have() {
	if [ "$1" = ! ]; then
		! grep -q -- "$2" "$T/out" && return 0
	else
		grep -q -- "$1" "$T/out" && return 0
	fi
	cat "$T/out"
	return 1
}
check "port: lnetk unloads once its namespaces are gone" rmmod lnetk
for bad in 0 65536 -1 988x; do
	check "port: lnetk with lnet_port=$bad is refused at load, saying why" refused "$bad"
done
check "port: lnetk loads with lnet_port=7988" insmod "$ko" lnet_port=7988
check "port: which it reports" grep -qx 7988 /sys/module/lnetk/parameters/lnet_port
$IP netns add pa && $IP netns add pb &&
	$IP link add p0 netns pa type veth peer name q0 netns pb &&
	$IP -n pa addr add 10.8.40.1/24 dev p0 && $IP -n pb addr add 10.8.40.2/24 dev q0 &&
	$IP -n pa link set p0 up && $IP -n pb link set q0 up &&
	$IP -n pa link set lo up && $IP -n pb link set lo up || not_ok "port: two namespaces"
# a's lnetd without CAP_NET_BIND_SERVICE (as lnetd.service runs it with the kernel engine,
# systemd/sandbox-kernel): the module binds its connections' reserved ports itself
if command -v setpriv2 >/dev/null 2>&1; then
	node_start pa setpriv2 --bounding-set=-net_bind_service --inh-caps=-net_bind_service
	check "port: a's lnetd runs without CAP_NET_BIND_SERVICE" no_bind_cap "$(cat "$T/pa.pid")"
else
	node_start pa
	ok "port: a's lnetd without CAP_NET_BIND_SERVICE # SKIP no setpriv2 in the guest"
fi
node_start pb
check "port: node a has an NI" on pa net add --net tcp --if p0
check "port: node b too" on pb net add --net tcp --if q0
wait_up pa
wait_up pb
out_has "port: a pings b" "primary nid: 10.8.40.2@tcp" on pa ping --timeout 60 10.8.40.2@tcp
out_has "port: b pings a" "primary nid: 10.8.40.1@tcp" on pb ping --timeout 60 10.8.40.1@tcp
tcp_socks pb LISTEN >"$T/out"
check "port: b listens on 10.8.40.2:7988" socks_have '^10.8.40.2:7988 '
check "port: and not on 988" socks_have ! ':988 '
tcp_socks pa ESTABLISHED >"$T/out"
check "port: a's connection to b is to port 7988" socks_have ' 10.8.40.2:7988$'
check "port: from a reserved port (upstream's acceptor wants one), lnetd's capability or not" \
	from_reserved 10.8.40.2:7988
for n in pa pb; do
	stop_lnetd "$n"
done
$IP netns del pa
$IP netns del pb
# rmmod waits for the namespaces' instances to go
check "port: lnetk loads again with the default port" \
	sh -c "rmmod lnetk && insmod $ko && grep -qx 988 /sys/module/lnetk/parameters/lnet_port"
[ $failed = 0 ]
