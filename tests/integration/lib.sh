# shellcheck shell=sh
# The integration tier's helpers: a private dbus-daemon, an lnetd with the
# userspace engine and a state dir of the test's own, busctl calls with a
# timeout (a call that hangs fails, never waits for ever), waits for a
# condition, and TAP output.  Sourced by each test; $LNETD is the daemon
# under test (the build's lnetd/lnetd).
#
# No verdict may depend on the machine's speed or load: a test waits for
# the condition it asserts (wait_until), never for a time, and every bound
# (TEST_WAIT seconds, a call's timeout) only turns a hang into a failure.
# TEST_WAIT is generous on purpose: a machine running two test suites and a
# TCG guest at once is slower, not wrong.

T=$(mktemp -d "${TMPDIR:-/tmp}/lnetd-it.XXXXXX")
chmod 755 "$T"
BUS_PID=
LNETD_PID=
n=0
failed=0

cleanup() {
	[ -n "$LNETD_PID" ] && kill "$LNETD_PID" 2>/dev/null
	[ -n "$BUS_PID" ] && kill "$BUS_PID" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

TEST_WAIT=${TEST_WAIT:-120}

ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }
# check DESCRIPTION COMMAND...: one TAP line from a command's status
check() {
	d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}

# wait_until SECONDS COMMAND...: poll COMMAND until it succeeds; 1 if it has
# not after SECONDS (nodes.sh has the same, for the scripts that source it
# alone).
wait_until() {
	_wu_end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$_wu_end" ] || return 1
		sleep 0.05
	done
}

# quiet COMMAND...: COMMAND, its output dropped (for check and wait_until,
# whose own output is the TAP line)
quiet() { "$@" >/dev/null 2>&1; }

# A bus of the test's own, with the stock session policy (its
# eavesdrop rules are what lets method replies through, see TESTING.md).
start_bus() {
	# ... plus leave to connect for every uid, as the system bus gives, so
	# tests can call as an unprivileged user.
	sed 's|<policy context="default">|&<allow user="*"/>|' \
		/usr/share/dbus-1/session.conf >"$T/bus.conf"
	dbus-daemon --config-file="$T/bus.conf" --address="unix:path=$T/bus" --nofork \
		--nopidfile --print-address=3 3>"$T/bus.addr" 2>"$T/bus.log" &
	BUS_PID=$!
	wait_until "$TEST_WAIT" test -s "$T/bus.addr"
	DBUS_SYSTEM_BUS_ADDRESS="unix:path=$T/bus"
	export DBUS_SYSTEM_BUS_ADDRESS
}

# start_lnetd [ARGS...]: start it, wait until it owns its name.  From then
# on lnetctl as root (or as the user running lnetd) goes to lnetd's own
# socket, as under lnetd.service; unprivileged callers go through the bus.
start_lnetd() {
	LNETD_PRIVATE_SOCKET=$T/private
	export LNETD_PRIVATE_SOCKET
	"$LNETD" --engine=userspace --state-dir="$T/state" --private-socket="$T/private" "$@" \
		2>>"$T/lnetd.log" &
	LNETD_PID=$!
	wait_until "$TEST_WAIT" lnetd_up_or_gone
	lnetd_up
}

# lnetd_up: lnetd owns its name; lnetd_up_or_gone: or it has exited
lnetd_up() {
	busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" --timeout="$TEST_WAIT" status org.lnetd1 \
		>/dev/null 2>&1
}
lnetd_up_or_gone() { lnetd_up || ! kill -0 "$LNETD_PID" 2>/dev/null; }

# stop_lnetd: SIGTERM, then its exit status in $LNETD_RC.
stop_lnetd() {
	kill -TERM "$LNETD_PID"
	wait "$LNETD_PID"
	LNETD_RC=$?
	export LNETD_RC
	LNETD_PID=
}

# bcall METHOD SIGNATURE ARGS...: a method call; output and errors in $OUT.
bcall() {
	m=$1
	shift
	OUT=$(busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" --timeout="$TEST_WAIT" call org.lnetd1 \
		/org/lnetd1 org.lnetd1.Manager "$m" "$@" 2>&1)
}

# bsend METHOD ARGS...: a call through dbus-send, which prints error names.
bsend() {
	m=$1
	shift
	OUT=$(dbus-send --bus="$DBUS_SYSTEM_BUS_ADDRESS" --print-reply --reply-timeout=$((TEST_WAIT * 1000)) \
		--dest=org.lnetd1 /org/lnetd1 "org.lnetd1.Manager.$m" "$@" 2>&1)
}

bprop() {
	OUT=$(busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" --timeout="$TEST_WAIT" get-property org.lnetd1 \
		/org/lnetd1 org.lnetd1.Manager "$1" 2>&1)
}

# has TEXT: $OUT contains TEXT
has() {
	case $OUT in *"$1"*) return 0 ;; esac
	diag "expected to find: $1" "got: $OUT"
	return 1
}

finish() {
	echo "1..$n"
	[ "$failed" -eq 0 ] || diag "lnetd's log:" "$(cat "$T/lnetd.log")"
	exit 0
}
