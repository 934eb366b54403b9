#!/bin/sh
# Apply, Export, Status and Rollback: a list of operations is one change or
# none, a re-run changes nothing, a dry run tells what would change and
# keeps nothing, Export gives back what Apply took, Rollback returns to a
# generation as one new change.  TAP.
set -u
. "$(dirname "$0")/lib.sh"
LNETD=${LNETD:-lnetd/lnetd}

if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root"
	exit 0
fi
start_bus
check "lnetd starts" start_lnetd

# The operations of a small site, in Apply's form.
SITE='a(ssa{sv})b 7
 add net 3 net s tcp interface s lnx9 credits u 32
 add peer 3 primary s 10.0.0.1@tcp nids as 2 10.0.0.2@tcp 10.1.0.1@o2ib multi_rail b true
 add peer 2 primary s 2001:db8::5@tcp nids as 1 2001:db8::6@tcp
 add route 3 net s o2ib9 gateway s 10.0.0.1@tcp hops u 2
 add udsp 2 src s tcp priority u 1
 add udsp 3 dst s 10.0.0.[1-2]@tcp src s 10.0.0.9@tcp priority u 0
 set global 2 name s retry_count value u 2'

# shellcheck disable=SC2086 # the operations are words on purpose
bcall Apply $SITE true
check "a dry run lists what would change" has '+peer 10.0.0.1@tcp'
has '+rule' >/dev/null || not_ok "the dry run lists the rules too"
bprop Generation && check "and keeps nothing" has 't 0'
bcall Export
check "Export of an empty lnetd is empty" has 'ta(ssa{sv}) 0 0'

# shellcheck disable=SC2086
bcall Apply $SITE false
check "Apply takes the whole site as one generation" has 'tas 1 7'
bcall Export
EXPORT1=$OUT
check "Export gives every object back" has '"add" "peer" 3 "primary" s "10.0.0.1@tcp" "multi_rail" b true "nids" as 2 "10.0.0.2@tcp" "10.1.0.1@o2ib"'
has '"add" "udsp" 4 "src" s "10.0.0.9@tcp" "dst" s "10.0.0.[1-2]@tcp" "priority" u 0 "idx" u 1' \
	>/dev/null || not_ok "Export keeps a NID-pair rule as one (src, dst) rule"
has '"add" "peer" 3 "primary" s "2001:db8::5@tcp"' >/dev/null || not_ok "Export keeps IPv6 peers"

# shellcheck disable=SC2086
bcall Apply $SITE false
check "applying the same site again changes nothing" has 'tas 1 0'

bcall Apply 'a(ssa{sv})b' 3 add peer 1 primary s 10.0.0.20@tcp \
	add peer 2 primary s 10.0.0.21@tcp nids as 1 10.0.0.2@tcp \
	add peer 1 primary s 10.0.0.22@tcp false
check "one bad operation refuses the list, naming it and why" \
	has 'operation 2 (add peer): 10.0.0.2@tcp: already a NID of peer 10.0.0.1@tcp'
bcall Export
check "and nothing of the list is kept" test "$OUT" = "$EXPORT1"

bcall SetHealth ssu peer_ni 10.0.0.2@tcp 500
check "SetHealth lowers a peer NI's health" has 'u 1'
bcall AddPeer 'sasa{sv}' 10.0.0.1@tcp 1 10.0.0.2@tcp 1 multi_rail b true
bcall ListPeers
check "a refused change leaves running health alone" has '"10.0.0.2@tcp" 500'
bcall SetHealth ssu peer_ni 10.0.0.2@tcp 1001
check "a health above 1000 is refused" has "health 1001 is above 1000"

bcall Apply 'a(ssa{sv})b' 1 add peer 1 colour s red false
check "an unknown field is refused by name" has "operation 1 (add peer): unknown field 'colour'"
bcall Apply 'a(ssa{sv})b' 1 add peer 1 primary u 5 false
check "a field of the wrong type is refused by name" has "field 'primary' must be a string"
bcall Apply 'a(ssa{sv})b' 1 add route 1 net s tcp3 false
check "a missing field is refused by name" has "operation 1 (add route): field 'gateway' is required"
bcall Apply 'a(ssa{sv})b' 1 set route 0 false
check "a verb the object does not have is refused" has "operation 1 (set route): not an operation"

bcall Apply 'a(ssa{sv})b' 2 del peer 1 primary s 2001:db8::5@tcp \
	del udsp 1 idx u 0 false
check "a list of deletions is one generation" has 'tas 2 2'
bcall Export
has '2001:db8::5' >/dev/null && not_ok "the deleted peer is gone from Export"

bcall Status
check "Status counts what is configured and applied" has '"peer" 1 1'
has '"net" "tcp on lnx9" "interface lnx9 does not exist"' >/dev/null ||
	not_ok "Status says why the NI is pending"

bcall Rollback t 1
check "Rollback to generation 1 is a new generation" has 't 3'
bcall Export
same_as_export1() {
	A=$(echo "$OUT" | cut -d" " -f3-)
	B=$(echo "$EXPORT1" | cut -d" " -f3-)
	[ "$A" = "$B" ] && return 0
	diag "expected: $B" "got: $A"
	return 1
}
check "and the configuration is generation 1's again" same_as_export1
bcall ListRules
check "the mirror follows the rollback" has '"10.0.0.9@tcp" "10.0.0.[1-2]@tcp"'
bcall Rollback t 0
check "Rollback to 0 empties the configuration" has 't 4'
bcall Export
check "and Export is empty" has 'ta(ssa{sv}) 4 0'
bcall Rollback t 99
check "a generation in the future is refused" has "generation 99 is in the future"
bcall Rollback t 3
bcall Export
check "a rollback can itself be rolled back" same_as_export1

# nobody METHOD ARGS...: a dbus-send call as an unprivileged user (it prints the message).
nobody() {
	m=$1
	shift
	OUT=$(setpriv --reuid=65534 --regid=65534 --clear-groups dbus-send \
		--bus="$DBUS_SYSTEM_BUS_ADDRESS" --print-reply --reply-timeout=$((TEST_WAIT * 1000)) \
		--dest=org.lnetd1 /org/lnetd1 "org.lnetd1.Manager.$m" "$@" 2>&1)
}
nobody Rollback uint64:0
check "an unprivileged Rollback is refused, saying why" has "needs root"
OUT=$(setpriv --reuid=65534 --regid=65534 --clear-groups busctl \
	--address="$DBUS_SYSTEM_BUS_ADDRESS" call org.lnetd1 /org/lnetd1 org.lnetd1.Manager \
	Apply 'a(ssa{sv})b' 1 add peer 1 primary s 10.9.9.9@tcp true 2>&1)
check "but may ask for a dry run" has '"+peer 10.9.9.9@tcp"'
nobody SetGlobal string:retry_count uint32:1
check "as is any other change" has "needs root"

stop_lnetd
start_lnetd
bcall Export
check "the state after rollbacks survives a restart" same_as_export1

# The history's bounds: each change prunes what is past them, and a rollback
# past them is refused, naming the oldest generation kept.
stop_lnetd
start_lnetd --history-keep=2
bprop Generation
g=${OUT#t }
for v in 5 6 7; do bcall SetGlobal su retry_count "$v"; done
bcall History u 0
check "--history-keep=2: the history holds the last 2 changes" has "a(txuuss) 2 $((g + 3)) "
bcall Rollback t "$g"
check "a rollback past them is refused, naming the oldest generation kept" \
	has "the oldest generation kept is $((g + 1)) (it keeps the last 2 changes, of the last 90 days)"
bcall Rollback t $((g + 1))
check "one at the horizon goes through" has "t $((g + 4))"

# same_lines A B: the two texts are equal.
same_lines() {
	[ "$1" = "$2" ] && return 0
	diag "expected: $1" "got: $2"
	return 1
}
# A dry run's peers are judged by lnetd's model alone (no row written): it
# lists exactly what the same list then does, NIDs added and removed too.
# shellcheck disable=SC2086
bcall Apply $SITE false
PEERS='a(ssa{sv})b 4
 add peer 2 primary s 10.0.0.1@tcp nids as 1 10.0.0.3@tcp
 del peer 2 primary s 10.0.0.1@tcp nids as 1 10.1.0.1@o2ib
 add peer 1 primary s 10.0.0.30@tcp
 del peer 1 primary s 2001:db8::5@tcp'
bcall Export
BEFORE=$OUT
# shellcheck disable=SC2086
bcall Apply $PEERS true
DRY=$OUT
bcall Export
check "a dry run of peers' NIDs keeps nothing" test "$OUT" = "$BEFORE"
# shellcheck disable=SC2086
bcall Apply $PEERS false
check "it listed what the change then did" same_lines "${DRY#tas * }" "${OUT#tas * }"
has '~peer 10.0.0.1@tcp -nid 10.1.0.1@o2ib' >/dev/null || not_ok "the NIDs are listed"
bcall Export
check "and did it" has '"primary" s "10.0.0.30@tcp"'

# History's reply is bounded: the newest 65,536 entries (LNETD_HISTORY_MAX) that
# fit in 16 MiB (LNETD_HISTORY_BYTES_MAX, counting 64 bytes, the command and the
# summary of each).  Stores with more, written behind lnetd's back (generation =
# the newest entry), served by an lnetd that keeps all of it.
stop_lnetd
if ! command -v sqlite3 >/dev/null; then
	ok "# SKIP History's bounds need sqlite3"
	finish
fi
# history_store DIR N CMDLEN: a store in DIR holding N entries, each command CMDLEN bytes
history_store() {
	start_lnetd --state-dir="$1" && stop_lnetd || return 1
	sqlite3 "$1/lnetd.db" "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n
		WHERE i < $2) INSERT INTO history (gen, time, uid, pid, command, summary, change)
		SELECT i, 1700000000 + i, 0, 1, printf('%.*c', $3, 'x'), '+test', '[]' FROM n;"
}
# entries: how many History u 0 gives; first: the newest one's generation
history_count() {
	busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" --timeout="$TEST_WAIT" call org.lnetd1 \
		/org/lnetd1 org.lnetd1.Manager History u 0 2>&1 | head -c 200 >"$T/hist"
	set -- $(cat "$T/hist")
	entries=${2:-none} first=${3:-none}
}
check "a store of 70,000 entries" history_store "$T/hist70k" 70000 10
check "lnetd keeps them all (--history-keep=0 --history-days=0)" \
	start_lnetd --state-dir="$T/hist70k" --history-keep=0 --history-days=0
history_count
diag "History of 70,000 entries: $entries, the newest $first"
check "History gives the newest 65,536 of them" test "$entries $first" = "65536 70000"
stop_lnetd
# 4,000-byte commands: 16 MiB holds 16777216 / (64 + 4000 + 5) of them
check "a store of 5,000 entries of 4,000-byte commands" history_store "$T/hist4k" 5000 4000
check "lnetd keeps them all" start_lnetd --state-dir="$T/hist4k" --history-keep=0 --history-days=0
history_count
diag "History of 5,000 entries of 4 KB: $entries, the newest $first"
check "History gives the newest that fit in 16 MiB" \
	test "$entries $first" = "$((16777216 / (64 + 4000 + 5))) 5000"
stop_lnetd
finish
