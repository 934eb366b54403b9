#!/bin/sh
# direct: org.lnetd1 on lnetd's own socket (lnetd --private-socket), where
# root's lnetctl goes peer to peer, skipping dbus-daemon (lnetd(8),
# lnetctl(8)).  Who may connect, how many at once, what the calls may carry,
# the fall back to the bus, and the socket's life.  TAP.
set -u
. "$(dirname "$0")/lib.sh"
LNETD=${LNETD:-lnetd/lnetd}
LNETCTL=${LNETCTL:-lnetctl/lnetctl}
HOSTILE=${HOSTILE:-tests/integration/hostile}
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
root=
[ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 && root=1
S=$T/run/private

# ctl ARGS...: lnetctl on lnetd's socket; output in $OUT, status in $RC.
ctl() {
	OUT=$(LNETD_PRIVATE_SOCKET=$S "$LNETCTL" "$@" 2>&1)
	RC=$?
}

# lnetd_bad ARGS...: an lnetd that must refuse its command line; output in $OUT.
lnetd_bad() {
	OUT=$("$LNETD" --engine=userspace --state-dir="$T/bad" "$@" 2>&1)
	RC=$?
}

lnetd_bad --private-socket=run/private
check "a relative --private-socket is refused (exit 2)" test "$RC" = 2
check "... naming it" has "--private-socket: 'run/private' is not an absolute path"
lnetd_bad --private-socket="/$(printf '%0200d' 0)"
check "a --private-socket longer than a socket address takes is refused" test "$RC" = 2
check "... naming the bound" has "of at most 107 bytes"
check "... and no state directory was made" test ! -e "$T/bad"

start_bus
check "lnetd starts with --private-socket in a directory it makes" \
	start_lnetd --private-socket="$S"
check "the socket is there" test -S "$S"
check "mode 0600, owned by lnetd's user" \
	test "$(stat -c '%a %u' "$S")" = "600 $(id -u)"

ctl udsp add --src 10.70.0.1@tcp --priority 3
check "a change on the socket works" test "$RC" = 0
ctl udsp show
check "and reads it back" has "src: 10.70.0.1@tcp"
ctl history
check "history names the caller's uid" has "uid: $(id -u)"
check "and its command line (from its pid, as SO_PEERCRED gives it)" \
	has "udsp add --src 10.70.0.1@tcp --priority 3"
bcall Export
check "the bus sees the same configuration" has "10.70.0.1@tcp"

# Bounds: a call on the socket is measured as one on the bus is.
OUT=$(HOSTILE_DIRECT=$S "$HOSTILE" long-string 5000 2>&1)
check "a 5,000-byte string on the socket is refused, naming the bound" \
	has "LimitReached: argument 1 holds a string of 5000 bytes; lnetd takes at most 4096"
OUT=$(HOSTILE_DIRECT=$S "$HOSTILE" peer-nids 1025 2>&1)
check "a peer of 1,025 NIDs on the socket is refused the same way" \
	has "'nids' lists more than 1024 entries"

# At most LNETD_DIRECT_MAX (64) connections: the 65th is closed, and
# lnetctl then goes through the bus.
mkfifo "$T/hold"
HOSTILE_DIRECT=$S "$HOSTILE" hold 70 <"$T/hold" >"$T/held" 2>&1 &
held=$!
exec 7>"$T/hold"
wait_until "$TEST_WAIT" test -s "$T/held"
OUT=$(cat "$T/held")
check "lnetd serves 64 connections at once and closes the rest" has "served 64 of 70"
ctl global show
check "with 64 held, lnetctl still gets its answer (through the bus)" test "$RC" = 0
exec 7>&-
wait "$held"
ctl udsp add --src 10.70.0.2@tcp --priority 3
check "and once they are closed the socket serves again" test "$RC" = 0
OUT=$(cat "$T/lnetd.log")
check "lnetd logged the connections it closed" has "64 connections already"

if [ -n "$root" ]; then
	OUT=$($NOBODY env LNETD_PRIVATE_SOCKET="$S" "$LNETCTL" global show 2>&1)
	check "an unprivileged lnetctl cannot open the socket and reads through the bus" \
		has "global:"
	OUT=$($NOBODY env LNETD_PRIVATE_SOCKET="$S" "$LNETCTL" udsp del --all 2>&1)
	check "its change is refused there, as root's is not" has "permission denied"
	# Even through a socket someone opened up, lnetd takes root and its own user only.
	chmod 0755 "$T/run"
	chmod 0666 "$S"
	OUT=$($NOBODY env HOSTILE_DIRECT="$S" "$HOSTILE" hold 1 </dev/null 2>&1)
	check "a socket made world-writable still refuses another user" has "served 0 of 1"
	OUT=$(cat "$T/lnetd.log")
	check "... logging the uid it refused" has "refused a connection from uid 65534: root only"
	ctl udsp show
	check "and the rules are as root left them" has "src: 10.70.0.2@tcp"
fi

# A second lnetd (its own state and bus) given the same path leaves the
# first one's socket alone.
mkdir "$T/bus2"
dbus-daemon --config-file="$T/bus.conf" --address="unix:path=$T/bus2/bus" --nofork --nopidfile \
	2>/dev/null &
bus2=$!
wait_until "$TEST_WAIT" test -S "$T/bus2/bus"
DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/bus2/bus "$LNETD" --engine=userspace --state-dir="$T/two" \
	--private-socket="$S" 2>"$T/two.log" &
two=$!
wait_until "$TEST_WAIT" grep -q "cannot listen on" "$T/two.log"
OUT=$(cat "$T/two.log")
check "a second lnetd on the same path says it is in use and runs without it" \
	has "cannot listen on $S: Address already in use; lnetctl will use the system bus"
ctl udsp show
check "and the first one still answers there" has "src: 10.70.0.2@tcp"
kill "$two" "$bus2"
wait "$two" "$bus2" 2>/dev/null
check "the second one's stop leaves the first one's socket" test -S "$S"
ctl udsp show
check "... serving" has "src: 10.70.0.2@tcp"

# Is it really peer to peer?  With dbus-daemon gone, the socket still answers.
kill "$BUS_PID"
wait "$BUS_PID" 2>/dev/null
BUS_PID=
ctl udsp show
check "with no dbus-daemon, lnetctl on the socket still reads" has "src: 10.70.0.1@tcp"
ctl udsp add --src 10.70.0.3@tcp --priority 3
check "and changes" test "$RC" = 0
OUT=$(LNETD_PRIVATE_SOCKET= "$LNETCTL" udsp show 2>&1)
RC=$?
check "while lnetctl on the bus finds no lnetd (exit 3)" test "$RC" = 3
check "... saying so" has "lnetd is not running"
OUT=$(LNETD_PRIVATE_SOCKET=$T/nothing-here "$LNETCTL" udsp show 2>&1)
check "a socket path with nothing there is no error of its own: lnetd is not running" has "lnetd is not running"

# A stop removes the socket; a kill -9 leaves it, and the next lnetd takes its place.
stop_lnetd
check "a stop removes the socket" test ! -e "$S"
rm -f "$T/bus" "$T/bus.addr"
start_bus
check "lnetd starts again" start_lnetd --private-socket="$S"
kill -9 "$LNETD_PID"
wait "$LNETD_PID" 2>/dev/null
LNETD_PID=
check "a kill -9 leaves the socket behind" test -S "$S"
check "the next lnetd starts over it" start_lnetd --private-socket="$S"
ctl udsp show
check "and serves it, with the configuration kept" has "src: 10.70.0.3@tcp"
stop_lnetd

# Anything else at the path is not lnetd's to remove: it starts without the socket.
echo precious >"$S"
check "with a file at the path, lnetd still starts" start_lnetd --private-socket="$S"
check "the file is untouched" test "$(cat "$S")" = precious
OUT=$(cat "$T/lnetd.log")
check "lnetd says it cannot listen there and why" \
	has "cannot listen on $S: File exists; lnetctl will use the system bus"
ctl udsp show
check "and lnetctl gets its answer through the bus" has "src: 10.70.0.3@tcp"
stop_lnetd
finish
