# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# bench/figure.sh - a figure's record for doc/BENCHMARKS.md, from the bench
# scripts (bench/figure.h is the C benches' twin; bench/report.sh reads
# both).  Sourced.
#
# figure ID ENGINE WHAT MEASURED BASELINE RATIO TARGET VERDICT
#   one tab-separated line, "FIGURE" first, appended to $BENCH_FIGURES
#   (nothing when it is unset, as when a script runs by hand); with
#   BENCH_SHIP=1 (the VM guest's scripts) on stdout instead, where
#   bench/dp.sh takes it off the guest's console (ship_collect, plot.sh).  ENGINE: userspace, kernel, or "-" when no engine is
#   measured; WHAT: what the figure means, one line; MEASURED and BASELINE:
#   absolute values with their units, both from this run; RATIO: MEASURED
#   over BASELINE; TARGET: "-" for none; VERDICT: ok, FAIL, or "-".
figure() {
	if [ "${BENCH_SHIP:-0}" = 1 ]; then
		printf 'FIGURE\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8"
	elif [ -n "${BENCH_FIGURES:-}" ]; then
		printf 'FIGURE\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" \
			>>"$BENCH_FIGURES"
	fi
}

# okfail VALUE OP LIMIT: "ok" when VALUE OP LIMIT holds (OP: <=, >=), else
# "FAIL" (also for a VALUE that is not a number: n/a, empty)
okfail() {
	awk -v v="$1" -v op="$2" -v t="$3" 'BEGIN {
		if (v !~ /^-?[0-9.]+$/) { print "FAIL"; exit }
		good = (op == "<=") ? (v + 0 <= t + 0) : (v + 0 >= t + 0)
		print good ? "ok" : "FAIL" }'
}

# okrange VALUE LOW HIGH: "ok" when LOW <= VALUE <= HIGH, else "FAIL"
okrange() {
	awk -v v="$1" -v a="$2" -v b="$3" 'BEGIN {
		print (v ~ /^-?[0-9.]+$/ && v + 0 >= a + 0 && v + 0 <= b + 0) ? "ok" : "FAIL" }'
}
