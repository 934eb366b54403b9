#!/bin/sh
# A node's counters on the bus (Counters) are one record per NID and role:
# a node's own NID is counted as its local NI and, when the node pings it
# (local NI recovery pings the NI's own NID), as a peer NI too.  Those are
# two records, whatever order the engine lists them in; run together they
# read as one (issue 35: a0's counters were seen reading 0 while its link
# carried the traffic).  One node with one NI and no peer has exactly these
# two entries, so they always come one after the other.  TAP.
set -u
NS_PREFIX=lnc
. "$(dirname "$0")/nodes-tap.sh"

node_ns a b || {
	echo "1..0 # SKIP cannot make network namespaces"
	exit 0
}
node_link a a0 b b0 10.79.0 || exit 1
check "node a starts" node_start a
on a net add --net tcp --if a0
check "a: one NI on tcp" test "$RC" = 0
check "a's NI is up" node_up a
# records: "NID LOCAL ENTRIES" for each of Counters' per-NID records
records() {
	busctl --address="unix:path=$T/a.bus" --timeout="$TEST_WAIT" call org.lnetd1 /org/lnetd1 \
		org.lnetd1.Manager Counters | tr ' ' '\n' |
		awk '/^"[0-9.]+@tcp"$/ { n = $0; getline l; getline c; print n, l, c }'
}
sent() { # what a's NI has sent, as net show -v reads it
	node_ctl a net show -v 2>/dev/null | awk '$1 == "send_count:" { print $2; exit }'
}
sent_some() { [ "$(sent)" -ge 1 ] 2>/dev/null; }
# below 1000, the NI is pinged by its recovery, from itself to itself
on a net set --nid 10.79.0.1@tcp --health 0
check "a sets its NI's health to 0" test "$RC" = 0
check "recovery pings the NI's own NID" wait_until "$TEST_WAIT" sent_some
records >"$T/records"
sed 's/^/# /' "$T/records"
check "the NID as a local NI is one record" \
	test "$(grep -c '^"10.79.0.1@tcp" true ' "$T/records")" = 1
check "the NID as a peer NI is another" \
	test "$(grep -c '^"10.79.0.1@tcp" false ' "$T/records")" = 1
check "each record holds one set of counters" \
	awk '$3 != 18 { exit 1 }' "$T/records"
check "net show -v reads the local NI's" test "$(sent)" -ge 1
finish
