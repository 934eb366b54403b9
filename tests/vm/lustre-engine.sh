#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/vm/lustre-engine.sh VERSION - in a lustre guest (tests/vm/lustre-init
# runs it, in the guest's initial namespace: lnet.ko is not netns-aware):
# lnetd --engine=lustre owns upstream's lnet.ko, and upstream's own lnetctl
# (upstream-lnetctl) reads back what lnetd configured.
#
# Started before `modprobe lnet` (everything pending "lnet.ko not loaded",
# then configured when it appears), drift by upstream's lnetctl put back, a
# late interface, lnetd started after lnet.ko, rmmod + modprobe healed,
# 1,000+ peers, refusals (judged, and kept pending with lnet.ko's sentence),
# the data path (ping, discover, stats), lnet.ko's own health, states and
# counters in show -v (compared with upstream's readout), a ping and a
# discovery each way with an lnetk node in a child namespace, and the drift
# poll's cheap read (a NID deleted from one of 1,001 peers put back).
# Every wait is for a condition,
# bounded by WAIT seconds; figures are printed as # lines, never asserted.
#
# Prints unnumbered TAP lines ("ok - VERSION/engine: ..."); exits 1 if one failed.
export PATH=/bin
version=$1
peers=${LNETD_VM_LUSTRE_ENGINE_PEERS:-1000}
WAIT=${LNETD_VM_LUSTRE_WAIT:-120}
T=/tmp/le
failed=0
rm -rf "$T" && mkdir -p "$T/state"
UL=upstream-lnetctl
L=lnetctl
DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/bus
export DBUS_SYSTEM_BUS_ADDRESS
case $version in
2.15.* | 2.16.*) modargs_libcfs="cpu_npartitions=2" modargs="" ;;
*) modargs_libcfs="cpu_npartitions=2" modargs="cpu_npartitions=2" ;;
esac
modargs="$modargs tiny_router_buffers=512 small_router_buffers=1024 large_router_buffers=64"

say() { echo "ok - $version/engine: $1"; }
bad() {
	echo "not ok - $version/engine: $1"
	failed=$((failed + 1))
	[ -f /tmp/le-out ] && sed 's/^/# /' /tmp/le-out | tail -n 30
	tail -n 15 "$T/lnetd.log" 2>/dev/null | sed 's/^/# lnetd: /'
}
# check DESCRIPTION COMMAND...: one TAP line for COMMAND's exit status.
check() {
	desc=$1
	shift
	if "$@" >/tmp/le-out 2>&1; then say "$desc"; else bad "$desc"; fi
}
# wait_until COMMAND...: until it succeeds, at most WAIT seconds.
wait_until() {
	_end=$(($(cut -d. -f1 /proc/uptime) + WAIT))
	until "$@" >/tmp/le-out 2>&1; do
		[ "$(cut -d. -f1 /proc/uptime)" -lt "$_end" ] || return 1
		sleep 0.1
	done
}
# has PATTERN COMMAND...: COMMAND's output has a line matching PATTERN (grep -E).
has() {
	_p=$1
	shift
	"$@" >"$T/has" 2>&1
	grep -E -q -- "$_p" "$T/has" || { cat "$T/has" && return 1; }
}
hasnt() {
	_p=$1
	shift
	"$@" >"$T/has" 2>&1
	! grep -E -q -- "$_p" "$T/has" || { cat "$T/has" && return 1; }
}
uptime_s() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" '{ printf "%.2f", $1 - a }' /proc/uptime; }

lnet_load() { modprobe libcfs $modargs_libcfs && modprobe lnet $modargs; }
lnet_gone() { [ ! -e /sys/module/lnet ]; }
# As lustre_rmmod does: LNet unconfigured, then the modules out (lnetd holds
# nothing open between its requests, so rmmod only waits for one under way).
lnet_unload() {
	$UL lnet unconfigure >/dev/null 2>&1
	for m in ksocklnd lnet; do
		[ -e /sys/module/$m ] || continue
		wait_until rmmod $m || return 1
	done
}
lnetd_start() {
	lnetd --engine=lustre --state-dir="$T/state" >>"$T/lnetd.log" 2>&1 &
	LNETD_PID=$!
	wait_until $L status
}
lnetd_stop() {
	kill "$LNETD_PID" 2>/dev/null
	wait "$LNETD_PID" 2>/dev/null
}
# lnetd applied everything: its Status has no pending object
applied() { $L status >"$T/st" 2>&1 && grep -q "pending: \[\]" "$T/st" || { cat "$T/st"; return 1; }; }
# upstream's lnetctl sees NID $1 in its net show
ul_ni() { has "nid: $1" $UL net show; }
ul_peer() { has "$1" $UL peer show --nid "$1"; }

# --- a clean start: what the library's cases left goes --------------------------
lnet_unload
dbus-daemon --config-file=/etc/lnetd-vm/bus.conf --address="$DBUS_SYSTEM_BUS_ADDRESS" --nofork \
	>"$T/bus.log" 2>&1 &
BUS_PID=$!
wait_until [ -S "$T/bus" ] || bad "a private bus"

# --- 1. started before lnet.ko: everything pending, then configured ----------------
check "lnetd --engine=lustre starts without lnet.ko" lnetd_start
check "the configuration is kept while lnet.ko is away" sh -c "
	$L net add --net tcp --if d0 --peer-credits 16 &&
	$L peer add --prim_nid 10.1.0.100@tcp --nid 10.1.0.101@tcp &&
	$L route add --net tcp5 --gateway 10.1.0.200@tcp --hop 2 --priority 3 &&
	$L udsp add --src tcp --priority 1 &&
	$L set drop_asym_route 1 &&
	$L set tiny_buffers 512 && $L set small_buffers 1024 && $L set large_buffers 64"
check "Status says every object waits: lnet.ko not loaded" has "lnet.ko not loaded" $L status
check "net show says the NI is pending: lnet.ko not loaded" has "reason: lnet.ko not loaded" \
	$L net show
check "ping without lnet.ko: a sentence naming it" has "lnet.ko not loaded" $L ping 10.1.0.1@tcp
t0=$(uptime_s)
check "modprobe lnet" lnet_load
check "lnet.ko appeared: upstream's lnetctl sees lnetd's NI" wait_until ul_ni 10.1.0.1@tcp
echo "# $version: configured $(since "$t0") s after modprobe began"
check "lnetd says everything is applied" wait_until applied
check "upstream net show -v: the NI's peer_credits" has "peer_credits: 16" $UL net show -v
check "upstream peer show: the peer and its NIDs" sh -c \
	"$UL peer show --nid 10.1.0.100@tcp | grep -q 10.1.0.101@tcp"
check "upstream route show: hop and priority" sh -c "
	$UL route show -v >$T/r && grep -q 'net: tcp5' $T/r && grep -q 'gateway: 10.1.0.200@tcp' $T/r &&
	grep -Eq 'hop: 2' $T/r && grep -Eq 'priority: 3' $T/r || { cat $T/r; exit 1; }"
check "upstream udsp show: the rule" sh -c "
	$UL udsp show >$T/u && grep -q 'src: tcp' $T/u && grep -q 'priority: 1' $T/u || { cat $T/u; exit 1; }"
check "upstream global show: drop_asym_route 1" has "drop_asym_route: 1" $UL global show

# --- 2. refusals: judged with the version's limit, or pending with its sentence ------
check "discovery 2 refused, naming lnet.ko's limit" sh -c \
	"! $L set discovery 2 >$T/o 2>&1 && grep -q 'lnet.ko' $T/o && grep -q 'on or off only' $T/o ||
	{ cat $T/o; exit 1; }"
case $version in
2.15.* | 2.16.*) ;;
*)
	check "route sensitivity refused where lnet.ko keeps none" sh -c \
		"! $L route add --net tcp6 --gateway 10.1.0.201@tcp --health-sensitivity 2 >$T/o 2>&1 &&
		grep -q 'sensitivity' $T/o || { cat $T/o; exit 1; }"
	;;
esac
case $version in
2.15.*)
	check "an IPv6 peer refused: lnet.ko 2.15 takes only IPv4 NIDs" sh -c \
		"! $L peer add --prim_nid 2001:db8:1::9@tcp >$T/o 2>&1 && grep -q 'IPv4' $T/o ||
		{ cat $T/o; exit 1; }"
	check "an IPv6 NI is kept pending with lnet.ko's sentence" sh -c "
		$L net add --net tcp3 --if d3 >/dev/null 2>&1
		$L net show --net tcp3 >$T/o 2>&1; grep -q 'status: pending' $T/o &&
		grep -q 'IPv4' $T/o || { cat $T/o; exit 1; }"
	$L net del --net tcp3 >/dev/null 2>&1
	;;
esac
check "an NI lnet.ko refuses is pending with lnet.ko's sentence" sh -c "
	$L net add --net tcp4 --if d2 --peer-timeout 0 >/dev/null 2>&1
	$L net show --net tcp4 >$T/o 2>&1; grep -q 'status: pending' $T/o &&
	grep -q 'peer_timeout 0' $T/o || { cat $T/o; exit 1; }"
check "... while the other NIs are applied" has "status: (up|applied)" $L net show --net tcp
check "... and Status names it" has "peer_timeout 0" $L status
$L net del --net tcp4 >/dev/null 2>&1
check "without it, everything is applied again" wait_until applied

# --- 3. drift by upstream's lnetctl, put back --------------------------------------
t0=$(uptime_s)
check "upstream lnetctl deletes lnetd's peer" $UL peer del --prim_nid 10.1.0.100@tcp
check "the peer is put back" wait_until ul_peer 10.1.0.100@tcp
echo "# $version: a deleted peer was back $(since "$t0") s later"
check "upstream lnetctl adds an NI of its own" $UL net add --net tcp1 --if d1
check "the NI lnetd does not own goes" wait_until hasnt "nid: 10.2.0.1@tcp1" $UL net show
check "upstream lnetctl deletes lnetd's route" $UL route del --net tcp5 --gateway 10.1.0.200@tcp
check "the route is put back" wait_until has "tcp5" $UL route show

# --- 4. a late interface gets its NI ------------------------------------------------
check "an NI on an interface not there yet is pending" sh -c "
	$L net add --net tcp2 --if d9 >/dev/null 2>&1; $L net show --net tcp2 | grep -q pending"
check "the interface appears" sh -c \
	"ip link add d9 type dummy && ip addr add 10.9.0.1/24 dev d9 && ip link set d9 up"
check "lnet.ko gets its NI" wait_until ul_ni 10.9.0.1@tcp2

# --- 5. the data path -----------------------------------------------------------------
check "ping of lnet.ko's own NID through lnetd" has "10.1.0.1@tcp" $L ping 10.1.0.1@tcp
check "discover of lnet.ko's own NID through lnetd" has "10.1.0.1@tcp" $L discover 10.1.0.1@tcp
check "stats show: lnet.ko's counters" has "send_count" $L stats show
check "what lnet.ko cannot do: NotSupported with a sentence" has "lustre engine cannot" \
	$L fault drop show

# --- 5b. lnet.ko's own running state in net show -v and peer show -v -----------------
# FILE NID KEY: KEY's value in the block of NID in a show -v (the first after "nid: NID")
val() {
	awk -v nid="nid: $2" -v key="$3:" '
	!f && (i = index($0, nid)) && substr($0, i + length(nid)) ~ /^[ "]*$/ { f = 1; next }
	f && (i = index($0, key)) { v = substr($0, i + length(key)); gsub(/[ "]/, "", v); print v; exit }
	' "$1"
}
# FILE NID KEY WANT: val is WANT (not empty)
is() {
	[ -n "$4" ] && [ "$(val "$1" "$2" "$3")" = "$4" ] && return 0
	echo "want $3: $4 for $2 in:" && cat "$1" && return 1
}
# A B C: numbers, A <= B <= C (B read between A and C, of a value that only grows)
between() {
	case "$1$2$3" in *[!0-9]* | "") return 1 ;; esac
	[ "$1" -le "$2" ] && [ "$2" -le "$3" ]
}
# upstream's show -v (level 3: health stats on every version), ours, upstream's again
three() {
	$UL "$1" show -v 3 $2 >"$T/u1" 2>&1
	$L "$1" show -v $2 >"$T/o" 2>&1
	$UL "$1" show -v 3 $2 >"$T/u2" 2>&1
}
t5b=$(uptime_s)
ni=10.1.0.1@tcp pni=10.1.0.101@tcp
check "upstream lnetctl sets lnet.ko's health of a peer NI to 0" \
	$UL peer set --nid $pni --health 0
three peer "--nid $pni"
check "peer show -v: that peer NI's health value is lnet.ko's (0)" is "$T/o" $pni "health value" 0
check "... as upstream's lnetctl reads it" is "$T/u2" $pni "health value" 0
check "peer show -v: its state is lnet.ko's" \
	is "$T/o" $pni state "$(val "$T/u2" $pni state)"
a=$(val "$T/u1" $pni send_count) o=$(val "$T/o" $pni send_count) c=$(val "$T/u2" $pni send_count)
echo "# $version: peer NI send_count upstream $a, lnetd $o, upstream $c"
check "peer show -v: its send_count is lnet.ko's (between upstream's two reads)" \
	between "$a" "$o" "$c"
# lnet.ko's recovery pings of its own NI raise its health by health_sensitivity
# each: at 0 (lnet.ko then takes retry_count to 0 too) a health set stays as set
gl() { $L global show | sed -n "s/^ *$1: *//p"; }
retry=$(gl retry_count) sens=$(gl health_sensitivity)
check "lnetd sets retry_count and health_sensitivity 0" \
	sh -c "$L set retry_count 0 && $L set health_sensitivity 0"
check "... upstream reads health_sensitivity 0" has "health_sensitivity: 0" $UL global show
check "upstream lnetctl sets lnet.ko's health of lnetd's NI to 0" $UL net set --nid $ni --health 0
three net "--net tcp"
check "net show -v: the NI's health value is lnet.ko's (0)" is "$T/o" $ni "health value" 0
check "... as upstream's lnetctl reads it" is "$T/u2" $ni "health value" 0
# 2.17's lnet.ko takes an NI set to health 0 down; 2.15's and 2.16's leave it up
check "net show -v: the NI's status is lnet.ko's ($(val "$T/u2" $ni status))" \
	is "$T/o" $ni status "$(val "$T/u2" $ni status)"
a=$(val "$T/u1" $ni send_count) o=$(val "$T/o" $ni send_count) c=$(val "$T/u2" $ni send_count)
echo "# $version: NI send_count upstream $a, lnetd $o, upstream $c"
check "net show -v: the NI's send_count is lnet.ko's (between upstream's two reads)" \
	between "$a" "$o" "$c"
a=$(val "$T/u1" $ni interrupts) o=$(val "$T/o" $ni interrupts) c=$(val "$T/u2" $ni interrupts)
check "net show -v: its health counters are lnet.ko's (interrupts, between)" \
	between "$a" "$o" "$c"
check "lnetd's net set --health acts on lnet.ko" $L net set --nid $ni --health 700
$UL net show -v 3 --net tcp >"$T/u1" 2>&1
check "... upstream's net show -v reads it back" is "$T/u1" $ni "health value" 700
check "lnetd's health_sensitivity and retry_count back" \
	sh -c "$L set health_sensitivity $sens && $L set retry_count $retry"
check "lnetd's peer set --health acts on lnet.ko" $L peer set --nid 10.1.0.100@tcp --health 0
$UL peer show -v 3 --nid 10.1.0.100@tcp >"$T/u1" 2>&1
check "... upstream's peer show -v reads it back" is "$T/u1" 10.1.0.100@tcp "health value" 0
$L net set --nid $ni --health 1000 >/dev/null 2>&1
for n in 10.1.0.100@tcp $pni; do $L peer set --nid $n --health 1000 >/dev/null 2>&1; done
echo "# $version: the running-state cases took $(since "$t5b") s"

# --- 5c. lnet.ko (configured by lnetd) and an lnetk node in a child namespace ----------
# lnet.ko is not netns-aware (its NIs live in the initial namespace); lnetk is:
# its node, driven by an lnetd of its own (--engine=kernel, a bus of its own),
# sits in namespace "lk", joined to the initial one by a veth pair on net tcp7.
if [ -f /lnetk-skip ]; then
	echo "ok - $version/engine: a ping and a discovery with an lnetk node # SKIP $(cat /lnetk-skip)"
else
	t5c=$(uptime_s)
	K="ip2 netns exec lk env DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/lk.bus lnetctl"
	lk_up() {
		mkdir -p /run/netns && modprobe veth && modprobe lnetk && ip2 netns add lk &&
			ip2 link add ve0 type veth peer name ve1 && ip2 link set ve1 netns lk &&
			ip2 addr add 10.7.0.1/24 dev ve0 && ip2 link set ve0 up &&
			ip2 -n lk addr add 10.7.0.2/24 dev ve1 && ip2 -n lk link set ve1 up &&
			ip2 -n lk link set lo up || return 1
		dbus-daemon --config-file=/etc/lnetd-vm/bus.conf --address="unix:path=$T/lk.bus" \
			--nofork --nopidfile >>"$T/bus.log" 2>&1 &
		LK_BUS=$!
		wait_until [ -S "$T/lk.bus" ] || return 1
		DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/lk.bus ip2 netns exec lk \
			lnetd --engine=kernel --state-dir="$T/lk.state" >>"$T/lnetd-lk.log" 2>&1 &
		LK_PID=$! # ip execs lnetd: the same process
		wait_until $K status
	}
	check "lnetk loads beside lnet.ko, its node in a child namespace (lnetd, kernel engine)" lk_up
	check "the lnetk node's NI on its veth end (tcp7)" $K net add --net tcp7 --if ve1
	check "lnetd gives lnet.ko an NI on the other end (tcp7)" $L net add --net tcp7 --if ve0
	check "... upstream's lnetctl sees it" wait_until ul_ni 10.7.0.1@tcp7
	check "lnet.ko (through lnetd) pings the lnetk node" has "10.7.0.2@tcp7" \
		$L ping 10.7.0.2@tcp7
	check "the lnetk node pings lnet.ko" has "10.7.0.1@tcp7" $K ping 10.7.0.1@tcp7
	check "lnet.ko (through lnetd) discovers the lnetk node" has "10.7.0.2@tcp7" \
		$L discover 10.7.0.2@tcp7
	check "... upstream's lnetctl sees the peer lnet.ko discovered" \
		has "10.7.0.2@tcp7" $UL peer show --nid 10.7.0.2@tcp7
	check "the lnetk node discovers lnet.ko" has "10.7.0.1@tcp7" $K discover 10.7.0.1@tcp7
	$L net del --net tcp7 >/dev/null 2>&1
	kill "$LK_PID" 2>/dev/null
	wait "$LK_PID" 2>/dev/null
	kill "$LK_BUS" 2>/dev/null
	ip2 netns del lk 2>/dev/null
	ip2 link del ve0 2>/dev/null
	check "without tcp7, everything lnetd owns is applied" wait_until applied
	echo "# $version: the lnetk cases took $(since "$t5c") s"
fi

# --- 6. 1,000+ peers ----------------------------------------------------------------
awk -v n="$peers" 'BEGIN {
	print "peer:"
	for (i = 0; i < n; i++) {
		a = int(i / 250) + 20; b = i % 250 + 1
		printf "-   primary nid: 10.%d.%d.1@tcp\n    Multi-Rail: True\n    peer ni:\n", a, b
		printf "    -   nid: 10.%d.%d.1@tcp\n    -   nid: 10.%d.%d.2@tcp\n", a, b, a, b
	}
}' >"$T/peers.yaml"
last="10.$(((peers - 1) / 250 + 20)).$(((peers - 1) % 250 + 1))"
t0=$(uptime_s)
check "lnetctl import of $peers peers" $L import "$T/peers.yaml"
check "... all applied" wait_until applied
echo "# $version: $peers peers imported and applied in $(since "$t0") s"
check "upstream sees the first peer's NIDs" has "10.20.1.2@tcp" $UL peer show --nid 10.20.1.1@tcp
check "upstream sees the last peer's NIDs" has "$last.2@tcp" $UL peer show --nid "$last.1@tcp"

# --- 7. rmmod + modprobe: healed when lnet.ko returns ---------------------------------
check "lnet unconfigure and rmmod (lustre_rmmod's way) while lnetd runs" lnet_unload
check "lnetd says lnet.ko is not loaded" wait_until has "lnet.ko not loaded" $L status
t0=$(uptime_s)
check "modprobe lnet again" lnet_load
check "healed: the NI is back" wait_until ul_ni 10.1.0.1@tcp
check "healed: everything applied" wait_until applied
echo "# $version: reload with $((peers + 1)) peers healed $(since "$t0") s after modprobe began"
check "healed: the last peer is back" has "$last.2@tcp" $UL peer show --nid "$last.1@tcp"
check "healed: the rule is back" has "src: tcp" $UL udsp show
grep -E "lnet.ko .*appeared" "$T/lnetd.log" | tail -n 1 | sed 's/^/# /'

# --- 8. lnetd started after lnet.ko, with drift while it was away ---------------------
lnetd_stop
reads0=$(grep -c "drift poll's read took" "$T/lnetd.log")
check "while lnetd is away, upstream deletes a peer" $UL peer del --prim_nid 10.20.1.1@tcp
t0=$(uptime_s)
check "lnetd starts beside a configured lnet.ko" lnetd_start
check "... and puts the peer back" wait_until ul_peer 10.20.1.1@tcp
check "... everything applied" wait_until applied
echo "# $version: lnetd's start beside lnet.ko made it equal in $(since "$t0") s"
grep -E "at start" "$T/lnetd.log" | tail -n 1 | sed 's/^/# /'
# what lnet.ko normalises (conns_per_peer, tos, the device's CPT, NI order) is no
# drift: the start changed the one peer, never an NI (which would drop its peers)
check "... changing only what drifted (1 change: the peer)" \
	sh -c "grep 'at start' $T/lnetd.log | tail -n 1 | grep -q ', 1 changes made'"
# the drift poll's read: lnet.ko's peer list whole, and only the peers whose entry
# changed plus a rolling 1/16 of them looked into (the full read at start: every one)
more_reads() { [ "$(grep -c "drift poll's read took" "$T/lnetd.log")" -gt "$reads0" ]; }
check "lnetd logs what its drift poll's read took" wait_until more_reads
pr=$(grep "drift poll's read took" "$T/lnetd.log" | tail -n 1 |
	sed -n 's/.*(\([0-9]*\) peers listed, \([0-9]*\) looked into.*/\1 \2/p')
check "the drift poll looks into fewer peers than lnet.ko's list has" \
	sh -c 'set -- $1; [ "$1" -gt 1000 ] && [ "$2" -lt "$1" ]' - "$pr"
grep -E "at start|drift poll's read took" "$T/lnetd.log" | tail -n 2 | sed "s/^/# $version: /"
t0=$(uptime_s)
check "upstream lnetctl deletes a NID of lnetd's last peer (its list entry stays)" \
	$UL peer del --prim_nid "$last.1@tcp" --nid "$last.2@tcp"
# found by the rolling re-read: within 16 polls of at least 3 s each
w=$WAIT WAIT=$((WAIT * 4))
check "... the NID is put back" wait_until has "$last.2@tcp" $UL peer show --nid "$last.1@tcp"
WAIT=$w
echo "# $version: a NID deleted from one of $((peers + 1)) peers was back $(since "$t0") s later"

# --- the end: lnetd stopped, LNet left to the guest's own rmmod -----------------------
lnetd_stop
$UL lnet unconfigure >/dev/null 2>&1
kill "$BUS_PID" 2>/dev/null
wait 2>/dev/null
grep -E "changed behind|drift|refused|error" "$T/lnetd.log" | head -n 20 | sed 's/^/# lnetd: /'
exit $((failed > 0))
