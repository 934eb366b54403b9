#!/bin/sh
# NRS TBF on live requests (userspace engine): a server node s whose test
# service has a TBF policy (the service lnet_test), and three client nodes
# a, b, c on one bridge, each running the traffic generator against it at
# once.  Rules by source NID at 20, 50 and 100 requests/s.  Asserted,
# whatever the machine's load: no client gets more than rate x time + depth
# (the client's own elapsed time bounds the server's), every request is
# served (none starves), and every one passed its rule.  Then the request
# body's fields: a jobid+opcode rule throttles the generator's writes.
# Accuracy (achieved ÷ configured rate) is a figure: bench/tbf-live.sh.  TAP.
set -u
NS_PREFIX=lnt
. "$(dirname "$0")/nodes-tap.sh"
DEPTH=3 # the policy's default bucket depth

# tbf_live_net PREFIX: s (PREFIX.0.100 on a bridge) and a, b, c (PREFIX.0.1-3), nodes started
. "$(dirname "$0")/tbf-live-lib.sh"

tbf_live_net 10.81 || {
	echo "1..0 # SKIP cannot make the namespaces and the bridge"
	exit 0
}
check "four nodes up, s serving its test portal" test "$LIVE_OK" = yes

set -- a 20 b 50 c 100
check "a rule per client on the service lnet_test" tbf_live_rules "$@"

# Each client asks for 2 s of its rate, 8 in flight, all at once.
tbf_live_run 2 "$@"
for x in a b c; do
	eval "rate=\$rate_$x cnt=\$cnt_$x"
	tbf_live_result "$x"
	diag "$x: $cnt requests at $rate/s: ${LIVE_SECS}s, failed $LIVE_FAILED"
	check "$x: every request was served (none starves)" test "$LIVE_FAILED" = 0
	check "$x: no more than rate x time + depth ($cnt in ${LIVE_SECS}s at $rate/s)" \
		awk -v n="$cnt" -v r="$rate" -v t="$LIVE_SECS" -v d="$DEPTH" 'BEGIN { exit !(n <= r * t + d) }'
	check "$x: its rule dispatched each of its $cnt requests" test "$(tbf_live_dispatched "c$x")" = "$cnt"
done

# GETs are requests too, classified by their source NID alone.
on a selftest run --nid "$LIVE_SERVER" --mode read --size 4096 --count 20 --concurrency 4
check "a: reads through the policy, all served" has "failed: 0"
check "a: its rule dispatched them too" test "$(tbf_live_dispatched ca)" = $((cnt_a + 20))

# The body's fields: jobid and opcode, as ptlrpc's requests carry them.
for x in a b c; do on s tbf rule stop --service lnet_test --queue reg "c$x"; done
on s tbf policy set --service lnet_test --queue reg --type jobid+opcode
check "the reg queue classifies by jobid+opcode" test "$RC" = 0
on s tbf rule start --service lnet_test --queue reg js 'jobid={lnet_sel*}&opcode={ost_write}' rate=50
check "a rule on the generator's jobid and opcode" test "$RC" = 0
on a selftest run --nid "$LIVE_SERVER" --mode write --size 64 --count 60 --concurrency 8
secs=$(printf '%s\n' "$OUT" | awk '$1 == "seconds:" { print $2; exit }')
check "a: its writes all served" has "failed: 0"
check "a: the jobid rule holds them to 50/s (60 in ${secs}s)" \
	awk -v t="${secs:-0}" -v d="$DEPTH" 'BEGIN { exit !(60 <= 50 * t + d) }'
check "the jobid rule dispatched all 60" test "$(tbf_live_dispatched js)" = 60
# Bulk (beyond LNE_TEST_BODY_MAX) carries no body: the default rule takes it.
on a selftest run --nid "$LIVE_SERVER" --mode write --size 65536 --count 5
check "bulk writes, classified without a body, served by the default rule" has "failed: 0"

# The policy goes while nothing waits: the test service answers as it comes.
on s tbf del --service lnet_test
on a selftest run --nid "$LIVE_SERVER" --mode write --size 64 --count 50 --concurrency 8
check "without the policy every request is served" has "failed: 0"
finish
