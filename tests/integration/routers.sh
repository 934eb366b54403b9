#!/bin/sh
# Router health between userspace-engine nodes: a on tcp, b on tcp1, and r
# routing between them, each an lnetd in a network namespace of the test's
# own.  a and b check their gateway every second (--router-check-interval)
# and give it 30 s to answer (--router-ping-timeout: a gateway that does not
# answer in time is dead, so a short one would take a route down on a
# loaded machine; every "down" below comes from an answer or a refusal):
#   - the route is up while r answers and routes (sanity-lnet 220);
#   - r's NI on tcp1 goes down: r's ping says so and a's route is down
#     (avoid_asym_router_failure, 222); back up, the route is up; b, started
#     with --avoid-asym-router-failure=0, keeps its route up when r's NI on
#     tcp goes down;
#   - r stops: a's route is down, a ping through it fails, the change is
#     logged and signalled; r starts again: up, and traffic passes (257);
#   - a ping to a node that is gone fails, and not by timing out (252);
#   - drop_asym_route: b drops what r passes on from tcp once b's route to
#     tcp goes through another gateway, and counts it;
#   - r's router credits for a as `peer show -v` prints them (peer_buffer_credits).
# Timing is not asserted: waits are for the condition asserted, bounded by
# TEST_WAIT (lib.sh), and how long things took goes out as diag.  Pings that
# must be answered wait up to 60 s.  TAP.
set -u
NS_PREFIX=lnr
. "$(dirname "$0")/nodes-tap.sh"
# lacks TEXT: $OUT does not contain TEXT
lacks() {
	case $OUT in *"$1"*)
		diag "expected not to find: $1" "got: $OUT"
		return 1
		;;
	esac
}
# route_state X NET: the state `route show -v` prints for node X's route to NET
route_state() {
	node_ctl "$1" route show -v --net "$2" 2>/dev/null | awk '$1 == "state:" { print $2; exit }'
}
# until_state X NET STATE: wait until node X's route to NET is STATE
state_is() { [ "$(route_state "$1" "$2")" = "$3" ]; }
until_state() {
	_t0=$(date +%s)
	wait_until "$TEST_WAIT" state_is "$@"
	_rc=$?
	diag "$1's route to $2 $3 after $(($(date +%s) - _t0)) s"
	return $_rc
}
# stop X: end node X's lnetd (the one process in its namespace), and wait for it
stop() {
	for _p in $(ip netns pids "$NS$1"); do
		kill "$_p"
		wait_until "$TEST_WAIT" eval "! kill -0 $_p 2>/dev/null"
	done
}
RTR="--router-check-interval=1 --router-ping-timeout=30"

node_ns a r b || {
	echo "1..0 # SKIP cannot make network namespaces"
	exit 0
}
node_link a a0 r r0 10.81.0 || exit 1
node_link r r1 b b0 10.81.1 || exit 1
# shellcheck disable=SC2086
check "node a starts" node_start a $RTR
check "node r starts" node_start r
# b lets only a gateway's own answer count (avoid_asym_router_failure off)
# shellcheck disable=SC2086
check "node b starts" node_start b $RTR --avoid-asym-router-failure=0
on a net add --net tcp --if a0
check "a: an NI on tcp" test "$RC" = 0
on r net add --net tcp --if r0 --peer-buffer-credits 4
check "r: an NI on tcp, 4 router credits a peer" test "$RC" = 0
on r net add --net tcp1 --if r1
check "r: an NI on tcp1" test "$RC" = 0
on b net add --net tcp1 --if b0
check "b: an NI on tcp1" test "$RC" = 0
on r set routing 1
check "r routes" test "$RC" = 0
for x in a r b; do check "$x's NIs are up" node_up $x; done
on a route add --net tcp1 --gateway 10.81.0.2@tcp
check "a: tcp1 through r" test "$RC" = 0
on b route add --net tcp --gateway 10.81.1.1@tcp1
check "b: tcp through r" test "$RC" = 0

# 220: checked, and up.
check "a's route is up" until_state a tcp1 up
on a ping --timeout 60 10.81.1.2@tcp1
check "a pings b through r" has "primary nid: 10.81.1.2@tcp1"
on a route show
check "route show without -v prints no state" lacks "state:"
# node_count X KEY: one of node X's own counters
node_count() {
	busctl --address="unix:path=$T/$1.bus" --timeout="$TEST_WAIT" call org.lnetd1 /org/lnetd1 \
		org.lnetd1.Manager Counters 2>/dev/null | tr ' ' '\n' |
		awk -v key="\"$2\"" '$0 == key { getline; print; exit }'
}
# count_at_least X KEY N: node X's counter KEY is at least N
count_at_least() { [ "$(node_count "$1" "$2")" -ge "$3" ] 2>/dev/null; }
check "a's router checker pings r, again and again" wait_until "$TEST_WAIT" count_at_least a router_pings 2
check "a's route is still up" test "$(route_state a tcp1)" = up

# 222: r's NI on tcp1 goes down; its ping says so.
ip -n "${NS}r" link set r1 down
check "r's NI on tcp1 down: a's route is down" until_state a tcp1 down
on a ping --timeout 2 10.81.1.2@tcp1
check "and a ping through it fails" test "$RC" != 0
ip -n "${NS}r" link set r1 up
check "back up: the route is up" until_state a tcp1 up
on a ping --timeout 60 10.81.1.2@tcp1
check "and a pings b again" has "primary nid: 10.81.1.2@tcp1"
# b, avoid_asym off: r's NI on tcp down leaves b's route to tcp up, checked twice since.
ip -n "${NS}r" link set r0 down
pings=$(node_count b router_pings)
check "b checked r twice with r's NI on tcp down" \
	wait_until "$TEST_WAIT" count_at_least b router_pings $((pings + 2))
check "and b's route to tcp is still up (--avoid-asym-router-failure=0)" test "$(route_state b tcp)" = up
ip -n "${NS}r" link set r0 up
check "r's NI on tcp back: a's route up again" until_state a tcp1 up

# 257: r stops and starts again.
stop r
check "r stopped: a's route is down" until_state a tcp1 down
check "b's too" until_state b tcp down
check "the change is logged (and signalled: the same lnetd_event)" \
	grep -q "route to tcp1 via 10.81.0.2@tcp: down" "$T/lnetd.log"
on a ping --timeout 2 10.81.1.2@tcp1
check "a ping through r fails" test "$RC" != 0
# 252: a ping to a node that is gone fails, refused rather than timed out.
t0=$(date +%s)
on a ping --timeout 300 10.81.0.2@tcp
check "a ping to r, which is gone, fails" test "$RC" != 0
diag "it failed after $(($(date +%s) - t0)) s: $OUT"
check "without waiting out its timeout" lacks "timed out"
# r's lnetd alone (its bus goes on), as `systemctl restart lnetd` would
DBUS_SYSTEM_BUS_ADDRESS="unix:path=$T/r.bus" ip netns exec "${NS}r" "$LNETD" --engine=userspace \
	--state-dir="$T/r.state" 2>>"$T/lnetd.log" &
NODE_PIDS="$NODE_PIDS $!"
check "r starts again, as it was" wait_until "$TEST_WAIT" quiet node_ctl r status
check "a's route is up again" until_state a tcp1 up
check "b's too" until_state b tcp up
check "logged" grep -q "route to tcp1 via 10.81.0.2@tcp: up" "$T/lnetd.log"
on a ping --timeout 60 10.81.1.2@tcp1
check "a pings b through r again" has "primary nid: 10.81.1.2@tcp1"

# Router credits: what r holds for a, by r's NI on tcp1's peer_buffer_credits.
on r peer add --prim_nid 10.81.0.1@tcp
check "r: a as a peer, to show" test "$RC" = 0
on b selftest service on
on a selftest run --nid 10.81.1.2@tcp1 --mode write --size 65536 --count 64 --concurrency 16
check "a writes to b through r" has "failed: 0"
on r peer show -v --nid 10.81.0.1@tcp
check "r's peer show -v prints a's router credits" has "available_rtr_credits:"
# rtr_credits X: what r's peer show -v says of a's router credits, "available min"
rtr_credits() {
	node_ctl r peer show -v --nid 10.81.0.1@tcp 2>/dev/null | awk '
		$1 == "available_rtr_credits:" { a = $2 } $1 == "min_rtr_credits:" { m = $2 }
		END { print a, m }'
}
all_back() { [ "$(rtr_credits | cut -d' ' -f1)" = 4 ]; }
# (r gives a credit back once it has passed the message on: a's last ACK may
# come before r has done so for the last message)
check "all given back" wait_until "$TEST_WAIT" all_back
avail=$(rtr_credits | cut -d' ' -f1)
min=$(rtr_credits | cut -d' ' -f2)
diag "a's router credits on r: available $avail, min $min"
check "the lowest is recorded: a had more in flight than r lent it" test "$min" -lt 4

OUT=$(busctl --address="unix:path=$T/r.bus" --timeout="$TEST_WAIT" call org.lnetd1 /org/lnetd1 \
	org.lnetd1.Manager RouterCredits s "10.81.0.1@tcp;x" 2>&1)
check "RouterCredits refuses a bad NID, naming it" has "10.81.0.1@tcp;x"
OUT=$(busctl --address="unix:path=$T/r.bus" --timeout="$TEST_WAIT" call org.lnetd1 /org/lnetd1 \
	org.lnetd1.Manager RouterCredits s 10.81.0.77@tcp 2>&1)
check "and a NID that is no peer NI's" has "is no peer NI"
OUT=$(DBUS_SYSTEM_BUS_ADDRESS="unix:path=$T/r.bus" setpriv --reuid=65534 --regid=65534 \
	--clear-groups "$LNETCTL" peer show -v --nid 10.81.0.1@tcp 2>&1)
check "anyone may read them" has "available_rtr_credits: 4"

# drop_asym_route on b: its route to tcp through another gateway.
on b set drop_asym_route 1
check "b drops asymmetric routes" test "$RC" = 0
on a ping --timeout 60 10.81.1.2@tcp1
check "while b's route back goes through r, a's pings are taken" test "$RC" = 0
on b route del --net tcp --gateway 10.81.1.1@tcp1
on b route add --net tcp --gateway 10.81.1.9@tcp1
check "b: tcp through another gateway" test "$RC" = 0
on a ping --timeout 2 10.81.1.2@tcp1
check "a's ping through r is dropped" test "$RC" != 0
# (a gave up after 2 s: b counts the drop when the ping reaches it)
check "and counted" wait_until "$TEST_WAIT" count_at_least b asym_route_drops 1
on b set drop_asym_route 0
on a ping --timeout 60 10.81.1.2@tcp1
check "with drop_asym_route 0 it is taken (answered the way it came)" test "$RC" = 0

# Bad values are refused, naming the option.
"$LNETD" --router-check-interval=x --state-dir="$T/none" >"$T/bad.out" 2>&1
check "lnetd refuses a bad --router-check-interval" test $? = 2
check "naming it" grep -q -- "--router-check-interval" "$T/bad.out"
"$LNETD" --router-ping-timeout=0 --state-dir="$T/none" >"$T/bad.out" 2>&1
check "and a zero --router-ping-timeout" test $? = 2
"$LNETD" --avoid-asym-router-failure=yes --state-dir="$T/none" >"$T/bad.out" 2>&1
check "and --avoid-asym-router-failure other than 0 or 1" test $? = 2
check "naming it" grep -q -- "--avoid-asym-router-failure: 'yes'" "$T/bad.out"
finish
