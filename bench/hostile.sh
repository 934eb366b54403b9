#!/bin/sh
# B1: the worst call an unprivileged caller can make, timed against a
# trivial one, on an lnetd of its own (private bus) holding 10,000 peers
# and 100 rules.  Run from the build dir (make bench).
set -u
. "${TOP_SRCDIR:-../..}/tests/integration/lib.sh"
LNETD=${LNETD:-lnetd/lnetd}
start_bus
start_lnetd || { echo "FAIL: lnetd does not start"; exit 1; }
tests/integration/hostile peers 10000 >/dev/null || { echo "FAIL: cannot configure"; exit 1; }
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	setpriv --reuid=65534 --regid=65534 --clear-groups tests/integration/hostile bench
else
	tests/integration/hostile bench
fi
