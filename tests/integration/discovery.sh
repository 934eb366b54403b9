#!/bin/sh
# Dynamic peer discovery between userspace-engine nodes: two lnetd nodes,
# each in a network namespace of the test's own with its own bus, joined by
# two veth rails, no peers configured.  They discover each other, each
# lists both NIDs of the other as discovered, traffic uses both rails both
# ways, nothing discovered reaches the store, configuring a discovered peer
# makes it configured (and stored), and a third rail added to one node is
# pushed to the other.  Waits are for the condition asserted, bounded by
# TEST_WAIT (lib.sh).  TAP.
set -u
NS_PREFIX=lnd
. "$(dirname "$0")/nodes-tap.sh"
MON=
trap '[ -z "$MON" ] || kill "$MON" 2>/dev/null; nodes_cleanup; cleanup' EXIT
# rail_mb NID KEY: a selftest's MB/s of one rail
rail_mb() { printf '%s\n' "$OUT" | awk -v nid="$1" -v k="$2" '
	$0 ~ "nid: " nid { want = 1; next }
	want && index($0, k ":") { print $NF; exit }'; }
positive() { awk -v v="$1" 'BEGIN { exit !(v > 0) }'; }
# peer_of X NID: the "peer show --nid NID" of node X, in $OUT
peer_of() { on "$1" peer show --nid "$2"; }

node_ns a b || {
	echo "1..0 # SKIP cannot make network namespaces"
	exit 0
}
node_rails a b 2 10.78 || exit 1
check "node a starts" node_start a
check "node b starts" node_start b
on a net add --net tcp --if a0,a1
check "a: two NIs on tcp" test "$RC" = 0
on b net add --net tcp --if b0,b1
check "b: two NIs on tcp" test "$RC" = 0
check "a's NIs are up" node_up a
check "b's NIs are up" node_up b
on a peer show
check "a has no peer configured" test "$(printf '%s\n' "$OUT" | grep -c 'primary nid')" = 0

# a's bus, watched: discovery tells it (PeerDiscovered) when gdbus is there
if command -v gdbus >/dev/null; then
	gdbus monitor --address "unix:path=$T/a.bus" --dest org.lnetd1 >"$T/monitor" 2>&1 &
	MON=$!
	# (subscribed once it has seen the name's owner: no signal after this is missed)
	check "a watcher of a's bus is listening" \
		wait_until "$TEST_WAIT" grep -q "is owned by" "$T/monitor"
fi
# a discovers b from b's second NID: one peer, b's first NID its primary, both NIDs.
on a discover 10.78.1.2@tcp
check "a discovers b" test "$RC" = 0
diag "$OUT"
check "the output is upstream's discover:" has "discover:"
check "b's primary NID is its first" has "primary nid: 10.78.0.2@tcp"
check "b is Multi-Rail" has "Multi-Rail: True"
check "with b's other NID" has "nid: 10.78.1.2@tcp"
peer_of a 10.78.1.2@tcp
check "a's peer show: b with both NIDs" sh -c 'printf "%s\n" "$1" | grep -q "nid: 10.78.0.2@tcp" &&
	printf "%s\n" "$1" | grep -q "nid: 10.78.1.2@tcp"' - "$OUT"
check "marked as discovered, peer and NIDs" test "$(printf '%s\n' "$OUT" | grep -c 'discovered: True')" = 3
if [ -n "$MON" ]; then
	check "a's bus heard PeerDiscovered, with both of b's NIDs" wait_until "$TEST_WAIT" \
		sh -c "grep PeerDiscovered '$T/monitor' |
		grep -F \"'10.78.0.2@tcp'\" | grep -qF \"'10.78.1.2@tcp'\""
	kill "$MON" 2>/dev/null
	MON=
fi
diag "$OUT"
# the push: b learnt a's NIDs without sending anything of its own
peer_of b 10.78.1.1@tcp
check "b's peer show: a with both NIDs (a pushed them)" sh -c 'printf "%s\n" "$1" |
	grep -q "primary nid: 10.78.0.1@tcp" && printf "%s\n" "$1" | grep -q "nid: 10.78.1.1@tcp"' - "$OUT"
on a discover 10.78.0.2@tcp
check "discover again: nothing to do, same answer" has "nid: 10.78.1.2@tcp"
on a discover --force 10.78.0.2@tcp
check "discover --force runs again" test "$RC" = 0
on a stats show
check "a's counters: discovery rounds done" test "$(printf '%s\n' "$OUT" | awk '/disc_done:/ {print $2}')" -ge 2
check "no round failed" has "disc_failed: 0"

# Traffic over both rails, both ways, to peers nobody configured.
on b selftest service on
on a selftest service on
on a selftest run --nid 10.78.0.2@tcp --mode write --size 262144 --count 64 --concurrency 8
check "a writes to b" has "failed: 0"
check "a: rail 0 carried the writes" positive "$(rail_mb 10.78.0.1@tcp "sent MB/s")"
check "a: rail 1 carried the writes" positive "$(rail_mb 10.78.1.1@tcp "sent MB/s")"
on b selftest run --nid 10.78.1.1@tcp --mode write --size 262144 --count 64 --concurrency 8
check "b writes to a" has "failed: 0"
check "b: rail 0 carried the writes" positive "$(rail_mb 10.78.0.2@tcp "sent MB/s")"
check "b: rail 1 carried the writes" positive "$(rail_mb 10.78.1.2@tcp "sent MB/s")"
on b stats show
check "b never waited for discovery (a's push made a known)" has "disc_msgs_waited: 0"

# A first message to a NID nobody configured discovers it: a third node's worth, c.
node_ns c || exit 1
ip link add bc0 netns "${NS}b" type veth peer name cb0 netns "${NS}c" &&
	ip -n "${NS}b" addr add 10.79.0.1/24 dev bc0 && ip -n "${NS}c" addr add 10.79.0.2/24 dev cb0 &&
	ip -n "${NS}b" link set bc0 up && ip -n "${NS}c" link set cb0 up || exit 1
check "node c starts" node_start c
on c net add --net tcp1 --if cb0
on b net add --net tcp1 --if bc0
check "b: an NI towards c, on a net of its own" test "$RC" = 0
check "c's NI is up" node_up c
on c selftest service on
check "b's NIs are up" node_up b
on b selftest run --nid 10.79.0.2@tcp1 --mode write --size 4096 --count 4
check "b's first message to c waits for discovery, then goes" has "failed: 0"
peer_of b 10.79.0.2@tcp1
check "and b has c as a discovered peer" has "discovered: True"

# Runtime only: nothing discovered is in the store.
on a export
check "a's export has no discovered peer" sh -c '! printf "%s\n" "$1" | grep -q "10.78.0.2"' - "$OUT"
on a history
check "a's history has no peer change" sh -c '! printf "%s\n" "$1" | grep -q "peer"' - "$OUT"

# Configuring a discovered peer makes it configured, and stored; its other NID stays discovered.
# (b pushed its NI towards c to a when it came: a push a takes in its own time)
a_knows_bc() { node_ctl a peer show --nid 10.78.0.2@tcp 2>/dev/null | grep -q "nid: 10.79.0.1@tcp1"; }
check "a learnt b's NI towards c from b's push" wait_until "$TEST_WAIT" a_knows_bc
on a peer add --prim_nid 10.78.0.2@tcp
check "a configures b by its primary NID" test "$RC" = 0
peer_of a 10.78.0.2@tcp
# (b's NI towards c came to a in b's push, discovered too)
check "b is a configured peer now; its primary NID configured, the others discovered" \
	test "$(printf '%s\n' "$OUT" | grep -c 'discovered: True')" = \
	"$(($(printf '%s\n' "$OUT" | grep -c 'nid: ') - 2))"
check "including the NI b gained towards c (b pushed it)" has "nid: 10.79.0.1@tcp1"
on a export
check "and in a's export" has "10.78.0.2@tcp"
on a discover --force 10.78.0.2@tcp
peer_of a 10.78.0.2@tcp
check "discovery keeps the configured peer and its NIDs" has "nid: 10.78.1.2@tcp"

# Hotplug: a third rail on a is pushed to b.
ip link add a2 netns "${NS}a" type veth peer name b2 netns "${NS}b" &&
	ip -n "${NS}a" addr add 10.78.2.1/24 dev a2 && ip -n "${NS}b" addr add 10.78.2.2/24 dev b2 &&
	ip -n "${NS}a" link set a2 up && ip -n "${NS}b" link set b2 up || exit 1
on a net add --net tcp --if a2
check "a: a third NI" test "$RC" = 0
check "a's NIs are up" node_up a
b_knows_a2() { node_ctl b peer show --nid 10.78.0.1@tcp 2>/dev/null | grep -q "nid: 10.78.2.1@tcp"; }
check "b learnt a's third NID from a's push" wait_until "$TEST_WAIT" b_knows_a2

# A change to b's first NI (a delete and an add in the engine) leaves it first:
# b's ping info still gives 10.78.0.2@tcp first, the primary NID a peer takes.
on b net set --nid 10.78.0.2@tcp --conns-per-peer 2
check "b: its first NI's tunable changed" test "$RC" = 0
on a ping --timeout 60 10.78.1.2@tcp
diag "$OUT"
check "b's ping info still lists its first NI first" has "primary nid: 10.78.0.2@tcp"

# Off: no discovery; asked for, it says why.
on a set discovery 0
on a discover 10.78.0.2@tcp
check "discover with discovery 0 fails" test "$RC" != 0
check "saying discovery is off" has "discovery is off"
on a set discovery 2
check "discovery 2 (verify only) is accepted" test "$RC" = 0
on a set discovery 3
check "discovery 3 is refused" test "$RC" != 0
finish
