#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench/crash.sh - K1: the integration tier's kill -9 trials at bench size
# (CRASH_TRIALS, 100 from make bench; tests/integration/crash.sh: kill -9
# at points spread over a 10,000-object Apply, then a restart): its TAP
# output as it is, and the figure for doc/BENCHMARKS.md: the trials that
# left all of the Apply or none of it ÷ the trials (target 1).
set -u
TOP=${TOP_SRCDIR:-$(dirname "$0")/..}
. "$TOP/bench/figure.sh"
out=$(mktemp "${TMPDIR:-/tmp}/lnetd-crash.XXXXXX")
trap 'rm -f "$out" "$out.rc"' EXIT
{
	sh "$TOP/tests/integration/crash.sh"
	echo $? >"$out.rc"
} | tee "$out"
rc=$(cat "$out.rc" 2>/dev/null || echo 1)
# its summary: "# N trials: A kept everything, B kept nothing, C other"
# shellcheck disable=SC2046 # four numbers
set -- $(awk '/^# [0-9]+ trials: / { gsub(/[^0-9 ]/, ""); print $1, $2, $3, $4 }' "$out")
if [ "$#" = 4 ]; then
	r=$(awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.2f", (n > 0 ? (a + b) / n : 0) }')
	figure K1 - "kill -9 at points spread over a 10,000-object Apply, then a restart: the trials that left all of it or none of it ÷ the trials" \
		"$(($2 + $3)) all or nothing ($2 all, $3 none), $4 other" "$1 trials" "$r" "1" \
		"$([ "$4" = 0 ] && [ "$2" -gt 0 ] && [ "$3" -gt 0 ] && echo ok || echo FAIL)"
fi
exit $rc
