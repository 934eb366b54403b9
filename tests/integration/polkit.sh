#!/bin/sh
# polkit: an unprivileged caller whom polkit allows org.lnetd1.manage may
# change the configuration, one it does not allow is refused, and without
# polkit on the bus only root may.  A real polkitd on the test's private
# bus, with our action file and a test rule bind-mounted over the system's
# in a mount namespace of the test's own.  TAP.
set -u
POLKITD=${POLKITD:-/usr/lib/polkit-1/polkitd}
if [ -z "${LNETD_IN_MNTNS:-}" ]; then
	if [ "$(id -u)" != 0 ] || [ ! -x "$POLKITD" ] || ! id nobody >/dev/null 2>&1 ||
		! id daemon >/dev/null 2>&1 ||
		! unshare -m true 2>/dev/null; then
		echo "1..0 # SKIP needs root, polkitd ($POLKITD), the nobody and daemon users and mount namespaces"
		exit 0
	fi
	LNETD_IN_MNTNS=1 exec unshare -m --propagation private sh "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
LNETD=${LNETD:-lnetd/lnetd}
POLKIT_PID=
trap 'if [ -n "$POLKIT_PID" ]; then kill "$POLKIT_PID" 2>/dev/null; fi; cleanup' EXIT

mkdir -p "$T/actions" "$T/rules" "$T/empty"
cp "${TOP_SRCDIR:-../..}/systemd/org.lnetd1.policy" "$T/actions/"
cat >"$T/rules/50-lnetd-test.rules" <<'RULES'
polkit.addRule(function(action, subject) {
	if (action.id == "org.lnetd1.manage")
		return subject.user == "nobody" ? polkit.Result.YES : polkit.Result.NO;
});
RULES
chmod -R a+rX "$T"
mount --bind "$T/actions" /usr/share/polkit-1/actions
mount --bind "$T/rules" /etc/polkit-1/rules.d
[ -d /usr/share/polkit-1/rules.d ] && mount --bind "$T/empty" /usr/share/polkit-1/rules.d

# as UID METHOD ARGS...: a dbus-send call as another user (it prints the message).
as() {
	u=$1
	m=$2
	shift 2
	OUT=$(setpriv --reuid="$u" --regid="$u" --clear-groups dbus-send \
		--bus="$DBUS_SYSTEM_BUS_ADDRESS" --print-reply --reply-timeout=10000 \
		--dest=org.lnetd1 /org/lnetd1 "org.lnetd1.Manager.$m" "$@" 2>&1)
}

start_bus
check "lnetd starts" start_lnetd
as 65534 SetGlobal string:retry_count uint32:1
check "without polkit on the bus, only root may change anything, and it says so" \
	has "needs root (polkit, which could allow org.lnetd1.manage, is not running)"

"$POLKITD" --no-debug >"$T/polkit.log" 2>&1 &
POLKIT_PID=$!
up=
for _ in $(seq 100); do
	busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" status org.freedesktop.PolicyKit1 \
		>/dev/null 2>&1 && up=1 && break
	sleep 0.1
done
check "polkitd serves the test's bus" test -n "$up"

as 65534 SetGlobal string:retry_count uint32:1
check "a user polkit allows org.lnetd1.manage may change the configuration" has "uint64 1"
bcall History u 1
check "and the history names who did" has ' 65534 '
as 1 SetGlobal string:retry_count uint32:3
check "a user polkit does not allow is refused, naming the authorisation" \
	has "needs root or the polkit authorisation org.lnetd1.manage"
bprop Generation
check "and nothing changed" has 't 1'
as 1 ListGlobals
check "reads stay open to everyone" has '"retry_count"'
finish
