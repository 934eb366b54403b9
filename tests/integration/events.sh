#!/bin/sh
# The state changes people watch reach them twice, agreeing: as D-Bus
# signals a real subscriber (gdbus monitor) receives, and as journal
# entries with their priority and fields (NI, NID, GENERATION), read back
# with journalctl from a journald of the test's own.  lnetd runs in network
# and mount namespaces of its own: an NI on a veth that does not exist yet
# becomes applied when the veth and its address appear (NIStateChanged
# "applied") and pending when the address goes; SetHealth takes an NI below
# its maximum and back (HealthChanged).  TAP.
set -u
if [ -z "${LNETD_IN_NS:-}" ]; then
	if [ "$(id -u)" != 0 ] || ! unshare -n -m true 2>/dev/null; then
		echo "1..0 # SKIP needs root and network and mount namespaces"
		exit 0
	fi
	if ! command -v gdbus >/dev/null; then
		echo "1..0 # SKIP needs gdbus (libglib2.0-bin) as the bus monitor"
		exit 0
	fi
	LNETD_IN_NS=1 exec unshare -n -m sh "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
LNETD=${LNETD:-lnetd/lnetd}
case $LNETD in /*) ;; *) LNETD=$PWD/$LNETD ;; esac
MON_PID=
JD_PID=
# (journald goes before cleanup, which waits for every child)
trap 'kill $MON_PID $JD_PID 2>/dev/null; cleanup' EXIT

# A journald of our own: this mount namespace gets empty /run/systemd and /var/log/journal.
JOURNAL=
JD=$(command -v systemd-journald || echo /lib/systemd/systemd-journald)
if [ -x "$JD" ] && command -v journalctl >/dev/null && command -v systemd-cat >/dev/null &&
	mount --make-rprivate / && mkdir -p /run/systemd /var/log/journal &&
	mount -t tmpfs tmpfs /run/systemd && mount -t tmpfs tmpfs /var/log/journal; then
	"$JD" >"$T/journald.log" 2>&1 &
	JD_PID=$!
	wait_until "$TEST_WAIT" test -S /run/systemd/journal/socket
	[ -S /run/systemd/journal/socket ] && JOURNAL=1
fi
if [ -n "$JOURNAL" ]; then
	# lnetd as systemd starts it: stderr a journal stream, JOURNAL_STREAM naming it.
	cat >"$T/lnetd-journal" <<EOF
#!/bin/sh
exec systemd-cat -t lnetd-stream sh -c 'JOURNAL_STREAM=\$(stat -L -c %d:%i /proc/self/fd/2); export JOURNAL_STREAM; exec "\$0" "\$@"' "$LNETD" "\$@"
EOF
	chmod +x "$T/lnetd-journal"
	LNETD=$T/lnetd-journal
fi

# signal TEXT: until the monitor has seen TEXT (TEST_WAIT at most).
signal() {
	wait_until "$TEST_WAIT" grep -qF -- "$1" "$T/monitor" && return 0
	diag "no signal: $1" "seen:" "$(cat "$T/monitor")"
	return 1
}

# journal FIELD=VALUE...: until an entry of lnetd has every FIELD=VALUE (TEST_WAIT at most).
in_journal() {
	journalctl --no-pager -o verbose SYSLOG_IDENTIFIER=lnetd "$@" >"$T/j" 2>&1
	grep -q MESSAGE= "$T/j"
}
journal() {
	wait_until "$TEST_WAIT" in_journal "$@" && return 0
	diag "no journal entry with: $*" "lnetd's entries:" \
		"$(journalctl --no-pager -o verbose SYSLOG_IDENTIFIER=lnetd 2>&1 | tail -40)"
	return 1
}

start_bus
check "lnetd starts in namespaces of its own" start_lnetd
gdbus monitor --address "$DBUS_SYSTEM_BUS_ADDRESS" --dest org.lnetd1 >"$T/monitor" 2>&1 &
MON_PID=$!
# The monitor is subscribed once it has seen the name's owner.
check "a bus monitor is listening" wait_until "$TEST_WAIT" grep -q "is owned by" "$T/monitor"

bcall AddNI 'ssa{sv}' tcp lnv0 0
check "an NI on a missing interface is accepted" has 't 1'
ip link add lnv0 type veth peer name lnv1
ip addr add 10.77.0.1/24 dev lnv0
ip link set lnv1 up
ip link set lnv0 up
check "the interface and address appear: NIStateChanged, applied, with its NID" \
	signal "NIStateChanged ('tcp on lnv0', '10.77.0.1@tcp', 'applied', '')"
ip addr del 10.77.0.1/24 dev lnv0
check "the address goes: NIStateChanged, pending, with the reason" \
	signal "NIStateChanged ('tcp on lnv0', '', 'pending', 'interface lnv0 has no IPv4 address')"
ip addr add 10.77.0.1/24 dev lnv0
applied_twice() {
	[ "$(grep -c "NIStateChanged ('tcp on lnv0', '10.77.0.1@tcp', 'applied', '')" "$T/monitor")" = 2 ]
}
check "the address back: applied again" wait_until "$TEST_WAIT" applied_twice
# Recovery would ping an NI below 1000 back up (and say so) within
# recovery_interval: held off, so that every HealthChanged below is a SetHealth's.
bcall SetGlobal su max_recovery_ping_interval 4294967295
bcall SetGlobal su recovery_interval 4294967295
check "recovery held off (the longest interval there is)" has 't 3'
bcall SetHealth ssu ni 10.77.0.1@tcp 200
check "an NI's health drops: HealthChanged, not healthy" \
	signal "HealthChanged ('ni', '10.77.0.1@tcp', 'recovering', uint32 200)"
bcall SetHealth ssu ni 10.77.0.1@tcp 1000
check "and comes back: HealthChanged, healthy" \
	signal "HealthChanged ('ni', '10.77.0.1@tcp', 'healthy', uint32 1000)"
n_health=$(grep -c HealthChanged "$T/monitor")
bcall SetHealth ssu ni 10.77.0.1@tcp 1000
bcall SetHealth ssu ni 10.77.0.1@tcp 900
bcall SetHealth ssu ni 10.77.0.1@tcp 800
bcall SetHealth ssu ni 10.77.0.1@tcp 1000
# The signals come in the order lnetd sent them: once the last one is seen,
# every one before it is.
healthy_twice() {
	[ "$(grep -c "HealthChanged ('ni', '10.77.0.1@tcp', 'healthy', uint32 1000)" "$T/monitor")" = 2 ]
}
check "a crossing back to healthy is told again" wait_until "$TEST_WAIT" healthy_twice
check "a change within healthy or unhealthy says nothing more" \
	test "$(grep -c HealthChanged "$T/monitor")" = $((n_health + 2))

if [ -z "$JOURNAL" ]; then
	ok "# SKIP no journald could run here: the journal's fields are not checked"
	finish
fi
check "the applied NI is in the journal with NI, NID and GENERATION" \
	journal NI="tcp on lnv0" NID=10.77.0.1@tcp GENERATION=1 PRIORITY=6
check "the pending NI, as a warning with its reason" \
	journal NI="tcp on lnv0" PRIORITY=4 MESSAGE="NI tcp on lnv0: pending: interface lnv0 has no IPv4 address"
check "the health drop, as a warning naming the NID" \
	journal NID=10.77.0.1@tcp PRIORITY=4 MESSAGE="NI 10.77.0.1@tcp: recovering, health 200"
check "lnetd's start, with its priority" journal PRIORITY=6 MESSAGE="serving org.lnetd1 (engine userspace, state $T/state/lnetd.db, generation 0)"
finish
