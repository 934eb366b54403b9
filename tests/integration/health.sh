#!/bin/sh
# Health, resend and recovery between userspace-engine nodes: two lnetd
# nodes in network namespaces of the test's own, joined by four veth rails.
#   H1 one rail's link is set down in the middle of a bulk transfer whose
#      writes all cross rails: the transfer completes, no message is lost,
#      the NI is down at once;
#   H3 the link comes back: recovery pings the NI back to health 1000 and
#      traffic spreads over it again;
#   H2 a peer rail that silently drops everything (fault drop, rate 1):
#      after the first failures at least 95 % of new messages avoid it,
#      and recovery keeps pinging it;
# and lnetctl fault's errors, rights and bounds.  Timing is not asserted
# (bench/health.sh measures it); how long things took goes out as diag.
# Each wait is for the condition then asserted, bounded by TEST_WAIT (lib.sh).
# Upstream's sanity-lnet.sh 204-238 (health, resend, recovery) in spirit.
# TAP.
set -u
NS_PREFIX=lnh
. "$(dirname "$0")/nodes-tap.sh"
# count X NID KEY [local]: a counter of NID's on node X (a local NI with "true", else a peer NI)
count() {
	busctl --address="unix:path=$T/$1.bus" --timeout="$TEST_WAIT" call org.lnetd1 /org/lnetd1 \
		org.lnetd1.Manager Counters 2>/dev/null | tr ' ' '\n' |
		awk -v nid="\"$2\"" -v key="\"$3\"" -v loc="${4:-false}" '
		$0 == nid { getline; want = ($0 == loc); next }
		want && $0 == key { getline; print; exit }'
}
# node_count X KEY: one of node X's own counters (Counters' node dictionary)
node_count() {
	busctl --address="unix:path=$T/$1.bus" --timeout="$TEST_WAIT" call org.lnetd1 /org/lnetd1 \
		org.lnetd1.Manager Counters 2>/dev/null | tr ' ' '\n' |
		awk -v key="\"$2\"" '$0 == key { getline; print; exit }'
}
# ni X NID KEY: what `net show -v` prints under KEY for node X's local NI NID
ni() {
	node_ctl "$1" net show -v 2>/dev/null | awk -v nid="$2" -v k="$3:" '
		$1 == "-" && $2 == "nid:" { want = ($3 == nid); next }
		want && index($0, k) { print $NF; exit }'
}
health() { ni "$1" "$2" "health value"; }
# pni_health X NID: the health value `peer show -v` prints for peer NI NID on node X
pni_health() {
	node_ctl "$1" peer show -v 2>/dev/null | awk -v nid="$2" '
		$1 == "-" && $2 == "nid:" { want = ($3 == nid); next }
		want && /health value:/ { print $NF; exit }'
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# health_is X NID V, status_is X NID V, pni_health_is X NID V: node X says so
health_is() { [ "$(health "$1" "$2")" = "$3" ]; }
status_is() { [ "$(ni "$1" "$2" status)" = "$3" ]; }
pni_health_is() { [ "$(pni_health "$1" "$2")" = "$3" ]; }
# puts_at_least N: a's NI on rail 0 has sent N PUTs
puts_at_least() { [ "$(count a 10.78.0.1@tcp sent_put true)" -ge "$1" ] 2>/dev/null; }
# node_count_above X KEY N: node X's counter KEY is above N
node_count_above() { [ "$(node_count "$1" "$2")" -gt "$3" ] 2>/dev/null; }

node_ns a b || {
	echo "1..0 # SKIP cannot make network namespaces"
	exit 0
}
node_rails a b 4 10.78 || exit 1
check "node a starts" node_start a
check "node b starts" node_start b
b_pid=${NODE_PIDS##* } # ip netns exec execs lnetd: the same process
on a net add --net tcp --if a0,a1,a2,a3
check "a: four NIs on tcp" test "$RC" = 0
on b net add --net tcp --if b0,b1,b2,b3
check "b: four NIs on tcp" test "$RC" = 0
check "a's NIs are up" node_up a
check "b's NIs are up" node_up b
on a peer add --prim_nid 10.78.0.2@tcp --nid 10.78.1.2@tcp,10.78.2.2@tcp,10.78.3.2@tcp
check "a: b as a Multi-Rail peer of four NIDs" test "$RC" = 0
on b selftest service on
check "b serves the test portal" test "$RC" = 0
# transaction_timeout stays at its default (50 s, an lnd_timeout of 12 s): a
# shorter one would close a link that a loaded machine leaves idle that long.

# --- H1: a rail's link goes down in the middle of a bulk transfer ------------
# HealthChanged, as a watcher of a's bus sees it
busctl --address="unix:path=$T/a.bus" monitor --match "type='signal',member='HealthChanged'" \
	>"$T/signals" 2>&1 &
NODE_PIDS="$NODE_PIDS $!"
# (busctl says so once it is the bus's monitor: no signal after this is missed)
check "a watcher of a's bus is listening" \
	wait_until "$TEST_WAIT" grep -q "Monitoring bus message stream" "$T/signals"
# Every write crosses rails (pair rules: a1 sends to b0, a0 to b1, a3 to b2, a2 to b3):
# a1's connections to b0 leave by a0 (10.78.0.0/24 is a0's), so when a0 goes down they
# die with it, and what they carried unanswered must be sent again as a0's own is.
for pr in 1.1:0.2 0.1:1.2 3.1:2.2 2.1:3.2; do
	on a udsp add --src "10.78.${pr%%:*}@tcp" --dst "10.78.${pr#*:}@tcp"
	check "a: pair rule ${pr%%:*} to ${pr#*:}" test "$RC" = 0
done
# 10,000 writes of 256 KiB: the link goes down once rail 0 has carried 200 of them (some 800
# in all), so about 9,000 are still to go, whatever the load.  (40,000 outlasted lnetctl's
# 600 s call timeout on a loaded host with the sanitizers: errno -110.)  Each write waits
# up to 300 s for its ACK, so that only a loss fails it: at load 15, 12 of 10,000 outlived
# the 10 s the generator once gave them, on rails the link's fall did not touch.
node_ctl a selftest run --nid 10.78.0.2@tcp --mode write --size 262144 --count 10000 --timeout 300 \
	--concurrency 16 >"$T/h1.out" 2>&1 &
job=$!
check "the transfer is under way (200 PUTs on rail 0)" wait_until "$TEST_WAIT" puts_at_least 200
t0=$(now_ms)
ip -n "${NS}a" link set a0 down
kill -0 $job 2>/dev/null && running=1 || running=0
sent_down=$(count a 10.78.0.1@tcp sent_put true)
wait_until "$TEST_WAIT" status_is a 10.78.0.1@tcp down
diag "a's NI on a0 shown down $(($(now_ms) - t0)) ms after the link"
check "the link went down while the transfer ran" test "$running" = 1
wait $job
rc=$?
OUT=$(cat "$T/h1.out")
check "the transfer completes" test "$rc" = 0
diag "a's resends: $(node_count a resend_count), failed: $(node_count a failed_resends), response timeouts: $(node_count a response_timeout_count)"
check "no message was lost" has "failed: 0"
check "every message was sent" has "messages: 10000"
sent_after=$(count a 10.78.0.1@tcp sent_put true)
diag "PUTs on rail 0: $sent_down when its link went down, $sent_after at the end"
check "rail 0 carried nothing after its link went down" \
	test "$((sent_after - sent_down))" -le 16
check "a's NI on a0 is down" test "$(ni a 10.78.0.1@tcp status)" = down
check "a resent what rail 0 held" test "$(node_count a resend_count)" -ge 1
on a stats show
check "stats show prints the resends" has "resend_count:"
check "counted as dropped locally" test "$(node_count a local_dropped_count)" -ge 1
check "net show -v counts them on the NI" test "$(ni a 10.78.0.1@tcp dropped)" -ge 1
on a debug recovery --local
check "debug recovery --local lists the NI" has "nid-0: 10.78.0.1@tcp"
on a udsp del --all
check "a: the pair rules go" test "$RC" = 0

# --- H3: the link comes back: recovery, and traffic spreads again ------------
t0=$(now_ms)
ip -n "${NS}a" link set a0 up
wait_until "$TEST_WAIT" health_is a 10.78.0.1@tcp 1000
diag "a's NI on a0 back at health 1000 $(($(now_ms) - t0)) ms after its link came up (recovery_interval 1 s)"
check "health returns to 1000" test "$(health a 10.78.0.1@tcp)" = 1000
# b0 was reached only through a0: it lost health while a0 was down, and is pinged now
wait_until "$TEST_WAIT" pni_health_is a 10.78.0.2@tcp 1000
diag "b0, reached through a0, back at 1000 $(($(now_ms) - t0)) ms after the link came up"
check "so does the peer NI reached through it" test "$(pni_health a 10.78.0.2@tcp)" = 1000
sig() { # sig NID STATE: a HealthChanged said so
	tr -s ' \n' '  ' <"$T/signals" | grep -q "STRING \"$1\"; STRING \"$2\""
}
# (the watcher writes what it hears in its own time: wait for it)
check "a signal said a0's NI went down" wait_until "$TEST_WAIT" sig 10.78.0.1@tcp down
check "and that it is healthy again" wait_until "$TEST_WAIT" sig 10.78.0.1@tcp healthy
check "and that b0 recovered" wait_until "$TEST_WAIT" sig 10.78.0.2@tcp healthy
check "and the NI is up" test "$(ni a 10.78.0.1@tcp status)" = up
# b's end of the rail came back too (its listener may take a moment): a0 to b0 answers
check "a0 to b0 answers again" wait_until "$TEST_WAIT" \
	quiet node_ctl a ping --timeout 5 --source 10.78.0.1@tcp 10.78.0.2@tcp
# and as a whole set of connections, control and bulk (socklnd's typed ones), each from a
# reserved port of its own: with SO_REUSEADDR every socket binds the first port, and it is
# connect that finds the address pair held, by the set's other connections or by one closed
# when the link went down whose last packets are still due
a0_set() {
	[ "$(ip netns exec "${NS}a" ss -Htn state established src 10.78.0.1 dst 10.78.0.2:988 |
		wc -l)" -ge 3 ]
}
check "a0's connections to b0 are a whole set again" wait_until "$TEST_WAIT" a0_set
before=$(count a 10.78.0.1@tcp sent_put true)
on a selftest run --nid 10.78.0.2@tcp --mode write --size 65536 --count 400 --concurrency 8
check "a transfer after recovery loses nothing" has "failed: 0"
d0=$(($(count a 10.78.0.1@tcp sent_put true) - before))
diag "PUTs on rail 0 among 400 after recovery: $d0"
# Under load the first batch after recovery can all go the other way (rail
# 0's bulk connections still being made): what is guaranteed is that rail 0
# is chosen again, so batches of 400 run until one puts a tenth of its bytes
# on a0's link (the namespace's /proc/net/dev), and a0's LNet counters count
# that batch's PUTs (they once read 0 when Counters listed a0 as a local NI
# right beside a0 as a peer NI, pinged by its recovery: counters.sh).
a0_tx() { ip netns exec "${NS}a" awk '$1 == "a0:" { print $10 }' /proc/net/dev; }
rail0_again() {
	_t=$(a0_tx) _b=$(count a 10.78.0.1@tcp sent_put true)
	on a selftest run --nid 10.78.0.2@tcp --mode write --size 65536 --count 400 --concurrency 8 >/dev/null
	_tx=$(($(a0_tx) - _t)) _d=$(($(count a 10.78.0.1@tcp sent_put true) - _b))
	[ "$_tx" -ge $((400 * 65536 / 10)) ]
}
rc=0
wait_until "$TEST_WAIT" rail0_again || rc=1
diag "a0's link sent $_tx bytes of a batch of 400 x 64 KiB; a0's counters: $_d PUTs"
check "rail 0 carries traffic again" test "$rc" = 0
check "and a0's counters count its PUTs" test "$_d" -gt 0
# when it fails: every counters entry's send_count, and what the node says
[ "$rc" = 0 ] && [ "$_d" -gt 0 ] || {
	busctl --address="unix:path=$T/a.bus" --timeout="$TEST_WAIT" call org.lnetd1 /org/lnetd1 \
		org.lnetd1.Manager Counters | tr ' ' '\n' |
		awk '/^"[0-9.]+@tcp"$/ { n = $0; getline; l = $0; next }
			$0 == "\"send_count\"" { getline; print "counters", n, l, "send_count", $0; n = "" }'
	node_ctl a explain --dst 10.78.0.2@tcp
	node_ctl a net show -v
	node_ctl a stats show
	node_ctl a peer show -v
} 2>&1 | sed 's/^/# /'

# --- a request started from input is held its whole delay ------------------
# The node's clock must be read when input arrives: a delay set from a stale
# clock (the last tick, seconds before) ends early.  a holds what it sends
# to b0 for 2 s; b's lnetd is stopped while a's first write reaches it, so a
# sits idle; b continues at t0, and its ACK starts a's second write, which
# must then be held 2 s.  Guaranteed whatever the load: b cannot answer
# before t0, so the second write leaves a at t0 + 2 s or later.
on a fault delay add --source '*' --dest 10.78.0.2@tcp --rate 1 --latency 2
check "a: hold what goes to b0 for 2 s" test "$RC" = 0
kill -STOP "$b_pid"
node_ctl a selftest run --nid 10.78.0.2@tcp --mode write --size 64 --count 2 --concurrency 1 \
	>"$T/held.out" 2>&1 &
job=$!
sleep 4 # the first write's 2 s, then idle
t0=$(now_ms)
kill -CONT "$b_pid"
wait $job
rc=$?
t1=$(now_ms)
OUT=$(cat "$T/held.out")
check "two held writes, b stopped under the first, complete" test "$rc" = 0
check "neither failed" has "failed: 0"
diag "the second write, started by b's answer, ended $((t1 - t0)) ms after b continued"
check "the write b's answer started was held its whole 2 s" test "$((t1 - t0))" -ge 1990
on a fault delay del --all
check "a: the delay rule goes" test "$RC" = 0

# --- H2: a peer rail that silently drops everything --------------------------
# Each failed recovery ping doubles the wait for the next (up to
# max_recovery_ping_interval, 900 s): at most 2 s here, so that "recovery
# pings go on" is seen however long the transfers below took.
on a set max_recovery_ping_interval 2
check "a: recovery pings at least every 2 s" test "$RC" = 0
on b fault drop add --source '*' --dest 10.78.1.2@tcp --rate 1
check "b: drop everything that arrives on b1" test "$RC" = 0
on b fault drop show
check "fault drop show lists the rule" has "dest: 10.78.1.2@tcp"
on a selftest run --nid 10.78.0.2@tcp --mode write --size 65536 --count 200 --concurrency 8 --timeout 10
diag "the first failures: $(printf '%s\n' "$OUT" | grep -m1 failed)"
check "the first messages to b1 failed" test "$(node_count a response_timeout_count)" -ge 1
pings=$(node_count a recovery_pings)
before=$(count a 10.78.1.2@tcp sent_put)
on a selftest run --nid 10.78.0.2@tcp --mode write --size 65536 --count 1000 --concurrency 8
after=$(count a 10.78.1.2@tcp sent_put)
diag "PUTs to b1 among 1000 new ones: $((after - before))"
check "at least 95 % of new messages avoid b1" test "$((after - before))" -le 50

check "and none of them is lost" has "failed: 0"
on a debug recovery --peer
check "debug recovery --peer lists b1" has "nid-0: 10.78.1.2@tcp"
on a peer show -v
check "peer show -v counts b1's timeouts" \
	test "$(printf '%s\n' "$OUT" | awk '$2 == "nid:" { want = ($3 == "10.78.1.2@tcp") }
		want && $1 == "timeout:" { print $2; exit }')" -ge 1
check "recovery pings go on" wait_until "$TEST_WAIT" node_count_above a recovery_pings "$pings"
on b fault drop show
check "b counted what it dropped" test "$(printf '%s\n' "$OUT" | awk '/dropped:/ { print $2; exit }')" -ge 1
on b fault drop reset
on b fault drop show
check "fault drop reset zeroes the counters" has "dropped: 0"
on b fault drop del --dest 10.78.1.2@tcp
on b fault drop show
check "fault drop del removes the rule" test "$(printf '%s\n' "$OUT" | grep -c "dest:")" = 0

# --- net set --health acts on the live node: recovery takes it back up ------
on a net set --nid 10.78.2.1@tcp --health 300
check "a: net set --health 300" test "$RC" = 0
check "recovery brings it back to 1000" wait_until "$TEST_WAIT" health_is a 10.78.2.1@tcp 1000
on a debug recovery
check "debug recovery wants --local or --peer" test "$RC" = 2

# --- a rebuild of lnetd's configuration (a rollback) keeps running state -----
# An NI down with its link has health 0 by no one's hand: after a rollback it
# comes back up with its link, as before (its status is not "set down").
ip -n "${NS}a" link set a3 down
check "a's NI on a3 is down with its link" wait_until "$TEST_WAIT" status_is a 10.78.3.1@tcp down
on a set health_sensitivity 50
gen=$(node_ctl a history --limit 1 2>/dev/null | awk '$1 == "-" && $2 == "generation:" { print $3; exit }')
on a rollback $((gen - 1))
check "a rolls its last change back (lnetd rebuilds its configuration)" test "$RC" = 0
ip -n "${NS}a" link set a3 up
check "the link up: the NI is up again" wait_until "$TEST_WAIT" status_is a 10.78.3.1@tcp up

# --- fault's errors: named, and nothing changes ------------------------------
on b fault drop add --source '*' --dest '*' --rate 1 --interval 2
check "rate and interval together are refused" test "$RC" = 1
check "naming rate" has "rate"
on b fault drop add --source '*' --dest '*' --rate 0
check "a rate of 0 is refused" test "$RC" = 1
on b fault drop add --source '*' --dest '*' --rate 1 --portal 64
check "portal 64 is refused" has "portal"
on b fault drop add --source '*' --dest '*' --rate 1 --health_error sunburn
check "an unknown health error is refused" has "health_error"
on b fault delay add --source '*' --dest '*' --rate 1
check "a delay without a latency is refused" has "latency"
on b fault drop add --source bogus --dest '*' --rate 1
check "a bad NID is refused" test "$RC" = 1
on b fault drop del
check "del without a target is a usage error" test "$RC" = 2
on b fault drop show
check "nothing was added" test "$(printf '%s\n' "$OUT" | grep -c "id:")" = 0
OUT=$(DBUS_SYSTEM_BUS_ADDRESS="unix:path=$T/b.bus" setpriv --reuid=65534 --regid=65534 \
	--clear-groups "$LNETCTL" fault drop add --source '*' --dest '*' --rate 1 2>&1)
RC=$?
check "an unprivileged caller cannot add a rule" test "$RC" != 0
OUT=$(DBUS_SYSTEM_BUS_ADDRESS="unix:path=$T/b.bus" setpriv --reuid=65534 --regid=65534 \
	--clear-groups "$LNETCTL" fault drop show 2>&1)
RC=$?
check "but can list them" test "$RC" = 0
finish
