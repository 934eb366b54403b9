#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# layers.sh - the layering the tree promises, checked from its sources as
# a TAP test run by `make check` (no build needed):
#   - D-Bus only under lnetd/bus/: no other file of lnetd (the engines in
#     lnetd/backend/, the store, the change and event code) names sd_bus;
#     the exceptions are main.c, which opens the connection and attaches
#     it to the event loop, and lnetd.h, which holds it for bus/;
#   - the portable engine (engine/) and the kernel module (kernel/) know
#     no sd-bus at all;
#   - lnetctl walks a reply's a{sv} in one place, lnetctl/reply.c
#     (ctl_read_dict, and the key tables of ctl_key over it); cmd-objs.c's
#     UDSP info is the one left, in another's hands (issue 34).
# Each failure lists the offending lines.
#
# Environment: TOP_SRCDIR (default: this script's parent).

TOP_SRCDIR=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$TOP_SRCDIR" || exit 1

n=0
check() { # description, offending lines (empty: ok)
	n=$((n + 1))
	if [ -z "$2" ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		printf '%s\n' "$2" | sed 's/^/# /'
	fi
}

# sd_bus / sd-bus.h in C sources under @1, minus the allowed paths (a regex).
bus_users() {
	find "$1" -name '*.[ch]' | sort | xargs grep -n 'sd_bus\|sd-bus\.h' /dev/null |
		grep -v -E "^($2):" || true
}

echo "1..4"
check "lnetd: D-Bus only under lnetd/bus/ (and main.c, lnetd.h)" \
	"$(bus_users lnetd 'lnetd/bus/[^:]*|lnetd/main\.c|lnetd/lnetd\.h')"
check "engine/: no D-Bus" "$(bus_users engine '^$')"
check "kernel/: no D-Bus" "$(bus_users kernel '^$')"
check "lnetctl: a{sv} entries read only in reply.c" \
	"$(grep -n "enter_container([a-z]*, 'e', \"sv\")" lnetctl/*.c |
		grep -v -E '^lnetctl/(reply|cmd-objs)\.c:' || true)"
