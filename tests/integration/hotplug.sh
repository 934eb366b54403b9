#!/bin/sh
# NIs follow their interfaces: lnetd runs in a network namespace of the
# test's own, an NI is configured on a veth that does not exist yet, and is
# pending until the veth and its IPv4 address appear, applied then, and
# pending again when the address or the interface goes; nothing configured
# is lost, across a restart too.  TAP.
set -u
if [ -z "${LNETD_IN_NETNS:-}" ]; then
	# Start again inside a new network namespace (the bus socket is a
	# file, reachable from there).
	if [ "$(id -u)" != 0 ] || ! unshare -n true 2>/dev/null; then
		echo "1..0 # SKIP needs root and network namespaces"
		exit 0
	fi
	LNETD_IN_NETNS=1 exec unshare -n sh "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
LNETD=${LNETD:-lnetd/lnetd}
# ListNIs gives every NI tunable (engine/tunables.h) in each row's a{sv}: the
# rows' sizes below count them from there, not by hand.
NTUN=$(grep -c '^[[:space:]]*X([A-Z_]*, [a-z_]*, "' "${TOP_SRCDIR:-$(dirname "$0")/../..}/engine/tunables.h")
# The keys every ListNIs row has: the tunables and cpts_in_effect.
NKEYS=$((NTUN + 1))
# And those of a row with NIs: nid, up, health, nis and dev_cpts.
NNI=5

# wait_for TEXT: until ListNIs shows TEXT (TEST_WAIT at most: lnetd takes
# rtnetlink's events in its own time).
# shellcheck disable=SC2317 # reached: shellcheck does not follow the exec above
shows() {
	bcall ListNIs
	case $OUT in *"$1"*) return 0 ;; esac
	return 1
}
# shellcheck disable=SC2317
wait_for() {
	wait_until "$TEST_WAIT" shows "$1" && return 0
	diag "ListNIs never showed: $1" "last: $OUT"
	return 1
}

start_bus
check "lnetd starts in a network namespace of its own" start_lnetd

bcall AddNI 'ssa{sv}' tcp lnv0 1 credits u 64
check "an NI on a missing interface is accepted" has 't 1'
check "and pending, saying why" wait_for "\"tcp\" \"lnv0\" \"pending\" $((1 + NKEYS)) \"reason\" s \"interface lnv0 does not exist\""

ip link add lnv0 type veth peer name lnv1
check "the interface appears: still pending, for want of an address" \
	wait_for "\"pending\" $((1 + NKEYS)) \"reason\" s \"interface lnv0 has no IPv4 address\""

ip addr add 10.77.0.1/24 dev lnv0
ip link set lnv1 up
ip link set lnv0 up
check "the address appears: applied, with its NID, link up" \
	wait_for "\"tcp\" \"lnv0\" \"applied\" $((NNI + NKEYS)) \"nid\" s \"10.77.0.1@tcp\" \"up\" b true"

ip link set lnv1 down
check "the peer end goes down: the NI stays, its link down" wait_for '"up" b false'
ip link set lnv1 up

ip addr del 10.77.0.1/24 dev lnv0
ip addr add 10.77.0.2/24 dev lnv0
check "a new address gives a new NID" wait_for '"nid" s "10.77.0.2@tcp"'

ip addr del 10.77.0.2/24 dev lnv0
check "the address goes: pending again" wait_for "\"pending\" $((1 + NKEYS)) \"reason\" s \"interface lnv0 has no IPv4 address\""

ip link del lnv0
check "the interface goes: pending, and still configured" \
	wait_for "\"pending\" $((1 + NKEYS)) \"reason\" s \"interface lnv0 does not exist\""
bprop Generation && check "hardware coming and going is not a configuration change" has 't 1'

bcall AddNI 'ssa{sv}' tcp lnv0 0
check "the same NI twice is refused" has "tcp on lnv0 is configured already"
bcall AddNI 'ssa{sv}' lo lnv0 0
check "the loopback NI is refused" has "the loopback NI always exists"
bcall AddNI 'ssa{sv}' tcp "an-interface-name-far-too-long" 0
check "a bad interface name is refused, named" has "'an-interface-name-far-too-long' is not an interface name"
bcall AddNI 'ssa{sv}' tcpx lnv0 0
check "a bad net is refused with the grammar's sentence" has "network number 'x' is not a number"

ip link add lnv2 type veth peer name lnv3
ip addr add 10.78.0.1/24 dev lnv2
stop_lnetd
check "lnetd stops" test "$LNETD_RC" = 0
check "and starts again" start_lnetd
bcall AddNI 'ssa{sv}' o2ib lnv2 0
check "an NI whose interface is ready is applied at once" has 't 2'
bcall ListNIs
check "both NIs are configured after the restart, each as its interface allows" \
	has '"tcp" "lnv0" "pending"'
has '"o2ib" "lnv2" "applied"' >/dev/null || not_ok "the ready one applied"

bcall AddPeer 'sasa{sv}' 10.78.0.1@o2ib 0 1 multi_rail b true
check "a peer may not take a local NI's NID" has "is a local NI, not a peer NID"

bcall AddPeer 'sasa{sv}' 10.78.0.9@o2ib 1 10.99.0.9@tcp 1 multi_rail b true
bcall Explain ss 10.78.0.9@o2ib ""
check "with its link down, no NI is selected, and Explain says so" has "no local NI is up"
ip link set lnv3 up
ip link set lnv2 up
wait_for "\"o2ib\" \"lnv2\" \"applied\" $((NNI + NKEYS)) \"nid\" s \"10.78.0.1@o2ib\" \"up\" b true" >/dev/null
bcall Explain ss 10.78.0.9@o2ib ""
check "Explain picks the NI that came with its interface, and the peer's NID on that net" \
	has 'sssa(sssa{sv}) "10.78.0.1@o2ib" "10.78.0.9@o2ib" ""'
has '"local NI" "10.78.0.1@o2ib" "chosen"' >/dev/null || not_ok "and says the local NI was chosen"
bcall Explain ss 10.78.0.200@o2ib ""
check "Explain for a NID no peer has says so" has "10.78.0.200@o2ib: no peer has this NID"
bcall AddPeer 'sasa{sv}' 10.99.0.50@tcp 0 1 multi_rail b true
bcall Explain ss 10.99.0.50@tcp ""
check "Explain for a peer nothing reaches says why" has "no usable route reaches it"

bcall DeleteNI ss tcp lnv0
check "DeleteNI forgets a pending NI" has 't 5'
bcall DeleteNI ss tcp lnv0
check "and it is gone" has "no NI of tcp is configured on lnv0"

# ip2nets: a pattern gets an NI on every interface whose address matches it,
# including interfaces that come later.
bcall Apply 'a(ssa{sv})b' 1 add net 2 net s tcp5 pattern s '10.80.0.*' false
check "an ip2nets pattern with no interface yet is accepted, and Apply notes it pending" \
	has 'tas 6 2 "+ni tcp5 10.80.0.*" "!ni tcp5 10.80.0.*: no interface has an address matching 10.80.0.*"'
check "and pending, saying why" \
	wait_for "\"tcp5\" \"\" \"pending\" $((2 + NKEYS)) \"reason\" s \"no interface has an address matching 10.80.0.*\""
ip link add lnv4 type veth peer name lnv5
ip addr add 10.80.0.1/24 dev lnv4
check "an interface with a matching address gets an NI" \
	wait_for "\"tcp5\" \"\" \"applied\" $((NNI + 1 + NKEYS)) \"nid\" s \"10.80.0.1@tcp5\""
ip link add lnv6 type veth peer name lnv7
ip addr add 10.81.0.1/24 dev lnv6
ip addr add 10.80.0.2/24 dev lnv7
# (their links are down, veths whose peers are not up: health 0 until they come up)
check "a second interface added later is picked up too" \
	wait_for '"nis" a(ssbu) 2 "10.80.0.1@tcp5" "lnv4" false 0 "10.80.0.2@tcp5" "lnv7" false 0'
bcall ListNIs
has '10.81.0.1@tcp5' >/dev/null && not_ok "an address the pattern does not match gets no NI"
bcall AddNI 'ssa{sv}' tcp6 lnv6 1 pattern s '10.80.*.*'
check "an interface named with a pattern is accepted" has 't 7'
check "but pending when its address disagrees with the pattern" \
	wait_for '"the address 10.81.0.1 of lnv6 does not match the pattern 10.80.*.*"'
bcall AddNI 'ssa{sv}' tcp7 lnv7 1 pattern s '10.80.0.[1-9]@tcp'
check "a pattern with a net in it is refused" has "is not an address pattern"
bcall AddNI 'ssa{sv}' tcp7 lnv7 1 cpts s '[0,x]'
check "a bad CPT list is refused, named" has "'[0,x]' is not a CPT list"
ip addr del 10.80.0.2/24 dev lnv7
check "an address that goes takes its NI with it" \
	wait_for '"nis" a(ssbu) 1 "10.80.0.1@tcp5" "lnv4"'
bcall Apply 'a(ssa{sv})b' 2 add net 3 net s tcp9 interface s lnv4 pattern s '10.79.0.* 10.80.0.*' \
	add net 3 net s tcp9 interface s lnv7 pattern s '10.79.0.* 10.80.0.*' false
check "interfaces may share an ip2nets rule of several patterns (one pending, noted)" \
	has 'tas 8 3 "+ni tcp9 lnv4 10.79.0.* 10.80.0.*" "+ni tcp9 lnv7 10.79.0.* 10.80.0.*" "!ni tcp9 lnv7 10.79.0.* 10.80.0.*: interface lnv7 has no IPv4 address"'
check "and an address matching any of the patterns is used" \
	wait_for "\"tcp9\" \"lnv4\" \"applied\" $((NNI + 1 + NKEYS)) \"nid\" s \"10.80.0.1@tcp9\""
bcall DeleteNI ss tcp5 '10.80.0.*'
check "DeleteNI takes a pattern" has 't 9'
bcall ListNIs
has '10.80.0.1@tcp5' >/dev/null && not_ok "and its NIs leave the engine"
bcall Status
check "Status lists the pending NI with its reason" has '"net" "tcp6 on lnv6" "the address 10.81.0.1 of lnv6'
finish
