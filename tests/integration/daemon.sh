#!/bin/sh
# lnetd on a private bus with the userspace engine: its state directory
# (one lnetd at a time, a store refused rather than started over, file
# modes), its name, properties, globals and rules over D-Bus, refusals that
# name the bad part and change nothing, who may change what, history, and
# persistence across a restart.  TAP.  The state directory's part runs as
# any user; the rest needs root (to call as another user).
set -u
. "$(dirname "$0")/lib.sh"
LNETD=${LNETD:-lnetd/lnetd}
root=
[ "$(id -u)" = 0 ] && root=1
BUS2_PID=
# shellcheck disable=SC2317 # called by the trap
stop_all() {
	[ -n "$BUS2_PID" ] && kill "$BUS2_PID" 2>/dev/null
	cleanup
}
trap stop_all EXIT

# A second private bus, where a second lnetd could own org.lnetd1 too.
start_bus2() {
	dbus-daemon --config-file="$T/bus.conf" --address="unix:path=$T/bus2" --nofork \
		--nopidfile --print-address=3 3>"$T/bus2.addr" 2>"$T/bus2.log" &
	BUS2_PID=$!
	wait_until "$TEST_WAIT" test -s "$T/bus2.addr"
}

# lnetd_once DIR [ENV...]: an lnetd that must refuse to start on DIR; its
# status in $rc, what it said in $OUT.  The timeout only ends one that
# wrongly started.
lnetd_once() {
	dir=$1
	shift
	env "$@" timeout 30 "$LNETD" --engine=userspace --state-dir="$dir" 2>"$T/once.log"
	rc=$?
	OUT=$(cat "$T/once.log")
}

# what DIR: the store's files in DIR (lnetd.db, and its -wal, -shm or
# -journal if any), each with its size, mode, mtime and checksum (if this
# user may read it).
what() {
	for f in "$1"/lnetd.db*; do
		[ -f "$f" ] || continue
		printf '%s %s\n' "$(stat -c '%n %s %a %y' "$f")" \
			"$({ cksum <"$f"; } 2>/dev/null || echo unreadable)"
	done
}

start_bus

# --- the state directory: as any user ---------------------------------------

# File modes: 0600 files in a 0700 directory, whatever the umask.
for mask in 022 000; do
	old_mask=$(umask)
	umask $mask
	check "under umask $mask, lnetd starts on a state directory it creates" \
		start_lnetd --state-dir="$T/mode$mask"
	umask "$old_mask"
	d=$T/mode$mask
	OUT=$(stat -c '%n %a' "$d" "$d/lnetd.db" "$d/lnetd.db-wal" "$d/lnetd.db-shm" \
		"$d/lnetd.lock" 2>&1)
	want="$d 700
$d/lnetd.db 600
$d/lnetd.db-wal 600
$d/lnetd.db-shm 600
$d/lnetd.lock 600"
	check "under umask $mask, the directory is 0700; the store, its -wal and -shm, the lock 0600" \
		test "$OUT" = "$want"
	[ "$OUT" = "$want" ] || diag "$OUT"
	stop_lnetd
done
mkdir -m 0750 "$T/mode750"
check "an existing directory keeps its mode" start_lnetd --state-dir="$T/mode750"
stop_lnetd
OUT=$(stat -c %a "$T/mode750")
check "(0750 stays 0750)" test "$OUT" = 750

# A store that is there but is not one is refused, and left as it was: only a
# missing lnetd.db is a fresh start.
mkdir "$T/empty"
: >"$T/empty/lnetd.db"
before=$(what "$T/empty")
lnetd_once "$T/empty"
check "a zero-length lnetd.db is refused" test "$rc" = 1
check "saying it is empty and how to start over on purpose" \
	has "$T/empty/lnetd.db is empty (0 bytes): it is not a store lnetd wrote; to start over with an empty configuration, move it aside"
check "and it stays zero-length, no -wal, -shm or -journal created" test "$(what "$T/empty")" = "$before"
[ "$(what "$T/empty")" = "$before" ] || diag "before: $before" "after: $(what "$T/empty")"

mkdir "$T/garbage"
head -c 10000 /dev/urandom >"$T/garbage/lnetd.db"
before=$(what "$T/garbage")
lnetd_once "$T/garbage"
check "random bytes in lnetd.db are refused" test "$rc" = 1
check "saying it is not SQLite and how to start over on purpose" \
	has "$T/garbage/lnetd.db is not an SQLite database; to start over with an empty configuration, move it aside"
check "and the file is untouched, no -wal, -shm or -journal created" test "$(what "$T/garbage")" = "$before"

mkdir "$T/denied"
sqlite3 "$T/denied/lnetd.db" 'PRAGMA user_version = 1;'
chmod 0600 "$T/denied/lnetd.db"
if [ -n "$root" ]; then
	# Root reads any file: the lnetd refused is another user's.
	chown 65534:65534 "$T/denied"
	before=$(what "$T/denied")
	lnetd_once "$T/denied" setpriv --reuid=65534 --regid=65534 --clear-groups
else
	chmod 0000 "$T/denied/lnetd.db"
	before=$(what "$T/denied")
	lnetd_once "$T/denied"
fi
check "an lnetd.db lnetd may not read and write is refused" test "$rc" = 1
check "saying why and how to start over on purpose" \
	has "$T/denied/lnetd.db: cannot open it for reading and writing: Permission denied; fix its owner and mode, or, to start over with an empty configuration, move it aside"
check "and nothing is changed" test "$(what "$T/denied")" = "$before"

# One lnetd per state directory: a second one, on a bus of its own where it
# could own org.lnetd1 too, refuses before it opens anything.
start_bus2
check "lnetd starts on a state directory" start_lnetd --state-dir="$T/one"
if [ -n "$root" ]; then
	bcall SetGlobal su numa_range 3
	check "and makes a change" has 't 1'
fi
bprop Generation
gen=$OUT
before=$(what "$T/one")
lnetd_once "$T/one" DBUS_SYSTEM_BUS_ADDRESS="unix:path=$T/bus2"
check "a second lnetd on the same state directory exits non-zero" test "$rc" = 1
check "naming the first one's pid" \
	has "lnetd: the state directory $T/one is in use by another lnetd (pid $LNETD_PID); stop it first, or give this one a --state-dir of its own"
check "having changed nothing (the store, its -wal and -shm)" \
	test "$(what "$T/one")" = "$before"
[ "$(what "$T/one")" = "$before" ] || diag "before: $before" "after: $(what "$T/one")"
check "and having said only that (it went no further)" test "$(wc -l <"$T/once.log")" = 1
bprop Generation
check "the first one's history is as it was" test "$OUT" = "$gen"
kill -9 "$LNETD_PID"
wait "$LNETD_PID" 2>/dev/null
LNETD_PID=
check "after the first is killed (-9), lnetd starts there again" start_lnetd --state-dir="$T/one"
bprop Generation
check "(on the same store)" test "$OUT" = "$gen"
stop_lnetd

# --- the bus API: as root -----------------------------------------------------

if [ -z "$root" ]; then
	ok "# SKIP the rest needs root (to call as another user)"
	finish
fi
check "lnetd starts and owns org.lnetd1" start_lnetd

OUT=$(busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" --xml-interface introspect org.lnetd1 \
	/org/lnetd1 2>&1)
check "the bus API is exactly the contract in schema/org.lnetd1.Manager.xml" \
	test "$OUT" = "$(cat "${TOP_SRCDIR:-../..}/schema/org.lnetd1.Manager.xml")"
bprop Engine && check "the Engine property says userspace" has '"userspace"'
bprop Generation && check "a new store is at generation 0" has 't 0'

bcall SetGlobal su numa_range 5
check "SetGlobal changes a global and returns the new generation" has 't 1'
bcall ListGlobals
check "ListGlobals shows it" has '"numa_range" 5'
bprop Generation && check "the Generation property follows" has 't 1'

bsend SetGlobal string:no_such_thing uint32:1
check "an unknown global is NotFound, named" \
	has "org.lnetd1.Error.NotFound: no global setting is called 'no_such_thing'"
bsend SetGlobal string:retry_count uint32:500
check "an out-of-range value is OutOfRange, with the range" \
	has "org.lnetd1.Error.OutOfRange: retry_count: 500 is outside 0..200"
bprop Generation && check "refusals change nothing" has 't 1'

bcall AddRule 'sssa{sv}' o2ib "" "" 1 priority u 0
check "AddRule appends a net rule" has 'ubt 0 false 2'
bcall AddRule 'sssa{sv}' "10.0.0.[1-4]@tcp" "" "" 2 priority u 1 idx u 0
check "AddRule inserts at idx 0" has 'ubt 0 false 3'
bcall ListRules
check "ListRules gives canonical expressions in order" \
	has '2 0 "10.0.0.[1-4]@tcp" "" "" 2 "kind" s "local NID priority" "priority" u 1 1 "o2ib"'
bcall AddRule 'sssa{sv}' o2ib "" "" 1 priority u 7
check "the same expressions update the priority in place" has 'ubt 1 true 4'
bcall AddRule 'sssa{sv}' "10.0.0.[5-2]@tcp" "" "" 1 priority u 1
check "a bad expression is refused with the engine's sentence" \
	has "src 10.0.0.[5-2]@tcp: range start 5 is above its end 2"
bcall AddRule 'sssa{sv}' tcp "" "" 1 colour s red
check "an unknown option is refused by name" has "AddRule: unknown field 'colour'"
bcall AddRule 'sssa{sv}' "" "" "10.0.0.1@tcp" 1 priority u 1
check "a rule of no known kind is refused, saying which kinds exist" \
	has "a rule takes --src, --dst, --src with --dst, or --dst with --rte"
bcall DeleteRule u 9
check "deleting a missing rule is NotFound" has "there is no rule 9"
bprop Generation && check "still nothing changed" has 't 4'

OUT=$(setpriv --reuid=65534 --regid=65534 --clear-groups dbus-send \
	--bus="$DBUS_SYSTEM_BUS_ADDRESS" --print-reply --reply-timeout=$((TEST_WAIT * 1000)) --dest=org.lnetd1 \
	/org/lnetd1 org.lnetd1.Manager.SetGlobal string:numa_range uint32:9 2>&1)
check "an unprivileged caller is refused a change, saying why" \
	has "org.freedesktop.DBus.Error.AccessDenied: changing LNet's configuration needs root"
OUT=$(setpriv --reuid=65534 --regid=65534 --clear-groups busctl \
	--address="$DBUS_SYSTEM_BUS_ADDRESS" --timeout="$TEST_WAIT" call org.lnetd1 /org/lnetd1 \
	org.lnetd1.Manager ListGlobals 2>&1)
check "but may read" has '"numa_range" 5'

bcall History u 10
check "History lists the changes, newest first" has 'a(txuuss) 4 4 '
if has '"~rule 1"' >/dev/null && has '"+global numa_range"' >/dev/null; then
	ok "History summaries say what changed"
else
	not_ok "History summaries say what changed"
fi
has 'busctl --address' >/dev/null || not_ok "History names the command that asked"

stop_lnetd
check "SIGTERM stops lnetd cleanly" test "$LNETD_RC" = 0
check "lnetd starts again on the same store" start_lnetd
bprop Generation && check "the generation survived the restart" has 't 4'
bcall ListRules
check "the rules survived the restart" has '2 0 "10.0.0.[1-4]@tcp"'
has '"o2ib" "" "" 2 "kind" s "local net priority" "priority" u 7' >/dev/null ||
	not_ok "with their priorities"
bcall ListGlobals
check "the globals survived the restart" has '"numa_range" 5'

bcall DeleteAllRules
check "DeleteAllRules" has 't 5'
stop_lnetd

# The store keeps only primary NIDs unique (schema 0006): a NID two peers
# share, written behind lnetd's back, is refused at start, naming both.
cp -a "$T/state" "$T/shared"
sqlite3 "$T/shared/lnetd.db" "INSERT INTO peer (nid, mr, nids) VALUES \
	('10.9.0.1@tcp', 1, '10.9.0.3@tcp '), ('10.9.0.2@tcp', 1, '10.9.0.3@tcp ');"
"$LNETD" --engine=userspace --state-dir="$T/shared" 2>"$T/shared.log"
rc=$?
OUT=$(cat "$T/shared.log")
check "a NID two stored peers share is refused at start" test "$rc" = 1
has "peer 10.9.0.2@tcp refused by the engine: 10.9.0.3@tcp: already a NID of peer 10.9.0.1@tcp" \
	>/dev/null || not_ok "the refusal names the NID and both peers"

sqlite3 "$T/state/lnetd.db" 'PRAGMA user_version=99;'
"$LNETD" --engine=userspace --state-dir="$T/state" 2>"$T/newer.log"
rc=$?
OUT=$(cat "$T/newer.log")
check "a database newer than the code is refused" test "$rc" = 1
has "99" >/dev/null || not_ok "the refusal names the database's version"

"$LNETD" --engine=bogus 2>"$T/bogus.log"
rc=$?
OUT=$(cat "$T/bogus.log")
check "a bad --engine is a usage error naming it" test "$rc" = 2
has "bogus" >/dev/null || not_ok "the message names the bad value"
# The log: plain lines on a terminal or file, journal priorities when stderr
# is the stream systemd gave the journal (JOURNAL_STREAM names its dev:ino).
grep -q '^lnetd: serving org.lnetd1' "$T/lnetd.log"
check "lnetd logs plain lines when stderr is not the journal" test $? = 0
: >"$T/journal.log"
js=$(stat -c '%d:%i' "$T/journal.log")
JOURNAL_STREAM=$js "$LNETD" --engine=userspace --state-dir="$T/jstate" 2>>"$T/journal.log" &
jpid=$!
wait_until "$TEST_WAIT" eval "grep -q serving '$T/journal.log' || ! kill -0 $jpid 2>/dev/null"
kill -TERM "$jpid"
wait "$jpid"
OUT=$(cat "$T/journal.log")
check "to the journal, lnetd's lines carry their priority (<6> info)" has '<6>lnetd: serving org.lnetd1'
: >"$T/other.log"
JOURNAL_STREAM=$js "$LNETD" --engine=bogus 2>>"$T/other.log"
OUT=$(cat "$T/other.log")
check "a JOURNAL_STREAM that is not stderr gets plain lines" has "lnetd: --engine: 'bogus'"
case $OUT in *'<3>'*) not_ok "no priority prefix on a stream that is not the journal" ;; esac
finish
