#!/bin/sh
# Every view of an NI tells the same story: ListNIs, `lnetctl net show` and
# Status all read lnetd's one answer to "is this NI applied".  With the
# kernel engine and no lnetk module, an NI on an interface that has its
# address is still pending, with the backend's reason; with the userspace
# engine it is applied.  TAP.
set -u
. "$(dirname "$0")/lib.sh"

# Without polkit on a private bus, lnetd takes changes from root only.
if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root"
	exit 0
fi
LNETD=${LNETD:-lnetd/lnetd}
LNETCTL=${LNETCTL:-lnetctl/lnetctl}

if [ -d /sys/module/lnetk ] || modinfo lnetk >/dev/null 2>&1; then
	echo "1..0 # SKIP the lnetk module is here: this test needs a host without it"
	exit 0
fi
NOT_LOADED="the lnetk module is not loaded"

start_bus
start_lnetd --engine=kernel || { not_ok "lnetd starts with the kernel engine"; finish; }
bcall AddNI 'ssa{sv}' tcp lo 0
check "an NI on lo is accepted" test "${OUT#t }" != "$OUT"

bcall ListNIs
check "ListNIs: the NI is pending, not applied" has '"tcp" "lo" "pending"'
check "ListNIs: with the backend's reason" has "$NOT_LOADED"
OUT=$("$LNETCTL" net show 2>&1)
check "net show: status pending" has "status: pending"
check "net show: with the backend's reason" has "reason: $NOT_LOADED"
check "net show: never up" sh -c 'case "$1" in *"status: up"*) exit 1 ;; esac' - "$OUT"
OUT=$("$LNETCTL" status 2>&1)
check "status: the module's reason" has "$NOT_LOADED"
check "status: no net applied" sh -c 'printf "%s\n" "$1" | grep -A2 "net$\|net:" | grep -q "applied: 0"' - "$OUT"
stop_lnetd

# The same NI with the userspace engine: applied in every view.
start_lnetd || { not_ok "lnetd starts with the userspace engine"; finish; }
bcall ListNIs
check "userspace engine: ListNIs says applied" has '"tcp" "lo" "applied"'
OUT=$("$LNETCTL" net show 2>&1)
check "userspace engine: net show says up" has "status: up"
OUT=$("$LNETCTL" status 2>&1)
check "userspace engine: status counts it applied" \
	sh -c 'printf "%s\n" "$1" | grep -A2 "net$\|net:" | grep -q "applied: 1"' - "$OUT"
finish
