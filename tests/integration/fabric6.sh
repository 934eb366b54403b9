#!/bin/sh
# IPv6 NIDs on the data path between userspace-engine nodes: two lnetd
# nodes in network namespaces of the test's own, joined by two veth rails
# that carry only IPv6 addresses (nodad: usable at once), so each NI's NID
# is large (2001:db8:77:R::X@tcp) and every connection speaks socklnd
# version 4.  They ping each other, discover each other's NIDs, spread
# traffic over both rails, count it per NI and peer NI, and a peer sending
# a request for a large NID the node does not have is cut off and counted
# while the other keeps working.  Pings that must be answered wait up to
# 60 s; what b does in its own time is waited for (TEST_WAIT, lib.sh).  TAP.
set -u
NS_PREFIX=lnf6
. "$(dirname "$0")/nodes-tap.sh"
# rail6 R: veth aR in a, bR in b, 2001:db8:77:R::1/64 and ::2/64, no IPv4
rail6() {
	ip link add "a$1" netns "${NS}a" type veth peer name "b$1" netns "${NS}b" &&
		ip -n "${NS}a" addr add "2001:db8:77:$1::1/64" dev "a$1" nodad &&
		ip -n "${NS}b" addr add "2001:db8:77:$1::2/64" dev "b$1" nodad &&
		ip -n "${NS}a" link set "a$1" up && ip -n "${NS}b" link set "b$1" up
}

node_ns a b || {
	echo "1..0 # SKIP cannot make network namespaces"
	exit 0
}
if ! rail6 0 || ! rail6 1; then
	echo "1..0 # SKIP no IPv6 in network namespaces"
	exit 0
fi
check "node a starts" node_start a
check "node b starts" node_start b
on a net add --net tcp --if a0,a1
check "a: two NIs on tcp" test "$RC" = 0
on b net add --net tcp --if b0,b1
check "b: two NIs on tcp" test "$RC" = 0
check "a's NIs are up" node_up a
check "b's NIs are up" node_up b
on a net show
check "a's NIs have IPv6 NIDs" has "nid: 2001:db8:77::1@tcp"
check "one on each rail" has "nid: 2001:db8:77:1::1@tcp"

on a ping --timeout 60 2001:db8:77::2@tcp
check "a pings b over IPv6" test "$RC" = 0
check "the reply names b's primary NID" has "primary nid: 2001:db8:77::2@tcp"
check "b is Multi-Rail" has "Multi-Rail: True"
check "and lists both of b's IPv6 NIDs" has "nid: 2001:db8:77:1::2@tcp"
on b ping --timeout 60 2001:db8:77:1::1@tcp
check "b pings a's second NID" has "nid: 2001:db8:77::1@tcp"
check "b listens on its IPv6 addresses, port 988" \
	sh -c "ip netns exec ${NS}b ss -ltn | grep -q '\[2001:db8:77::2\]:988'"

# Discovery (on by default) learns b's IPv6 NIDs: peer show lists both.
on a discover 2001:db8:77::2@tcp
check "a discovers b" test "$RC" = 0
on a peer show --nid 2001:db8:77::2@tcp
check "peer show names b's primary IPv6 NID" has "primary nid: 2001:db8:77::2@tcp"
check "and its second" has "nid: 2001:db8:77:1::2@tcp"

# Traffic over both rails.
on b selftest service on
check "b serves the test portal" test "$RC" = 0
on a selftest run --nid 2001:db8:77::2@tcp --mode write --size 1048576 --count 32 --concurrency 8
check "a writes 32 MiB to b over IPv6" has "failed: 0"
on a selftest run --nid 2001:db8:77::2@tcp --mode read --size 65536 --count 32 --concurrency 4
check "a reads from b over IPv6" has "failed: 0"
count() { printf '%s\n' "$OUT" | awk -v k="$1:" '/statistics:/ { s = 1; next }
	s && $1 == k { print $2 } /_stats:|health stats:/ { s = 0 }'; }
on a net show -v
check "both of a's IPv6 NIs sent" test "$(count send_count | awk '$1 > 0' | wc -l)" = 2
on a peer show -v --nid 2001:db8:77::2@tcp
check "a sent to both of b's IPv6 NIDs" test "$(count send_count | awk '$1 > 0' | wc -l)" = 2
check "and received from both" test "$(count recv_count | awk '$1 > 0' | wc -l)" = 2
on a stats show
check "stats show counts it" test "$(printf '%s\n' "$OUT" | awk '$1 == "send_count:" {print $2}')" -ge 64

# A hostile peer: an acceptor request (version 2) for a large NID b does not have.
ip netns exec "${NS}a" python3 - <<'PY' >/dev/null 2>&1
import socket, struct
s = socket.create_connection(("2001:db8:77::2", 988), timeout=60)
nid = bytes([12, 2, 0, 0]) + socket.inet_pton(socket.AF_INET6, "2001:db8:77::99")
s.sendall(struct.pack("<II", 0xacce7100, 2) + nid)
s.recv(16)
PY
# (b reads it in its own time)
wrong_nid() {
	busctl --address="unix:path=$T/b.bus" --timeout="$TEST_WAIT" call org.lnetd1 /org/lnetd1 \
		org.lnetd1.Manager Counters 2>&1 | grep -q '"fault_wrong_nid" 1 '
}
check "b counted the request for a NID it does not have" wait_until "$TEST_WAIT" wrong_nid
on a ping --timeout 60 2001:db8:77::2@tcp
check "and still answers a" has "primary nid: 2001:db8:77::2@tcp"
finish
