// SPDX-License-Identifier: GPL-2.0
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsv.h"

static char *slurp(const char *path)
{
	size_t cap = 65536, len = 0, n;
	char *text = malloc(cap);
	FILE *f = fopen(path, "r");

	ck_assert_msg(f, "cannot open %s", path);
	ck_assert(text);
	while ((n = fread(text + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len < 4096) {
			cap *= 2;
			text = realloc(text, cap);
			ck_assert(text);
		}
	}
	fclose(f);
	text[len] = '\0';
	return text;
}

void tsv_load(struct tsv *t, const char *name, int nfields)
{
	static char path[4096];
	char *line, *next;
	int lineno = 0;

	snprintf(path, sizeof(path), "%s/%s", TEST_DATA_DIR, name);
	memset(t, 0, sizeof(*t));
	t->path = path;
	t->text = slurp(path);
	for (line = t->text; *line; line = next) {
		struct tsv_row *row;
		char *tab;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		lineno++;
		if (!*line || *line == '#')
			continue;
		t->rows = realloc(t->rows, (t->nrows + 1) * sizeof(*t->rows));
		ck_assert(t->rows);
		row = &t->rows[t->nrows++];
		memset(row, 0, sizeof(*row));
		row->line = lineno;
		row->field[row->nfields++] = line;
		while ((tab = strchr(line, '\t')) && row->nfields < TSV_MAX_FIELDS) {
			*tab = '\0';
			line = tab + 1;
			row->field[row->nfields++] = line;
		}
		ck_assert_msg(row->nfields == nfields, "%s:%d: %d fields, expected %d", path,
			      lineno, row->nfields, nfields);
	}
	ck_assert_msg(t->nrows > 0, "%s has no cases", path);
}

void tsv_free(struct tsv *t)
{
	free(t->rows);
	free(t->text);
	memset(t, 0, sizeof(*t));
}
