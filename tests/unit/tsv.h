/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Table-driven tests read their cases from tests/data/NAME.tsv: one case per
 * line, TAB-separated fields (spaces are data), '#' comments and blank lines
 * skipped.  The same files can be replayed by other tiers.
 */
#ifndef LNETD_TSV_H
#define LNETD_TSV_H

#include <stddef.h>

#define TSV_MAX_FIELDS 8

struct tsv_row {
	int line;
	int nfields;
	char *field[TSV_MAX_FIELDS];
};

struct tsv {
	const char *path;
	size_t nrows;
	struct tsv_row *rows;
	char *text;
};

/* Load TEST_DATA_DIR/@name, every row with @nfields fields; fails the test otherwise. */
void tsv_load(struct tsv *t, const char *name, int nfields);
void tsv_free(struct tsv *t);

#endif
