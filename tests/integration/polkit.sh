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

mkdir -p "$T/actions" "$T/rules" "$T/empty" "$T/pk"
chmod 1777 "$T/pk" # polkitd's rules run as its own user
cp "${TOP_SRCDIR:-../..}/systemd/org.lnetd1.policy" "$T/actions/"
# nobody may, daemon may not; bin may, once the test lets the rule go on
# (it waits in polkit.spawn: polkit is slow to answer); sys must authenticate.
cat >"$T/rules/50-lnetd-test.rules" <<RULES
polkit.addRule(function(action, subject) {
	if (action.id != "org.lnetd1.manage")
		return polkit.Result.NOT_HANDLED;
	if (subject.user == "bin") {
		polkit.spawn(["/bin/sh", "-c", "touch $T/pk/started; " +
			"while [ ! -e $T/pk/release ]; do sleep 0.05; done"]);
		return polkit.Result.YES;
	}
	if (subject.user == "sys")
		return polkit.Result.AUTH_ADMIN;
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
		--bus="$DBUS_SYSTEM_BUS_ADDRESS" --print-reply --reply-timeout=$((TEST_WAIT * 1000)) \
		--dest=org.lnetd1 /org/lnetd1 "org.lnetd1.Manager.$m" "$@" 2>&1)
}

start_bus
check "lnetd starts" start_lnetd
as 65534 SetGlobal string:retry_count uint32:1
check "without polkit on the bus, only root may change anything, and it says so" \
	has "needs root (polkit, which could allow org.lnetd1.manage, is not running)"

"$POLKITD" --no-debug >"$T/polkit.log" 2>&1 &
POLKIT_PID=$!
check "polkitd serves the test's bus" wait_until "$TEST_WAIT" \
	quiet busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" status org.freedesktop.PolicyKit1

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

# polkit is asked asynchronously: while it decides one caller, lnetd serves others.
setpriv --reuid=2 --regid=2 --clear-groups dbus-send --bus="$DBUS_SYSTEM_BUS_ADDRESS" \
	--print-reply --reply-timeout=$((TEST_WAIT * 1000)) --dest=org.lnetd1 /org/lnetd1 \
	org.lnetd1.Manager.SetGlobal string:retry_count uint32:2 >"$T/slow.out" 2>&1 &
SLOW=$!
check "polkit is deciding a slow caller" wait_until "$TEST_WAIT" test -e "$T/pk/started"
bcall Status
check "meanwhile root's Status is answered" has "userspace"
as 65534 ListGlobals
check "and so is anyone's read" has '"retry_count"'
check "and the slow caller is still waiting for polkit" kill -0 "$SLOW"
touch "$T/pk/release"
wait "$SLOW"
check "when polkit says yes, the slow caller's change is made" \
	grep -q "uint64 2" "$T/slow.out"
bprop Generation
check "once" has 't 2'

# A rule that asks for authentication: lnetd says so when the caller cannot be asked.
as 3 SetGlobal string:retry_count uint32:4
check "a caller polkit would have to ask, who did not allow it, is told to authenticate" \
	has "InteractiveAuthorizationRequired"
check "... in a sentence naming the authorisation and how" \
	has "needs authentication (polkit: org.lnetd1.manage); ask from a terminal"
OUT=$(setpriv --reuid=3 --regid=3 --clear-groups busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" \
	--timeout="$TEST_WAIT" --allow-interactive-authorization=yes call org.lnetd1 /org/lnetd1 \
	org.lnetd1.Manager SetGlobal su retry_count 4 2>&1)
check "a caller that allowed interaction is told no agent answered for it" \
	has "no polkit authentication agent answered for you"
# lnetctl on a terminal (script(1) gives it one) lets polkit ask; told not to, it does not.
LNETCTL=${LNETCTL:-lnetctl/lnetctl}
tty_lnetctl() {
	OUT=$(setpriv --reuid=3 --regid=3 --clear-groups script -qec \
		"$LNETCTL $* set retry_count 4" /dev/null </dev/null 2>&1)
}
tty_lnetctl
check "lnetctl on a terminal allows interaction: no agent answered, it is told" \
	has "no polkit authentication agent answered for you"
tty_lnetctl --no-ask-password
check "with --no-ask-password it does not, and is told to ask from a terminal" \
	has "ask from a terminal"
bprop Generation
check "and nothing changed" has 't 2'
finish
