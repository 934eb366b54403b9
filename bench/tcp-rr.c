// SPDX-License-Identifier: GPL-2.0
/*
 * tcp-rr.c - raw TCP baselines for the data path's figures (bench/dp.sh):
 * what the same veth carries without LNet.
 *
 *   tcp-rr serve ADDR PORT                  answer clients, one at a time
 *   tcp-rr rr ADDR PORT SIZE COUNT          round trips of SIZE bytes each way:
 *                                           prints the mean round trip in µs
 *   tcp-rr stream ADDR PORT SIZE COUNT      COUNT messages of SIZE bytes, one
 *                                           write each, until the server read
 *                                           them all: prints messages/s
 *
 * TCP_NODELAY on both ends, as LNet's sockets have it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define SIZE_MAX_ 65536

static int full(int fd, void *buf, size_t n, int wr)
{
	char *p = buf;

	while (n) {
		ssize_t k = wr ? write(fd, p, n) : read(fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static int addr(const char *a, const char *port, struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)atoi(port));
	return inet_pton(AF_INET, a, &sa->sin_addr) == 1 ? 0 : -1;
}

static int serve(struct sockaddr_in *sa)
{
	static char buf[SIZE_MAX_];
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (l < 0 || bind(l, (struct sockaddr *)sa, sizeof(*sa)) || listen(l, 4)) {
		perror("tcp-rr serve");
		return 1;
	}
	for (;;) {
		uint32_t hdr[3];
		int c = accept(l, NULL, NULL);
		uint32_t i;

		if (c < 0)
			continue;
		nodelay(c);
		if (full(c, hdr, sizeof(hdr), 0) || hdr[1] > SIZE_MAX_) {
			close(c);
			continue;
		}
		for (i = 0; i < hdr[2]; i++) {
			if (full(c, buf, hdr[1], 0))
				break;
			if (hdr[0] == 'P' && full(c, buf, hdr[1], 1))
				break;
		}
		if (hdr[0] == 'S')
			full(c, buf, 1, 1); /* all read */
		close(c);
	}
}

int main(int argc, char **argv)
{
	static char buf[SIZE_MAX_];
	struct sockaddr_in sa;
	uint32_t hdr[3], i;
	double t0, t1;
	int fd;

	if (argc == 4 && !strcmp(argv[1], "serve") && !addr(argv[2], argv[3], &sa))
		return serve(&sa);
	if (argc != 6 || addr(argv[2], argv[3], &sa) ||
	    (strcmp(argv[1], "rr") && strcmp(argv[1], "stream"))) {
		fprintf(stderr, "usage: tcp-rr serve ADDR PORT | rr|stream ADDR PORT SIZE COUNT\n");
		return 2;
	}
	hdr[0] = argv[1][0] == 'r' ? 'P' : 'S';
	hdr[1] = (uint32_t)atoi(argv[4]);
	hdr[2] = (uint32_t)atoi(argv[5]);
	if (hdr[1] < 1 || hdr[1] > SIZE_MAX_ || !hdr[2]) {
		fprintf(stderr, "tcp-rr: SIZE 1..%d, COUNT at least 1\n", SIZE_MAX_);
		return 2;
	}
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("tcp-rr connect");
		return 1;
	}
	nodelay(fd);
	if (full(fd, hdr, sizeof(hdr), 1))
		return 1;
	t0 = now();
	for (i = 0; i < hdr[2]; i++) {
		if (full(fd, buf, hdr[1], 1))
			return 1;
		if (hdr[0] == 'P' && full(fd, buf, hdr[1], 0))
			return 1;
	}
	if (hdr[0] == 'S' && full(fd, buf, 1, 0))
		return 1;
	t1 = now();
	if (hdr[0] == 'P')
		printf("%.2f\n", (t1 - t0) / hdr[2] * 1e6);
	else
		printf("%.0f\n", hdr[2] / (t1 - t0));
	return 0;
}
