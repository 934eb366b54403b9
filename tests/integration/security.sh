#!/bin/sh
# security: what an unprivileged local user can do to lnetd (issue 13).
# Every call here comes from uid 65534 (or, run as a normal user, from
# that user), against an lnetd of the test's own on a private bus: the
# calls must be answered, refused where they should be, and leave lnetd
# alive and its configuration as it was.  The calls are built by
# tests/integration/hostile.  TAP.
set -u
. "$(dirname "$0")/lib.sh"
LNETD=${LNETD:-lnetd/lnetd}
HOSTILE=${HOSTILE:-tests/integration/hostile}
if [ "$(id -u)" = 0 ]; then
	if ! id nobody >/dev/null 2>&1; then
		echo "1..0 # SKIP needs the nobody user to call as"
		exit 0
	fi
	AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
else
	AS=
fi

# hostile ARGS...: as the unprivileged user; its output in $OUT, status in $RC.
hostile() {
	OUT=$($AS "$HOSTILE" "$@" 2>&1)
	RC=$?
}

alive() {
	kill -0 "$LNETD_PID" 2>/dev/null && bcall Status && has "userspace"
}

start_bus
check "lnetd starts" start_lnetd
# Root seeds one peer; a normal user cannot (lnetd takes changes from root
# only here), and the calls below run against an empty configuration.
if [ "$(id -u)" = 0 ]; then
	bcall Apply 'a(ssa{sv})b' 1 add peer 2 primary s 10.9.0.1@tcp nids as 1 10.9.0.2@tcp false
	check "root configures one peer" has "tas 1 1"
fi
bcall Export
before=$OUT

# 1. A good dry run, then one whose last operation is unknown, three times:
#    the refused list's slots were freed uninitialised (a heap corruption).
hostile corrupt 3
check "a dry run refused for a bogus operation is answered, every time" \
	test "$RC" = 0
check "the refusal names the bogus operation" \
	has "operation 3 (bogus peer): not an operation"
check "lnetd is alive after the refused dry runs" alive

# 2. One peer with 100,000 NIDs: refused as it is read, naming the bound.
hostile peer-nids 100000 dry
check "a peer of 100,000 NIDs is answered" test "$RC" = 0
check "... refused for the NIDs-per-peer bound, naming the field" \
	has "LimitReached: operation 1 (add peer): 'nids' lists more than 1024 entries"
hostile peer-nids 1025
check "the same bound holds for a change (refused before authorisation)" \
	has "'nids' lists more than 1024 entries"

# 3. Strings longer than any lnetd takes are refused before a method sees them.
hostile long-string 5000
check "a 5,000-byte string is refused, naming its argument and the bound" \
	has "LimitReached: argument 1 holds a string of 5000 bytes; lnetd takes at most 4096"
hostile long-string 4096
check "a 4,096-byte string reaches the method (refused there: not allowed to change)" \
	has "AccessDenied"

# Apply and ApplyWith are not walked before they run: their reader holds
# each string to the same bound as it reads, naming the operation and field.
hostile long-nid 5000
check "Apply: a 5,000-byte primary NID is refused, naming the operation and the bound" \
	has "LimitReached: operation 1 (add peer): field 'primary' holds a string of 5000 bytes; lnetd takes at most 4096"
check "Apply: a 5,000-byte NID in a list is refused the same way" \
	has "LimitReached: operation 1 (add peer): field 'nids' holds a string of 5000 bytes"
hostile long-nid 4096
check "Apply: a 4,096-byte NID reaches the judging, which refuses it as no NID" \
	eval 'case $OUT in *LimitReached*) false ;; *"long NID: org.lnetd1.Error.Invalid"*) true ;; *) has "long NID: org.lnetd1.Error.Invalid" ;; esac'

# 4. A dry run larger than an unprivileged caller may ask for.
hostile ops 40000
check "a dry run of 40,000 operations from an unprivileged caller is answered" \
	test "$RC" = 0
check "... refused: it needs the right to change, and the refusal says why" \
	has "a dry run of more than 16384 operations and listed NIDs or rules (this one: 80000)"
hostile ops 100
check "a dry run of 100 operations is still anyone's" has "many operations: ok"

# 5. A variant nested as deep as sd-bus builds one.
hostile deep
check "a deeply nested variant is answered" test "$RC" = 0

check "lnetd is alive at the end" alive
bcall Export
check "nothing changed: the configuration is as it was" test "$OUT" = "$before"
if [ "$(id -u)" = 0 ]; then
	check "generation 1, one peer" has "ta(ssa{sv}) 1 1 \"add\" \"peer\""
fi
finish
