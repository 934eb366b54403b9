# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# bench/plot.sh - the plot of a selftest trace (lnetctl selftest run
# --trace: seconds, then each rail's MB/s over the step before), for
# bench/dp.sh and bench/health.sh.  Sourced.
#
# plot_rails CSV PNG TITLE RAIL_MBS [SECONDS:RAILS:LABEL]...
#   TITLE may hold "\n" (two lines).  Two panels: the total over every rail and, under it, each rail.  A
#   trace's step holds whole messages (a 1 MiB write at 25 MB/s is 42 ms:
#   a 0.1 s step holds 2 or 3 of them, the saw-tooth of a raw plot), so
#   each line is smoothed: the MB/s over the window of steps around each
#   point (PLOT_SMOOTH steps, else enough for 5 writes per rail at
#   RAIL_MBS, at least 5: 0.5 s at 25 MB/s), from the bytes counted in
#   them; the total's raw steps are drawn as dots behind its line.  The shaping limit is drawn
#   too: RAIL_MBS per rail (tc's rate, wire bytes: headers count, so the
#   payload stays a few % under it) and, for the total, RAIL_MBS times the
#   rails in use, which each event SECONDS:RAILS:LABEL sets from SECONDS
#   on (a dashed line at SECONDS, named LABEL).  Legends stand outside the
#   data; the rails' lines grow thinner from the first to the last, so that
#   one drawn over another still shows.  Without gnuplot it returns 1.
plot_rails() {
	_csv=$1 _png=$2 _title=$3 _rail=$4
	shift 4
	command -v gnuplot >/dev/null 2>&1 || return 1
	[ -s "$_csv" ] || return 1
	_rails=$(head -n 1 "$_csv" | awk -F, '{ print NF - 1 }')
	# the trace's step, and the window: enough steps for 5 writes of 1 MiB
	# per rail at RAIL_MBS, 5 at least, an odd number
	_step=$(awk -F, 'NR == 2 { a = $1 } NR > 2 { b = $1; n++ }
		END { printf "%.3f", (n > 0 ? (b - a) / n : 0.1) }' "$_csv")
	_w=${PLOT_SMOOTH:-$(awk -v r="$_rail" -v s="$_step" 'BEGIN {
		w = int(5 * 1.048576 / (r * s) + 0.999); if (w < 5) w = 5; if (w % 2 == 0) w++; print w }')}
	# the smoothed series (t total_raw total_smooth rail...), and the limit over time
	_evs=$(printf '%s;' "$@")
	awk -F, -v w="$_w" -v lim="$_rail" -v ev="${_evs%;}" -v lf="$_csv.lim" '
		BEGIN { ne = split(ev, e, ";") }
		NR == 1 { nr = NF - 1; next }
		{
			n++; t[n] = $1; dt = $1 - (n > 1 ? t[n - 1] : 0); raw[n] = 0
			for (k = 1; k <= nr; k++) {
				c[n, k] = c[n - 1, k] + $(k + 1) * dt; raw[n] += $(k + 1)
			}
		}
		END {
			# the limit as a path of its own: a dashed line stays dashed
			r = nr; printf "%.3f %.2f\n", 0, lim * r > lf
			for (i = 1; i <= ne; i++) {
				split(e[i], f, ":")
				printf "%.3f %.2f\n%.3f %.2f\n", f[1], lim * r, f[1], lim * f[2] > lf
				r = f[2]
			}
			printf "%.3f %.2f\n", t[n], lim * r > lf
			t[0] = 0; h = int(w / 2)
			for (i = 1; i <= n; i++) {
				lo = i - h - 1; hi = i + h
				if (lo < 0 || hi > n || t[hi] <= t[lo]) continue
				tot = 0; line = ""
				for (k = 1; k <= nr; k++) {
					v = (c[hi, k] - c[lo, k]) / (t[hi] - t[lo]); tot += v
					line = line sprintf(" %.2f", v)
				}
				printf "%.3f %.2f %.2f%s\n", t[i] - (t[i] - t[i - 1]) / 2, raw[i], tot, line
			}
		}' "$_csv" >"$_csv.dat"
	# the events: a dashed line and its name at the top of each panel
	_ev=$(for _e in "$@"; do
		echo "$_e" | awk -F: '{ printf "set arrow from %s, graph 0 to %s, graph 1 nohead dt 2 lw 1.5 lc rgb \"#b03030\"\n", $1, $1
			printf "set label \"%s\" at %s, graph 0.95 left offset 0.5,0 tc rgb \"#b03030\"\n", $3, $1 }'
	done)
	_names=$(head -n 1 "$_csv" | cut -d, -f2-)
	gnuplot <<GP
set terminal pngcairo size 1000,780 noenhanced font ",10"
set output "$_png"
set grid
set key outside right top vertical
set lmargin 9
set rmargin 34
set xlabel "seconds since the transfer started"
set xrange [0:$(awk -F, 'NR > 1 { t = $1 } END { print t + 0 }' "$_csv")]
set ylabel "MB/s"
set yrange [0:$(awk -v r="$_rail" -v n="$_rails" 'BEGIN { print r * n * 1.5 }')]
set multiplot layout 2,1 title "$_title"
$_ev
set title "all rails: MB/s in $(awk -v w="$_w" -v s="$_step" 'BEGIN { printf "%.1f", w * s }') s windows centred on each point (line; a change shows half a window early), per $(awk -v s="$_step" 'BEGIN { printf "%.1f", s }') s step (dots)"
plot "$_csv.dat" using 1:2 with points pt 7 ps 0.5 lc rgb "#b8b8b8" title "total, 0.1 s steps", \
     "$_csv.dat" using 1:3 with lines lw 2.5 lc rgb "black" title "total", \
     "$_csv.lim" using 1:2 with lines dt 2 lw 2 lc rgb "#d02020" title "shaping limit (rails in use)"
set title "each rail, smoothed the same way"
set yrange [0:$(awk -v r="$_rail" 'BEGIN { print r * 1.5 }')]
names = "$(echo "$_names" | tr ',' ' ')"
plot for [k=1:$_rails] "$_csv.dat" using 1:(column(3 + k)) with lines lw (1.5 + 2.5 * ($_rails - k) / $_rails) title word(names, k), \
     $_rail with lines dt 2 lw 2 lc rgb "#d02020" title sprintf("shaping limit per rail, %g MB/s", $_rail)
unset multiplot
GP
}

# plot_or_ship CSV PNG TITLE RAIL_MBS [EVENTS...]: plot_rails, or in the VM
# guest (BENCH_SHIP=1: it has no gnuplot) the trace and the plot's
# arguments out on stdout, one tab-separated line each ("TRACE", the PNG's
# name, a row; then "PLOT", the name, TITLE, RAIL_MBS, EVENTS), for the host
# to draw (ship_collect, ship_plots)
plot_or_ship() {
	if [ "${BENCH_SHIP:-0}" != 1 ]; then
		plot_rails "$@"
		return
	fi
	[ -s "$1" ] || return 1
	_n=$(basename "$2" .png)
	awk -v n="$_n" '{ printf "TRACE\t%s\t%s\n", n, $0 }' "$1"
	_n="PLOT	$_n"
	shift 2
	for _a in "$@"; do _n="$_n	$_a"; done
	printf '%s\n' "$_n"
}

# ship_collect DIR SUFFIX PLOTS: the guest's console on stdin (run.sh's
# lines: "# " before the guest's own); its FIGURE lines go to
# $BENCH_FIGURES, its traces to DIR/NAME-SUFFIX.csv, its plots to the list
# PLOTS (for ship_plots); every other line goes on to stdout
ship_collect() {
	: >"$3"
	awk -F '\t' -v dir="$1" -v sfx="$2" -v plots="$3" -v figs="${BENCH_FIGURES:-/dev/null}" '
		{ sub(/\r$/, "") }
		/^# FIGURE\t/ { print substr($0, 3) >> figs; fflush(figs); next }
		/^# TRACE\t/ { f = dir "/" $2 "-" sfx ".csv"; print substr($0, length($1 $2) + 3) > f; next }
		/^# PLOT\t/ {
			line = dir "/" $2 "-" sfx
			for (i = 3; i <= NF; i++) line = line "\t" $i
			print line > plots; next
		}
		{ print; fflush() }'
}

# ship_plots PLOTS: draw what ship_collect listed (gnuplot here)
ship_plots() {
	[ -s "$1" ] || return 0
	while IFS='	' read -r _b _t _r _e1 _e2 _e3; do
		set --
		for _e in "$_e1" "$_e2" "$_e3"; do [ -z "$_e" ] || set -- "$@" "$_e"; done
		if plot_rails "$_b.csv" "$_b.png" "$_t" "$_r" "$@"; then
			echo "plot in $_b.png (data: $_b.csv)"
		fi
	done <"$1"
}
