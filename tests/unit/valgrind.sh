#!/bin/sh
# The unit tier once more under valgrind (memcheck, leaks included), in the
# build without sanitizers (valgrind and ASan do not mix; Makefile.am runs
# this only there).  Randomized tests run a tenth of their rounds here
# (unit.h: unit_rounds), all of them in the other tiers.  TAP output.
set -u
echo "1..1"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if CK_FORK=no LNETD_UNIT_LIGHT=1 valgrind -q --error-exitcode=99 --leak-check=full \
	--errors-for-leak-kinds=definite,indirect tests/unit/unit >"$log" 2>&1; then
	echo "ok 1 - unit tier under valgrind: $(grep -c '^ok' "$log") cases, no errors"
else
	grep -v '^ok' "$log" | sed 's/^/# /' | tail -n 40
	echo "not ok 1 - unit tier under valgrind"
fi
