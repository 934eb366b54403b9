#!/bin/sh
# The data path between userspace-engine nodes: two lnetd nodes, each in a
# network namespace of the test's own with its own bus, joined by two veth
# rails.  They ping each other over real TCP, messages spread over both
# rails, counters count them, and a peer sending garbage is cut off and
# counted while the other keeps working.  A third node, c, on a net of its
# own (tcp1) behind b, is reached through b once b routes.  Pings that must
# be answered wait up to 60 s, and what another node does in its own time is
# waited for (TEST_WAIT, lib.sh), never slept on.  TAP.
set -u
NS_PREFIX=lnf
. "$(dirname "$0")/nodes-tap.sh"

node_ns a b c || {
	echo "1..0 # SKIP cannot make network namespaces"
	exit 0
}
node_rails a b 2 10.77 || exit 1
node_link b bc c cb 10.78.0 || exit 1
check "node a starts" node_start a
check "node b starts" node_start b
on a net add --net tcp --if a0,a1
check "a: two NIs on tcp" test "$RC" = 0
on b net add --net tcp --if b0,b1
check "b: two NIs on tcp" test "$RC" = 0

check "a's NIs are up" node_up a
check "b's NIs are up" node_up b

on a ping --timeout 60 10.77.0.2@tcp
check "a pings b's first NID" test "$RC" = 0
check "the reply names b's primary NID" has "primary nid: 10.77.0.2@tcp"
check "b is Multi-Rail" has "Multi-Rail: True"
check "and lists both of b's NIDs" has "nid: 10.77.1.2@tcp"
on b ping --timeout 60 10.77.1.1@tcp
check "b pings a's second NID" has "nid: 10.77.0.1@tcp"


# Both rails: b as a Multi-Rail peer of a, then pings spread over a's NIs.
on a peer add --prim_nid 10.77.0.2@tcp --nid 10.77.1.2@tcp
check "a: b as a peer with both NIDs" test "$RC" = 0
i=0
while [ $i -lt 20 ]; do
	on a ping --timeout 60 10.77.0.2@tcp
	[ "$RC" = 0 ] || break
	i=$((i + 1))
done
check "20 pings in a row answered" test $i = 20
OUT=$(busctl --address="unix:path=$T/a.bus" --timeout="$TEST_WAIT" call org.lnetd1 /org/lnetd1 \
	org.lnetd1.Manager Counters 2>&1)
sent() { # sent NID: the GETs a sent from local NI NID
	printf '%s' "$OUT" | tr ' ' '\n' | awk -v nid="\"$1\"" '
		$0 == nid { getline; if ($0 == "true") want = 1; next }
		want && $0 == "\"sent_get\"" { getline; print; exit }'
}
s0=$(sent 10.77.0.1@tcp)
s1=$(sent 10.77.1.1@tcp)
diag "GETs sent: rail 0 ${s0:-none}, rail 1 ${s1:-none}"
check "rail 0 carried pings" test "${s0:-0}" -ge 5
check "rail 1 carried pings" test "${s1:-0}" -ge 5

# The traffic generator: b serves its test portal, a writes to it and reads from it.
on a selftest run --nid 10.77.0.2@tcp --count 4 --size 4096 --timeout 5
check "selftest needs the peer's test service" test "$RC" != 0
check "and says the messages failed" has "failed"
on b selftest service on
check "b serves the test portal" test "$RC" = 0
on a selftest run --nid 10.77.0.2@tcp --mode write --size 1048576 --count 64 --concurrency 8
check "a writes 64 MiB to b" test "$RC" = 0
check "every message arrived" has "failed: 0"
diag "$OUT"
rail_mb() { printf '%s\n' "$OUT" | awk -v nid="$1" -v k="$2" '
	$0 ~ "nid: " nid { want = 1; next }
	want && index($0, k ":") { print $NF; exit }'; }
check "rail 0 carried the writes" awk -v v="$(rail_mb 10.77.0.1@tcp "sent MB/s")" 'BEGIN { exit !(v > 0) }'
check "rail 1 carried the writes" awk -v v="$(rail_mb 10.77.1.1@tcp "sent MB/s")" 'BEGIN { exit !(v > 0) }'
# --no-ack: done when sent; b sends no ACK for them.  b answers a PUT in the
# handler that takes it in: once b has taken in all 16, an ACK would be counted.
# bcount KEY: b's node counter KEY
bcount() { busctl --address="unix:path=$T/b.bus" --timeout="$TEST_WAIT" call org.lnetd1 /org/lnetd1 \
	org.lnetd1.Manager Counters | tr ' ' '\n' | awk -v k="\"$1\"" '$0 == k { getline; print; exit }'; }
bcount_at_least() { [ "$(bcount "$1")" -ge "$2" ] 2>/dev/null; }
before=$(bcount sent_ack)
puts=$(bcount received_put)
on a selftest run --nid 10.77.0.2@tcp --mode write --size 4096 --count 16 --no-ack
check "a writes to b without ACKs" has "failed: 0"
check "b takes in the 16 PUTs" wait_until "$TEST_WAIT" bcount_at_least received_put $((puts + 16))
check "and b sent no ACK" test "$(bcount sent_ack)" = "$before"
on a selftest run --nid 10.77.0.2@tcp --mode read --size 262144 --count 32 --concurrency 4
check "a reads from b" has "failed: 0"
check "the reads came in over both rails" awk -v a="$(rail_mb 10.77.0.1@tcp "received MB/s")" \
	-v b="$(rail_mb 10.77.1.1@tcp "received MB/s")" 'BEGIN { exit !(a > 0 && b > 0) }'
on a selftest run --nid 10.77.0.2@tcp --mode write --size 2000000
check "a size beyond the MTU is refused" test "$RC" = 2

on a stats show
check "stats show prints Lustre's counters" has "send_count:"
check "stats show counts what a sent" test "$(printf '%s\n' "$OUT" | awk '$1 == "send_count:" {print $2}')" -ge 22
total=$(printf '%s\n' "$OUT" | awk '$1 == "send_count:" {print $2}')

# The same counts by NI and by peer NI, in Lustre's blocks.
# count KEY: KEY's value in each "statistics" block of $OUT, one per line.
count() { printf '%s\n' "$OUT" | awk -v k="$1:" '/statistics:/ { s = 1; next }
	s && $1 == k { print $2 } /_stats:|health stats:/ { s = 0 }'; }
on a net show -v
check "net show -v prints each NI's statistics" test "$(count send_count | wc -l)" = 2
check "and its messages by type" has "sent_stats:"
check "the NIs' sends add up to stats show's" test "$(count send_count | awk '{ t += $1 } END { print t }')" = "$total"
check "both rails sent" test "$(count send_count | awk '$1 > 0' | wc -l)" = 2
on a peer show -v --nid 10.77.0.2@tcp
check "peer show -v prints each peer NI's statistics" test "$(count send_count | wc -l)" = 2
check "a sent to both of b's NIDs" test "$(count send_count | awk '$1 > 0' | wc -l)" = 2
check "and received from both" test "$(count recv_count | awk '$1 > 0' | wc -l)" = 2

# stats reset: only root may; then every counter starts from 0, the node's,
# each NI's and each peer NI's.
if id nobody >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
	OUT=$(DBUS_SYSTEM_BUS_ADDRESS="unix:path=$T/a.bus" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$LNETCTL" stats reset 2>&1)
	check "an unprivileged stats reset is refused" test $? != 0
	on a stats show
	check "and changes nothing" test "$(printf '%s\n' "$OUT" | awk '$1 == "send_count:" {print $2}')" -gt 0
fi
on a stats reset
check "stats reset" test "$RC" = 0
on a stats show
check "stats show starts again from 0" has "send_count: 0"
on a net show -v
check "so does every NI's" test "$(count send_count | awk '$1 > 0' | wc -l)" = 0
on a peer show -v --nid 10.77.0.2@tcp
check "and every peer NI's" test "$(count send_count | awk '$1 > 0' | wc -l)" = 0
check "with the statistics blocks still there" test "$(count send_count | wc -l)" = 2

# A hostile peer: garbage to b's LNet port, from inside a's namespace.
garbage() {
	ip netns exec "${NS}a" sh -c 'printf "GET / HTTP/1.0\r\n\r\n" | timeout 60 nc -q1 10.77.0.2 988' \
		>/dev/null 2>&1 || ip netns exec "${NS}a" timeout 60 bash -c \
		'exec 3<>/dev/tcp/10.77.0.2/988; printf "GET / HTTP/1.0\r\n\r\n" >&3; cat <&3' >/dev/null 2>&1
}
# bad_magic N: b has counted N connections with a bad magic (b reads them in its own time)
bad_magic() { [ "$(bcount fault_bad_magic)" = "$1" ]; }
t0=$(date +%s)
garbage
check "b counted the bad magic" wait_until "$TEST_WAIT" bad_magic 1
on a ping --timeout 60 10.77.0.2@tcp
check "and still answers a" has "primary nid: 10.77.0.2@tcp"
check "b's log names the fault once" grep -q "closed a connection from a peer before its hello: bad magic" "$T/lnetd.log"
garbage
check "the same again is counted" wait_until "$TEST_WAIT" bad_magic 2
# One line per kind per 10 s: lines logged since t0 are at most one per
# started 10 s (one, when the two took under 9 s, as they do unloaded).
lines=$(grep -c "closed a connection from a peer before its hello: bad magic" "$T/lnetd.log")
most=$((($(date +%s) - t0 + 1) / 10 + 1))
diag "bad magic logged $lines times in $(($(date +%s) - t0)) s"
check "but not logged again so soon (one line per kind per 10 s: at most $most)" \
	test "$lines" -ge 1 -a "$lines" -le "$most"

# Routing: c on tcp1 behind b; a and c each have a route through b.
check "node c starts" node_start c
on c net add --net tcp1 --if cb
check "c: an NI on tcp1" test "$RC" = 0
on b net add --net tcp1 --if bc
check "b: an NI on tcp1 too" test "$RC" = 0
check "b's NIs are up" node_up b
check "c's NI is up" node_up c
on a route add --net tcp1 --gateway 10.77.0.2@tcp
check "a: tcp1 through b" test "$RC" = 0
on c route add --net tcp --gateway 10.78.0.1@tcp1
check "c: tcp through b" test "$RC" = 0
on a ping --timeout 2 10.78.0.2@tcp1
check "b does not route yet: c is out of reach" test "$RC" != 0
on b routing show
check "routing show says b does not route" has "enable: 0"
on b set routing 1
check "b routes" test "$RC" = 0
on a ping --timeout 60 10.78.0.2@tcp1
check "a pings c through b" has "primary nid: 10.78.0.2@tcp1"
on c ping --timeout 60 10.77.1.1@tcp
check "c pings a's second NID through b" has "primary nid: 10.77.0.1@tcp"
on c selftest service on
on a selftest run --nid 10.78.0.2@tcp1 --mode write --size 65536 --count 64 --concurrency 8
check "a writes to c through b" has "failed: 0"
on a selftest run --nid 10.78.0.2@tcp1 --mode write --size 4000 --count 64 --concurrency 8
check "small writes too" has "failed: 0"
on b stats show
check "b counted what it routed" test "$(printf '%s\n' "$OUT" | awk '$1 == "route_count:" {print $2}')" -ge 128
on b routing show
large=$(printf '%s\n' "$OUT" | awk '/large:/ { l = 1 } l && /mincredits:/ { print $2; exit }')
small=$(printf '%s\n' "$OUT" | awk '/small:/ { l = 1 } l && /mincredits:/ { print $2; exit }')
check "the large pool lent buffers" test "${large:-1024}" -lt 1024
check "the small pool lent buffers" test "${small:-16384}" -lt 16384
# (b frees a buffer once it has passed the message on, which may be after a's last ACK)
pools_full() {
	node_ctl b routing show 2>/dev/null | awk '/nbuffers:/ { n = $2 } /credits:/ && !/min/ { if ($2 != n) bad = 1 }
		END { exit bad + 0 }'
}
check "and has them all back" wait_until "$TEST_WAIT" pools_full

# A NID nobody has: refused, named.
on a ping --timeout 1 10.77.0.9@tcp
check "a ping to nobody fails" test "$RC" != 0
check "saying which NID" has "10.77.0.9@tcp"
on a ping --timeout 0 10.77.0.2@tcp
check "a zero timeout is a usage error" test "$RC" = 2
finish
