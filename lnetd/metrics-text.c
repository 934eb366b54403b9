// SPDX-License-Identifier: GPL-2.0
/*
 * metrics-text.c - see metrics-text.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics-text.h"

static void put(struct mx *m, const char *s, size_t n)
{
	if (m->err)
		return;
	if (m->len + n + 1 > m->cap) {
		size_t cap = m->cap ? m->cap : 4096;
		char *b;

		while (m->len + n + 1 > cap)
			cap *= 2;
		b = realloc(m->buf, cap);
		if (!b) {
			m->err = -ENOMEM;
			return;
		}
		m->buf = b;
		m->cap = cap;
	}
	memcpy(m->buf + m->len, s, n);
	m->len += n;
	m->buf[m->len] = '\0';
}

static void puts_(struct mx *m, const char *s)
{
	put(m, s, strlen(s));
}

/* @s with backslash and newline escaped, and double quotes too if @quotes (label values). */
static void put_escaped(struct mx *m, const char *s, int quotes)
{
	const char *run = s;

	for (; *s; s++) {
		const char *esc = *s == '\\' ? "\\\\" : *s == '\n' ? "\\n" : NULL;

		if (!esc && quotes && *s == '"')
			esc = "\\\"";
		if (!esc)
			continue;
		put(m, run, (size_t)(s - run));
		puts_(m, esc);
		run = s + 1;
	}
	put(m, run, (size_t)(s - run));
}

void mx_family(struct mx *m, const char *name, const char *type, const char *help)
{
	m->family = name;
	puts_(m, "# HELP ");
	puts_(m, name);
	put(m, " ", 1);
	put_escaped(m, help, 0);
	puts_(m, "\n# TYPE ");
	puts_(m, name);
	put(m, " ", 1);
	puts_(m, type);
	put(m, "\n", 1);
}

static void sample(struct mx *m, const char *const *labels, const char *value)
{
	size_t i;

	puts_(m, m->family);
	for (i = 0; labels && labels[i]; i += 2) {
		puts_(m, i ? "," : "{");
		puts_(m, labels[i]);
		puts_(m, "=\"");
		put_escaped(m, labels[i + 1] ? labels[i + 1] : "", 1);
		put(m, "\"", 1);
	}
	puts_(m, i ? "} " : " ");
	puts_(m, value);
	put(m, "\n", 1);
}

void mx_u64(struct mx *m, const char *const *labels, uint64_t v)
{
	char s[24];

	snprintf(s, sizeof(s), "%llu", (unsigned long long)v);
	sample(m, labels, s);
}

void mx_seconds(struct mx *m, const char *const *labels, uint64_t ns)
{
	char s[32];

	snprintf(s, sizeof(s), "%llu.%09llu", (unsigned long long)(ns / 1000000000u),
		 (unsigned long long)(ns % 1000000000u));
	sample(m, labels, s);
}

void mx_free(struct mx *m)
{
	free(m->buf);
	*m = (struct mx){0};
}
