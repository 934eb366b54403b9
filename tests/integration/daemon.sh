#!/bin/sh
# lnetd on a private bus with the userspace engine: its name, properties,
# globals and rules over D-Bus, refusals that name the bad part and change
# nothing, who may change what, history, and persistence across a
# restart.  TAP.
set -u
. "$(dirname "$0")/lib.sh"
LNETD=${LNETD:-lnetd/lnetd}

if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root (to call as another user)"
	exit 0
fi
start_bus
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
	--bus="$DBUS_SYSTEM_BUS_ADDRESS" --print-reply --reply-timeout=5000 --dest=org.lnetd1 \
	/org/lnetd1 org.lnetd1.Manager.SetGlobal string:numa_range uint32:9 2>&1)
check "an unprivileged caller is refused a change, saying why" \
	has "org.freedesktop.DBus.Error.AccessDenied: changing LNet's configuration needs root"
OUT=$(setpriv --reuid=65534 --regid=65534 --clear-groups busctl \
	--address="$DBUS_SYSTEM_BUS_ADDRESS" --timeout=5 call org.lnetd1 /org/lnetd1 \
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
finish
