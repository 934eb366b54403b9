// SPDX-License-Identifier: GPL-2.0
/*
 * bench-run CMD [ARG...] - run CMD with its output to /dev/null and print
 * "SECONDS MAXRSS_KIB CPU_SECONDS" on stdout: its wall time, its peak
 * resident set and its user + system time (getrusage of the child).  Exit status: CMD's (127 if it cannot run).
 * bench/import.sh times lnetctl with it.
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

int main(int argc, char **argv)
{
	posix_spawn_file_actions_t fa;
	struct timespec t0, t1;
	struct rusage ru;
	int status = 0;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: bench-run CMD [ARG...]\n");
		return 2;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (posix_spawn(&pid, argv[1], &fa, NULL, argv + 1, environ) ||
	    wait4(pid, &status, 0, &ru) < 0) {
		perror(argv[1]);
		return 127;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	posix_spawn_file_actions_destroy(&fa);
	printf("%.4f %ld %.4f\n",
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9,
	       ru.ru_maxrss,
	       (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}
