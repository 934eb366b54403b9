#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench/report.sh start DIR - a new run of `make bench`: an empty figures file
#   DIR/figures.tsv (the benches append to it: bench/figure.sh, figure.h),
#   DIR/meta (when the run started, the load average then), and none of the
#   last run's plots and traces
# bench/report.sh write DIR DOC SRCDIR - doc/BENCHMARKS.md from them: a header
#   saying when and where the figures were measured (date, machine, load
#   average, engines, git revision), then one table per part, a figure a row,
#   the plots drawn, and what this run did not measure.  No figure is typed
#   by hand: every number comes from DIR/figures.tsv.
set -u
cmd=${1:-}
dir=${2:-bench/out}
case $cmd in
start)
	mkdir -p "$dir" || exit 1
	# the plots and traces of an earlier run would pass for this one's
	rm -f "$dir"/*.png "$dir"/*.csv "$dir"/*.csv.dat "$dir"/*.csv.lim
	: >"$dir/figures.tsv"
	{
		echo "start $(date -u +%s)"
		echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
	} >"$dir/meta"
	exit 0
	;;
write) ;;
*)
	echo "usage: bench/report.sh start DIR | write DIR DOC SRCDIR" >&2
	exit 2
	;;
esac
doc=$3
src=$4
figs=$dir/figures.tsv
[ -f "$figs" ] && [ -f "$dir/meta" ] || {
	echo "bench/report.sh: no $figs: run bench/report.sh start first" >&2
	exit 1
}

start=$(awk '$1 == "start" { print $2 }' "$dir/meta")
load0=$(awk '$1 == "load" { print $2 ", " $3 ", " $4 }' "$dir/meta")
load1=$(cut -d' ' -f1-3 /proc/loadavg | sed 's/ /, /g')
now=$(date -u +%s)
when=$(date -u -d "@$start" '+%Y-%m-%d %H:%M UTC' 2>/dev/null || date -u '+%Y-%m-%d %H:%M UTC')
mins=$(awk -v a="$start" -v b="$now" 'BEGIN { printf "%.0f", (b - a) / 60 }')
cpu=$(awk -F': *' '$1 ~ /^model name/ { print $2; exit }' /proc/cpuinfo)
ncpu=$(nproc 2>/dev/null || echo "?")
mem=$(awk '$1 == "MemTotal:" { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
os=$(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-}")
virt=$(systemd-detect-virt 2>/dev/null || true)
[ -n "$virt" ] && [ "$virt" != none ] && virt=", in a $virt container or VM" || virt=""
rev="\`$(git -C "$src" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)\`"
dirty=$(git -C "$src" status --porcelain --untracked-files=no 2>/dev/null |
	grep -v ' doc/BENCHMARKS.md$' | head -n 1)
[ -n "$dirty" ] && rev="$rev, with uncommitted changes"
engines=$(awk -F '\t' '$1 == "FIGURE" && $3 != "-" { print $3 }' "$figs" | sort -u |
	awk '{ printf "%s%s", (NR > 1 ? " and " : ""), $1 }')
[ -n "$engines" ] || engines="none"

tmp=$doc.tmp.$$
{
	echo "# Benchmarks"
	echo
	echo "<!-- Written by \`make bench\` (bench/report.sh) from the figures it measured:"
	echo "     do not edit by hand, run it again. -->"
	echo
	echo "Measured by \`make bench\` on $when ($mins minutes), at git revision $rev,"
	echo "on $cpu × $ncpu CPUs, $mem, $os, Linux $(uname -r)$virt."
	echo "Load average (1, 5, 15 min): $load0 when the run started, $load1 when it ended."
	echo "Engines measured: $engines: \`userspace\` is lnetd --engine=userspace on this host;"
	echo "\`kernel\` is the lnetk module with lnetd --engine=kernel in the VM tier's guest"
	echo "(qemu TCG, one vCPU, emulated: compare its ratios, not its absolute values)."
	echo
	echo "Every figure is a ratio against a baseline measured in the same run, on the"
	echo "same machine at the same time, so the machine's other load weighs on both; the"
	echo "absolute values stand beside it.  \`FAIL\` marks a figure that missed its"
	echo "target, never a failed test: nothing here decides a test's verdict.  How each"
	echo "is measured: the comments at the top of its script or program in \`bench/\`."
	echo
	awk -F '\t' '$1 == "FIGURE" {
		n++
		if ($9 == "ok") ok++
		else if ($9 == "FAIL") {
			bad++; w = $2 ($3 == "-" ? "" : " " $3)
			if (!(w in cnt)) order[++nw] = w
			cnt[w]++
		} else none++
	}
	END {
		for (i = 1; i <= nw; i++)
			which = which (i > 1 ? ", " : "") order[i] (cnt[order[i]] > 1 ? " ×" cnt[order[i]] : "")
		printf "**%d figures: %d ok, %d FAIL%s, %d without a target.**\n", n, ok, bad,
			(bad ? " (" which ")" : ""), none
	}' "$figs"
	awk -F '\t' '
	function part(id) {
		c = substr(id, 1, 1)
		if (c == "P") return "1 The engine'\''s algorithms (the portable engine, no I/O)"
		if (c ~ /[RCBLIKM]/) return "2 lnetd and lnetctl (userspace engine, a private bus)"
		if (c == "D") return "3 The data path between two nodes (network namespaces joined by veth rails)"
		if (c == "T") return "4 NRS TBF on live requests (three clients and a server)"
		if (c == "H") return "5 Health: a rail'\''s link down, a rail silently dropping, the rail back"
		if (c == "X") return "6 Beside upstream Lustre'\''s LNet (the VM guest)"
		return "7 Others"
	}
	function cell(s) { gsub(/\|/, "\\|", s); return s == "" ? "-" : s }
	# rows in the order of their part, their ID, their engine (userspace
	# first), then the run
	$1 == "FIGURE" {
		n++
		key[n] = sprintf("%s|%s|%s|%06d", part($2), $2, ($3 == "kernel" ? "2" : "1"), n)
		row[key[n]] = sprintf("| %s | %s | %s | %s | %s | %s | %s | %s |", cell($2), cell($3),
			cell($4), cell($5), cell($6), cell($7), cell($8), cell($9))
	}
	END {
		for (i = 1; i <= n; i++)
			for (j = i + 1; j <= n; j++)
				if (key[j] < key[i]) { t = key[i]; key[i] = key[j]; key[j] = t }
		for (i = 1; i <= n; i++) {
			split(key[i], k, "|")
			if (k[1] != last) {
				printf "\n## %s\n\n", substr(k[1], 3)
				print "| figure | engine | what it means | measured | baseline (same run) | ratio | target | verdict |"
				print "| --- | --- | --- | --- | --- | --- | --- | --- |"
				last = k[1]
			}
			print row[key[i]]
		}
	}' "$figs"
	echo
	echo "## Plots"
	echo
	echo "Drawn by the same run in the build directory's \`bench/out/\` (not committed):"
	echo
	found=0
	for p in "$dir"/*.png; do
		[ -f "$p" ] || continue
		found=1
		t=$(basename "$p")
		case $t in
		d1-rails*) w="D1: each rail's MB/s and the total during the 4-rail run, with the shaping limit" ;;
		h1-failover*) w="H1, H3: rail 0's link down and up again mid-transfer" ;;
		h2-drop*) w="H2: rail 1 silently dropping everything mid-transfer" ;;
		t1-rates*) w="T1: each class's requests/s against its rule" ;;
		*) w="" ;;
		esac
		case $t in *-kernel.png) w="$w (kernel engine)" ;; *) w="$w (userspace engine)" ;; esac
		echo "* \`bench/out/$t\`: $w"
	done
	[ $found = 1 ] || echo "* none (no gnuplot, or the data path benches did not run: they need root)"
	# what a full run measures that this one did not
	missing=$(awk -F '\t' '$1 == "FIGURE" { seen[$2 " " $3] = 1 }
		END {
			n = split("P1 - P2 - P5 - P6 - R1 userspace C1 - I1 - M1 userspace L1 - B1 - K1 - " \
				"D1 userspace D2 userspace D3 userspace D4 userspace D5 userspace " \
				"T1 userspace T2 userspace H1 userspace H2 userspace H3 userspace " \
				"D1 kernel D2 kernel D3 kernel D4 kernel D5 kernel T1 kernel T2 kernel " \
				"H1 kernel H2 kernel H3 kernel X1 kernel X2 kernel", w, " ")
			for (i = 1; i < n; i += 2)
				if (!((w[i] " " w[i + 1]) in seen))
					out = out (out == "" ? "" : ", ") w[i] (w[i + 1] == "-" ? "" : " (" w[i + 1] ")")
			print out
		}' "$figs")
	if [ -n "$missing" ]; then
		echo
		echo "## Not measured in this run"
		echo
		echo "$missing: the data path and health figures need root and network"
		echo "namespaces; the kernel engine's and upstream's need the VM tier (qemu, the"
		echo "kernel packages; upstream's LNet built once, see tests/vm/run.sh);"
		echo "\`make bench\` printed why."
	fi
} >"$tmp" && mv "$tmp" "$doc" || {
	rm -f "$tmp"
	exit 1
}
awk -F '\t' '$1 == "FIGURE" { n++; if ($9 == "FAIL") f++ }
	END { printf "%d figures (%d FAIL)", n, f }' "$figs"
echo " written to $doc"
