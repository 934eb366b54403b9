# shellcheck shell=sh
# The integration tier's helpers: a private dbus-daemon, an lnetd with the
# userspace engine and a state dir of the test's own, busctl calls with a
# short timeout, and TAP output.  Sourced by each test; $LNETD is the
# daemon under test (the build's lnetd/lnetd).

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

ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }
# check DESCRIPTION COMMAND...: one TAP line from a command's status
check() {
	d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}

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
	for _ in $(seq 50); do [ -s "$T/bus.addr" ] && break; sleep 0.1; done
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
	for _ in $(seq 100); do
		busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" --timeout=2 status org.lnetd1 \
			>/dev/null 2>&1 && return 0
		kill -0 "$LNETD_PID" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

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
	OUT=$(busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" --timeout=5 call org.lnetd1 \
		/org/lnetd1 org.lnetd1.Manager "$m" "$@" 2>&1)
}

# bsend METHOD ARGS...: a call through dbus-send, which prints error names.
bsend() {
	m=$1
	shift
	OUT=$(dbus-send --bus="$DBUS_SYSTEM_BUS_ADDRESS" --print-reply --reply-timeout=5000 \
		--dest=org.lnetd1 /org/lnetd1 "org.lnetd1.Manager.$m" "$@" 2>&1)
}

bprop() {
	OUT=$(busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" --timeout=5 get-property org.lnetd1 \
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
