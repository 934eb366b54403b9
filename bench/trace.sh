# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# bench/trace.sh - figures from a selftest trace (lnetctl selftest run
# --trace: a header, then rows of seconds and each rail's MB/s over the
# step that ends there), for bench/health.sh.  Sourced.  A step holds
# whole messages only (2 or 3 writes of 1 MiB per rail at 25 MB/s), so
# every figure here is over a window of several steps, from the bytes
# counted in it, never one step's MB/s.

# trace_rate CSV FROM TO [RAIL]: the mean MB/s over the steps that end in
# (FROM, TO], of every rail together, or of rail RAIL alone (1 is the
# first); 0 when no step ends there
trace_rate() {
	awk -F, -v a="$2" -v b="$3" -v k="${4:-0}" '
		NR == 1 { next }
		{
			dt = $1 - p; p = $1
			if ($1 <= a + 0 || $1 > b + 0) next
			if (k > 0) v = $(k + 1); else { v = 0; for (i = 2; i <= NF; i++) v += $i }
			mb += v * dt; s += dt
		}
		END { printf "%.1f\n", (s > 0 ? mb / s : 0) }' "$1"
}

# trace_back CSV AT RATE [WINDOW] [RAIL] [below]: how many seconds after AT
# the MB/s over the WINDOW seconds that follow (default 0.5) first came to
# >= RATE (with "below": first fell under it), of every rail, or of rail
# RAIL alone (0: every rail); "never" when it did not
trace_back() {
	awk -F, -v at="$2" -v want="$3" -v w="${4:-0.5}" -v k="${5:-0}" -v below="${6:-}" '
		NR == 1 { next }
		{
			n++; t[n] = $1
			if (k > 0) v = $(k + 1); else { v = 0; for (i = 2; i <= NF; i++) v += $i }
			c[n] = c[n - 1] + v * ($1 - t[n - 1])
		}
		END {
			for (i = 1; i <= n; i++) {
				if (t[i - 1] < at + 0) continue
				for (j = i; j <= n && t[j] - t[i - 1] < w - 1e-6; j++);
				if (j > n) break
				r = (c[j] - c[i - 1]) / (t[j] - t[i - 1])
				if (below == "" ? r >= want + 0 : r < want + 0) {
					printf "%.2f\n", t[i - 1] - at; exit
				}
			}
			print "never"
		}' "$1"
}

# trace_end CSV: the seconds of the last step
trace_end() {
	awk -F, 'NR > 1 { t = $1 } END { print t + 0 }' "$1"
}

# trace_last CSV RAIL BEFORE: the end of the last step up to BEFORE in which
# rail RAIL (1 is the first) counted bytes: where a rail that stopped
# stopped, on the trace's own clock (a script's clock starts before the
# test does, by lnetctl's start and its call)
trace_last() {
	awk -F, -v k="$2" -v b="$3" 'NR > 1 && $1 <= b + 0 && $(k + 1) > 0 { t = $1 }
		END { print t + 0 }' "$1"
}
