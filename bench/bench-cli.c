// SPDX-License-Identifier: GPL-2.0
/*
 * bench-cli LNETCTL - lnetctl end to end, process start to exit, against
 * the lnetd that DBUS_SYSTEM_BUS_ADDRESS reaches (bench/cli.sh sets one up
 * with 64 NIs):
 *
 *   C1  `lnetctl net show` median wall time (target <= 10 ms), and its
 *       ratio to `lnetctl --version` in this run (the cost of starting the
 *       program at all)
 *
 * Prints "name: value" lines and "ok", or "FAIL" when a run fails, and
 * records the figure for doc/BENCHMARKS.md (bench/figure.h).
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/figure.h"

#define RUNS 101

extern char **environ;

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median seconds of RUNS runs of @argv, output to /dev/null; < 0 if one failed. */
static double median(char *const *argv)
{
	posix_spawn_file_actions_t fa;
	struct timespec t0, t1;
	double t[RUNS];
	int i, status;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	for (i = 0; i < RUNS; i++) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) ||
		    waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
			posix_spawn_file_actions_destroy(&fa);
			return -1;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		t[i] = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	}
	posix_spawn_file_actions_destroy(&fa);
	qsort(t, RUNS, sizeof(t[0]), cmp);
	return t[RUNS / 2];
}

int main(int argc, char **argv)
{
	char net[] = "net", sh[] = "show", ver[] = "--version";
	char *show[] = {argv[1], net, sh, NULL}, *version[] = {argv[1], ver, NULL};
	char fm[64], fb[64], fq[32];
	double s, v;

	if (argc != 2) {
		fprintf(stderr, "usage: bench-cli LNETCTL\n");
		return 2;
	}
	s = median(show);
	v = median(version);
	if (s < 0 || v < 0) {
		printf("C1 lnetctl failed\nFAIL\n");
		return 1;
	}
	printf("C1 lnetctl net show, 64 NIs, median ms (target <= 10): %.2f\n", s * 1e3);
	printf("C1 ratio net show / --version (starting the program): %.2f\n", s / v);
	bench_figure(
		"C1", "-",
		"lnetctl net show with 64 NIs, process start to exit (median of 101) ÷ lnetctl "
		"--version (starting the program at all)",
		bench_fmt(fm, "%.2f ms", s * 1e3), bench_fmt(fb, "%.2f ms, --version", v * 1e3),
		bench_fmt(fq, "%.2f", s / v), "≤ 10 ms", bench_verdict(s <= 0.010));
	printf("ok\n");
	return 0;
}
