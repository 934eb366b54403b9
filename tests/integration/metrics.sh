#!/bin/sh
# lnetd --metrics-file: the node_exporter textfile lnetd keeps current.
# A real lnetd on a private bus writes it at start, after each change and
# every interval; promtool (Debian's prometheus) checks every version of it;
# it says what is configured, pending and why, TBF rules, health; every
# family in it is named in lnetd(8) METRICS, the node's under the Lustre
# exporters' lustre_* names; peer NIs' series only with --metrics-peers; a
# burst of changes writes it no more than once a second (counted by its own
# lnetd_metrics_writes_total, bounded by the burst's measured time); the
# objects' counts, kept from each change, are what a restart counts afresh;
# with the kernel engine and no module it is still valid and names the
# module as pending.  Then a fabric of two userspace-engine nodes in network
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
"$LNETD" --engine=userspace --state-dir="$T/x" --metrics-peers 2>"$T/err"
check "--metrics-peers without --metrics-file is a usage error" test $? = 2
OUT=$(cat "$T/err")
check "saying so" has "--metrics-peers: there is no --metrics-file to put them in"
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
check "the node's messages under lustre_exporter's name and labels" grep -qxF \
	'lustre_send_count_total{component="lnet",target="lnet"} 0' "$M"
check "and the messages allocated now" grep -qxF \
	'lustre_allocated{component="lnet",target="lnet"} 0' "$M"
check "none of the node's old lnet_* names" sh -c "! grep -q '^lnet_sent_messages_total' '$M'"
check "the file counts its own writes" grep -qx 'lnetd_metrics_writes_total [1-9][0-9]*' "$M"

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
check "the peer is counted" wait_metric "$M" 'lnet_config_objects{kind="peer"} 1'
check "but without --metrics-peers no peer NI series" sh -c "! grep -q '^lnet_peer_ni_' '$M'"
bcall TbfCommand ss ost_io 'reg start io nid={10.79.0.[1-9]@tcp} rate=500'
check "a TBF rule: its rate" wait_metric "$M" \
	'lnet_tbf_rule_rate{service="ost_io",queue="reg",rule="io"} 500'
check "and its counters" grep -qxF \
	'lnet_tbf_rule_dispatched_total{service="ost_io",queue="reg",rule="io"} 0' "$M"
check "the file is still valid" valid "$M"

# documented NAME: NAME is one of lnetd(8) METRICS' families (brace forms
# expanded, a '*' matching the rest of a name).  The section, its macros'
# words joined, label sets ({nid,net}) dropped.
DOC=${TOP_SRCDIR:-../..}/man/lnetd.8
awk '/^\.SH METRICS/ { on = 1; next } on && /^\.SH / { exit }
	on && /^\.B/ { sub(/^\.[A-Z]+ /, ""); gsub(/ *", " */, "\n"); gsub(/[ "\\]/, ""); print; next }
	on' "$DOC" |
	grep -Eo '(lnetd?|lustre)_[a-z_{},*]*' | sed -E 's/,+$//; s/\{[a-z,]+\}$//' |
	while read -r w; do bash -c "set -f; printf '%s\n' $w"; done | sort -u >"$T/documented"
documented() {
	while read -r pat; do
		# shellcheck disable=SC2254
		case $1 in $pat) return 0 ;; esac
	done <"$T/documented"
	diag "$1 is not in lnetd(8) METRICS"
	return 1
}
diag "lnetd(8) METRICS names $(wc -l <"$T/documented") families"
stop_lnetd
check "lnetd stops" test "$LNETD_RC" = 0
check "and takes the file away (a stopped lnetd exports nothing)" test ! -e "$M"
check "leaving no temporary file" test ! -e "$M.tmp"

# --metrics-peers: the peer NIs' series again
check "lnetd starts with --metrics-peers" start_lnetd --metrics-file="$M" --metrics-peers \
	--metrics-interval=1
bcall SetHealth ssu peer_ni 10.79.0.10@tcp 250
check "a peer NI's health, as set" wait_metric "$M" \
	'lnet_peer_ni_health{nid="10.79.0.10@tcp",net="tcp",peer="10.79.0.9@tcp"} 250'
check "and the other NI of the peer" grep -q '^lnet_peer_ni_health{nid="10.79.0.9@tcp",' "$M"
check "valid" valid "$M"
grep '^# TYPE ' "$M" | cut -d' ' -f3 >"$T/families"
undoc=0
while read -r f; do documented "$f" || undoc=$((undoc + 1)); done <"$T/families"
check "each of its $(wc -l <"$T/families") families is named in lnetd(8) METRICS" test "$undoc" = 0
check "the lustre_* ones too" grep -qx lustre_route_bytes_total "$T/families"

# A burst of changes: writes 1 s apart at least (LNETD_METRICS_GAP_MS), so
# the writes from the first change on are at most the burst's measured
# seconds, rounded up, plus one, however slow the machine is.
# field NAME FILE: NAME's sample value (no labels)
field() { awk -v n="$1" '$1 == n { print $2 }' "$2"; }
gen_of() { awk -F'} ' '/^lnet_config_generation\{/ { print $2 }' "$1"; }
cp "$M" "$T/before"
w0=$(field lnetd_metrics_writes_total "$T/before")
g0=$(gen_of "$T/before")
t0=$(date +%s%N)
i=1
while [ $i -le 20 ]; do
	"$LNETCTL" peer add --prim_nid "10.80.0.$i@tcp" >/dev/null 2>&1 &
	i=$((i + 1))
done
wait_burst() { cp "$M" "$T/after" && [ "$(gen_of "$T/after")" = $((g0 + 20)) ]; }
check "20 changes at once, all in the file" wait_until "$TEST_WAIT" wait_burst
t1=$(date +%s%N)
w1=$(field lnetd_metrics_writes_total "$T/after")
most=$(awk -v a="$t0" -v b="$t1" 'BEGIN { s = (b - a) / 1e9; c = int(s); if (c < s) c++; print c + 1 }')
diag "20 changes in $(((t1 - t0) / 1000000)) ms: $((w1 - w0)) writes, at most $most allowed"
check "written again" test "$((w1 - w0))" -ge 1
check "at most once a second" test "$((w1 - w0))" -le "$most"

# The objects' counts kept change by change are what a restart counts afresh.
i=1
while [ $i -le 5 ]; do
	"$LNETCTL" peer del --prim_nid "10.80.0.$i@tcp" >/dev/null 2>&1
	i=$((i + 1))
done
"$LNETCTL" set retry_count 3 >/dev/null 2>&1
"$LNETCTL" rollback $((g0 + 20)) >/dev/null 2>&1
"$LNETCTL" peer add --prim_nid 10.81.0.1@tcp --nid 10.81.0.2@tcp >/dev/null 2>&1
"$LNETCTL" peer add --prim_nid 10.81.0.1@tcp --nid 10.81.0.3@tcp >/dev/null 2>&1
bprop Generation
g=$(printf '%s' "$OUT" | awk '{ print $2 }')
check "after $((g - g0 - 20)) more changes" wait_metric "$M" "lnet_config_generation{engine=\"userspace\"} $g"
grep '^lnet_config_objects{' "$M" >"$T/kept"
check "22 peers counted" grep -qxF 'lnet_config_objects{kind="peer"} 22' "$T/kept"
stop_lnetd
check "lnetd starts again" start_lnetd --metrics-file="$M"
grep '^lnet_config_objects{' "$M" >"$T/fresh"
check "the counts kept are the counts afresh" cmp "$T/kept" "$T/fresh"

# At site scale (50,000 peers of 2 NIDs, issue 31): without --metrics-peers the
# file has the very samples it had before them, at the same size but for
# digits; with it, one health sample per peer NI.
# Under ASan (scripts/bootstrap --enable-sanitizers) lnetctl takes minutes to
# import them: 5,000 there (the samples must be as many whatever the number).
PEERS=50000
ldd "$LNETCTL" 2>/dev/null | grep -q libasan && PEERS=5000
PEERS=${METRICS_SCALE_PEERS:-$PEERS}
awk -v n="$PEERS" 'BEGIN {
	print "peer:"
	for (i = 0; i < n; i++) {
		a = int(i / 65536); b = int(i / 256) % 256; d = i % 256
		printf "    - primary nid: 12.%d.%d.%d@tcp\n      Multi-Rail: True\n", a, b, d
		printf "      peer ni:\n        - nid: 12.%d.%d.%d@tcp\n", a, b, d
		printf "        - nid: 13.%d.%d.%d@tcp\n", a, b, d
	}
}' >"$T/peers.yaml"
s0=$(grep -vc '^#' "$M")
b0=$(wc -c <"$M")
OUT=$("$LNETCTL" import "$T/peers.yaml" 2>&1)
check "$PEERS peers imported" test $? = 0
check "counted" wait_metric "$M" "lnet_config_objects{kind=\"peer\"} $((PEERS + 22))"
s1=$(grep -vc '^#' "$M")
b1=$(wc -c <"$M")
diag "without --metrics-peers: $s0 samples, $b0 bytes before; $s1 samples, $b1 bytes with $PEERS peers more"
check "as many samples as before the peers" test "$s1" = "$s0"
check "and as many bytes but for digits" test "$b1" -le $((b0 + 100))
stop_lnetd
check "lnetd starts on them with --metrics-peers" start_lnetd --metrics-file="$M" --metrics-peers
pnis=$(grep -c '^lnet_peer_ni_health{nid="1[23]\.' "$M")
diag "with --metrics-peers: $(grep -vc '^#' "$M") samples, $(wc -c <"$M") bytes"
check "a health sample for each of their $((2 * PEERS)) peer NIs" test "$pnis" = $((2 * PEERS))
check "valid" valid "$M"
stop_lnetd

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
check "node a starts with --metrics-file" node_start a --metrics-file="$M" --metrics-interval=1 \
	--metrics-peers
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
