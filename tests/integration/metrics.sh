#!/bin/sh
# lnetd --metrics-file: the node_exporter textfile lnetd keeps current.
# A real lnetd on a private bus writes it at start, after each change and
# every interval; promtool (Debian's prometheus) checks every version of it;
# it says what is configured, pending and why, TBF rules, health; with the
# kernel engine and no module it is still valid and names the module as
# pending.  Then a fabric of two userspace-engine nodes in network
# namespaces: after real traffic the data path's counters in the file are
# the ones the Counters call gives.  TAP.
set -u
. "$(dirname "$0")/lib.sh"
LNETD=${LNETD:-lnetd/lnetd}
LNETCTL=${LNETCTL:-lnetctl/lnetctl}
if ! command -v promtool >/dev/null; then
	echo "1..0 # SKIP promtool (Debian's prometheus package) is not installed"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root (lnetd takes changes from root on a private bus)"
	exit 0
fi
M=$T/lnet.prom

# valid FILE: promtool passes it (its complaints into the TAP log).
valid() {
	_out=$(promtool check metrics <"$1" 2>&1) && return 0
	diag "promtool: $_out"
	return 1
}

# wait_metric FILE LINE: until FILE has LINE (a whole line), TEST_WAIT at most.
wait_metric() {
	wait_until "$TEST_WAIT" grep -qxF -- "$2" "$1" 2>/dev/null && return 0
	diag "never in $1: $2" "last:" "$(grep -v '^#' "$1" 2>&1 | head -60)"
	return 1
}

# Options: refused with a sentence, before anything starts.
"$LNETD" --engine=userspace --state-dir="$T/x" --metrics-interval=0 2>"$T/err"
check "--metrics-interval=0 is a usage error" test $? = 2
OUT=$(cat "$T/err")
check "naming the bound" has "--metrics-interval: 0 is outside 1..3600 seconds"
start_bus
"$LNETD" --engine=userspace --state-dir="$T/x" --metrics-file="$T/no/such/dir/lnet.prom" \
	2>"$T/err"
check "a file lnetd cannot write stops it at start" test $? = 1
OUT=$(cat "$T/err")
check "saying which and why" has "--metrics-file: cannot write $T/no/such/dir/lnet.prom: No such file or directory"

check "lnetd starts with --metrics-file" start_lnetd --metrics-file="$M" --metrics-interval=1
check "the file is there at once" test -s "$M"
check "and valid" valid "$M"
check "readable by node_exporter's user (mode 0644)" test "$(stat -c %a "$M")" = 644
check "generation 0" grep -qxF 'lnet_config_generation{engine="userspace"} 0' "$M"

"$LNETCTL" net add --net tcp --if lnm0 >/dev/null 2>&1
check "a change is there soon after" wait_metric "$M" 'lnet_config_generation{engine="userspace"} 1'
check "with the pending NI and its reason" wait_metric "$M" \
	'lnet_config_pending{kind="net",object="tcp on lnm0",reason="interface lnm0 does not exist"} 1'
check "counted as configured, not applied" grep -qxF 'lnet_config_applied_objects{kind="net"} 0' "$M"
"$LNETCTL" net add --net tcp1 --if lo >/dev/null 2>&1
check "an NI on lo: its health" wait_metric "$M" \
	'lnet_ni_health{nid="127.0.0.1@tcp1",net="tcp1",interface="lo"} 1000'
"$LNETCTL" peer add --prim_nid 10.79.0.9@tcp --nid 10.79.0.10@tcp >/dev/null 2>&1
bcall SetHealth ssu peer_ni 10.79.0.10@tcp 250
check "a peer NI's health, as set" wait_metric "$M" \
	'lnet_peer_ni_health{nid="10.79.0.10@tcp",net="tcp",peer="10.79.0.9@tcp"} 250'
bcall TbfCommand ss ost_io 'reg start io nid={10.79.0.[1-9]@tcp} rate=500'
check "a TBF rule: its rate" wait_metric "$M" \
	'lnet_tbf_rule_rate{service="ost_io",queue="reg",rule="io"} 500'
check "and its counters" grep -qxF \
	'lnet_tbf_rule_dispatched_total{service="ost_io",queue="reg",rule="io"} 0' "$M"
check "the file is still valid" valid "$M"
stop_lnetd
check "lnetd stops" test "$LNETD_RC" = 0
check "and takes the file away (a stopped lnetd exports nothing)" test ! -e "$M"
check "leaving no temporary file" test ! -e "$M.tmp"

# The kernel engine without the module: what lnetd knows, the module named as pending.
if [ -d /sys/module/lnetk ]; then
	ok "# SKIP the lnetk module is loaded here: this part needs a host without it"
else
	check "lnetd starts with the kernel engine and no module" \
		start_lnetd --engine=kernel --metrics-file="$M"
	check "its file is valid" valid "$M"
	check "and says the module is pending" grep -q '^lnet_config_pending{kind="module",object="lnetk",reason="' "$M"
	stop_lnetd
fi

# A fabric of two nodes: real traffic, and the file agrees with Counters.  The
# private bus goes first (nodes_cleanup waits for every child of the test).
kill "$BUS_PID" && wait "$BUS_PID"
BUS_PID=
if ! command -v ip >/dev/null || ! ip netns list >/dev/null 2>&1; then
	ok "# SKIP the fabric part needs ip netns"
	finish
fi
NS=lnm$$
. "$(dirname "$0")/nodes.sh"
trap 'nodes_cleanup; cleanup' EXIT
if ! node_ns a b || ! node_rails a b 1 10.78; then
	ok "# SKIP cannot make network namespaces"
	finish
fi
check "node a starts with --metrics-file" node_start a --metrics-file="$M" --metrics-interval=1
check "node b starts" node_start b
node_ctl a net add --net tcp --if a0 >/dev/null && node_ctl b net add --net tcp --if b0 >/dev/null
check "a's NI is up" node_up a
check "b's NI is up" node_up b
node_ctl b selftest service on >/dev/null
OUT=$(node_ctl a selftest run --nid 10.78.0.2@tcp --mode write --size 65536 --count 32 \
	--concurrency 4 2>&1)
check "a writes 32 messages of 64 KiB to b" has "failed: 0"
OUT=$(busctl --address="unix:path=$T/a.bus" --timeout="$TEST_WAIT" call org.lnetd1 /org/lnetd1 \
	org.lnetd1.Manager Counters 2>&1)
# count NID KEY: a's counter KEY of local NI NID, from Counters
count() {
	printf '%s' "$OUT" | tr ' ' '\n' | awk -v nid="\"$1\"" -v key="\"$2\"" '
		$0 == nid { getline; if ($0 == "true") want = 1; next }
		want && $0 == key { getline; print; exit }'
}
sent=$(count 10.78.0.1@tcp send_count)
bytes=$(count 10.78.0.1@tcp send_length)
diag "Counters: a's NI sent ${sent:-none} messages, ${bytes:-none} bytes"
check "the NI sent the 32 PUTs" test "${sent:-0}" -ge 32
check "of 2 MiB" test "${bytes:-0}" -ge $((32 * 65536))
check "the file has the NI's messages, as Counters says" wait_metric "$M" \
	"lnet_ni_sent_messages_total{nid=\"10.78.0.1@tcp\",net=\"tcp\"} $sent"
check "and bytes" grep -qxF "lnet_ni_sent_bytes_total{nid=\"10.78.0.1@tcp\",net=\"tcp\"} $bytes" "$M"
check "the peer NI's received messages are counted" \
	awk '/^lnet_peer_ni_received_messages_total\{nid="10.78.0.2@tcp",net="tcp"\} / { v = $2 }
		END { exit !(v >= 32) }' "$M"
check "so are the node's connections" awk '/^lnet_connections_made_total / { exit !($2 >= 1) }' "$M"
# b was no peer of a's: discovery found it before the first PUT went
check "and the discovery round that found b" \
	awk '/^lnet_discovery_rounds_done_total / { exit !($2 >= 1) }' "$M"
check "resends are there, none needed" grep -qx 'lnet_resends_total 0' "$M"
check "the file with traffic is valid" valid "$M"
finish
