/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench/figure.h - a figure's record for doc/BENCHMARKS.md, from the C
 * benches (bench/figure.sh is the shell scripts' twin; bench/report.sh
 * reads both).  One tab-separated line, "FIGURE" first, appended to the
 * file $BENCH_FIGURES names (nothing when it is unset, as when a bench runs
 * by hand): the console output stays what it was.
 *
 * The fields: ID, ENGINE ("-" when no engine is measured), WHAT (what the
 * figure means, one line), MEASURED and BASELINE (absolute values with
 * their units, both from this run), RATIO (MEASURED over BASELINE), TARGET
 * ("-": none), VERDICT ("ok", "FAIL", "-" without a target).
 */
#ifndef LNETD_BENCH_FIGURE_H
#define LNETD_BENCH_FIGURE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* bench_fmt(BUF, FMT, ...): BUF formatted, for one field. */
#define bench_fmt(buf, ...) ((void)snprintf(buf, sizeof(buf), __VA_ARGS__), buf)

static inline void bench_figure(const char *id, const char *engine, const char *what,
				const char *measured, const char *baseline, const char *ratio,
				const char *target, const char *verdict)
{
	const char *path = getenv("BENCH_FIGURES");
	FILE *f;

	if (!path || !*path)
		return;
	f = fopen(path, "a");
	if (!f) {
		perror(path);
		return;
	}
	fprintf(f, "FIGURE\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", id, engine, what, measured, baseline,
		ratio, target, verdict);
	fclose(f);
}

static inline const char *bench_verdict(bool ok)
{
	return ok ? "ok" : "FAIL";
}

#endif
