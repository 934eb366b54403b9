#!/bin/sh
# What a router knows of the nodes on either side, between userspace-engine
# nodes in network namespaces of the test's own: a (NIs on tcp and tcp3), the
# router r (tcp, tcp3, tcp4, and two NIs on tcp1), b (two NIs on tcp1), and
# c (on tcp4, discovery off).  Every NI of a net reaches every peer on it, as
# LNet takes for granted: b's two rails are r's two rails.  Upstream's sanity-lnet.sh 236-238 in spirit:
#   236 a sets its tcp NI's health to 0: its status goes down, a pushes its
#       ping info, and r's `peer show` says that NI is down, the other up;
#       health back above 0, r hears it is up again;
#   237 MR forwarding: r holds b's first NID at health 0; a (Multi-Rail, as
#       r discovered) pings that NID through r, and r passes every ping to
#       b's other NID instead;
#   238 c, discovery off, is not Multi-Rail to r, so r passes c's pings to
#       the NID c chose, health 0 or not.
# Waits are for the condition asserted, bounded by TEST_WAIT (lib.sh); pings
# wait up to 60 s for their answer; timing is not asserted.  TAP.
set -u
NS_PREFIX=lnm
. "$(dirname "$0")/nodes-tap.sh"
A1=10.82.0.1@tcp
A2=10.82.3.1@tcp3
B1=10.82.1.2@tcp1
B2=10.82.2.2@tcp1
C1=10.82.4.1@tcp4
# state X NID: the state node X's `peer show` prints for peer NI NID
state() {
	node_ctl "$1" peer show --nid "$2" 2>/dev/null | awk -v nid="$2" '
		$1 == "-" && $2 == "nid:" { want = ($3 == nid); next }
		want && $1 == "state:" { print $2; exit }'
}
# until_state X NID STATE: wait until node X says peer NI NID is STATE
state_is() { [ "$(state "$1" "$2")" = "$3" ]; }
until_state() {
	wait_until "$TEST_WAIT" state_is "$@" && return 0
	diag "$1 says $2 is $(state "$1" "$2"), not $3"
	return 1
}
# sends X NID: the send_count node X's `peer show -v` prints for peer NI NID
sends() {
	node_ctl "$1" peer show -v --nid "$2" 2>/dev/null | awk -v nid="$2" '
		$1 == "-" && $2 == "nid:" { want = ($3 == nid); next }
		want && $1 == "send_count:" { print $2; exit }'
}
# pings X SRC DST N: N pings from node X's SRC to DST; how many failed, in $FAILED
pings() {
	FAILED=0
	for _ in $(seq "$4"); do
		node_ctl "$1" ping --timeout 60 --source "$2" "$3" >"$T/ping.out" 2>&1 && continue
		FAILED=$((FAILED + 1))
		[ "$FAILED" = 1 ] && diag "the first failure, ping $_: $(cat "$T/ping.out")"
	done
}
# via_r X SRC: 20 pings from node X's SRC to b's first NID through r; what r
# sent to each of b's NIDs meanwhile in $TO1 and $TO2
via_r() {
	_p1=$(sends r $B1)
	_p2=$(sends r $B2)
	pings "$1" "$2" $B1 20
	TO1=$(($(sends r $B1) - _p1))
	TO2=$(($(sends r $B2) - _p2))
	diag "r's sends meanwhile: $TO1 to $B1, $TO2 to $B2"
}

node_ns a r b c || {
	echo "1..0 # SKIP cannot make network namespaces"
	exit 0
}
node_link a a0 r r0 10.82.0 || exit 1
node_link r r1 b b0 10.82.1 || exit 1
node_link r r2 b b1 10.82.2 || exit 1
node_link a a3 r r3 10.82.3 || exit 1
node_link c c0 r r4 10.82.4 || exit 1
# Only the test's own traffic and discovery: no router checks in the way.
for x in a b c; do
	check "node $x starts" node_start $x --router-check-interval=3600
done
check "node r starts" node_start r
on a net add --net tcp --if a0
on a net add --net tcp3 --if a3
check "a: NIs on tcp and tcp3" test "$RC" = 0
on r net add --net tcp --if r0
on r net add --net tcp3 --if r3
on r net add --net tcp4 --if r4
on r net add --net tcp1 --if r1,r2
check "r: NIs on tcp, tcp3, tcp4 and tcp1" test "$RC" = 0
on b net add --net tcp1 --if b0,b1
check "b: two NIs on tcp1" test "$RC" = 0
on c net add --net tcp4 --if c0
on c set discovery 0
check "c: an NI on tcp4, discovery off" test "$RC" = 0
on r set routing 1
check "r routes" test "$RC" = 0
for x in a r b c; do check "$x's NIs are up" node_up $x; done
on a route add --net tcp1 --gateway 10.82.0.2@tcp
on b route add --net tcp --gateway 10.82.1.1@tcp1
on b route add --net tcp3 --gateway 10.82.1.1@tcp1
on b route add --net tcp4 --gateway 10.82.1.1@tcp1
on c route add --net tcp1 --gateway 10.82.4.2@tcp4
check "routes through r" test "$RC" = 0
on a ping --timeout 60 $B1
check "a pings b through r" has "primary nid:"
on a discover 10.82.0.2@tcp
check "a discovers r" test "$RC" = 0
on r discover $A1
check "r discovers a" has "$A2"

# 236: a's NI state reaches r.
check "r watches a's NIs (it routes): tcp up" until_state r $A1 up
check "and tcp3 up" until_state r $A2 up
# The NI's recovery pings (to itself) would bring its health back: drop them.
on a fault drop add --source $A1 --dest $A1 --rate 1
check "a drops its tcp NI's pings of itself" test "$RC" = 0
on a net set --nid $A1 --health 0
on a net show --net tcp
check "a's tcp NI at health 0 is down" has "status: down"
check "r hears it: a's tcp NI down" until_state r $A1 down
check "a's tcp3 NI still up" test "$(state r $A2)" = up
on a fault drop del --all
on a net set --nid $A1 --health 900
on a net show --net tcp
check "health 900: up again" has "status: up"
check "r hears that too" until_state r $A1 up
check "and tcp3 stays up" test "$(state r $A2)" = up
on c peer add --prim_nid 10.82.4.77@tcp4
on c peer show --nid 10.82.4.77@tcp4
check "c does not watch its peers (not gateways; c does not route)" has "state: NA"

# 237: MR forwarding.
on r set health_sensitivity 0
on r set recovery_interval 3600
on r set max_recovery_ping_interval 3600
check "r: no health change by traffic, no recovery ping for an hour" test "$RC" = 0
on r discover $B1
check "r discovers b, two NIDs" has "$B2"
on r peer set --nid $B1 --health 0
check "r: b's first NID at health 0" test "$RC" = 0
via_r a $A1
check "a pings b's first NID 20 times through r" test "$FAILED" = 0
check "r passed them all to b's other NID (a is Multi-Rail)" test "$TO2" -ge 20

# 238: no MR forwarding for a sender that is not Multi-Rail.
on r discover $C1
on r peer show --nid $C1
check "r: c (discovery off) is not Multi-Rail" has "Multi-Rail: False"
via_r c $C1
check "c pings b's first NID 20 times through r" test "$FAILED" = 0
check "r passed them to the NID c chose" test "$TO1" -ge 20
check "none to b's other NID" test "$TO2" -lt 20
on r peer show -v --nid $B1
check "b's first NID still at health 0 (the case held)" has "health value: 0"
finish
