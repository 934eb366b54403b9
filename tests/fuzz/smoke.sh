#!/bin/sh
# A short libFuzzer run of the NID/expression target, seeded with every
# input of the tests/data tables, as part of `make check`.  Long runs are
# done by hand (see the fuzz section of Makefile.am).  TAP output.
set -u
fuzzer=${FUZZER:-tests/fuzz/fuzz-nid}
data=${TEST_DATA_DIR:?}
echo "1..1"
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
# Byte 0 picks the grammar: 'N' (even) = NID, 'E' (odd) = expression.
for f in "$data"/nid-*.tsv "$data"/expr-*.tsv; do
	case $f in */nid-*) kind=N ;; *) kind=E ;; esac
	grep -v '^#' "$f" | cut -f1 | while IFS= read -r line; do
		[ -n "$line" ] || continue
		sum=$(printf '%s' "$line" | cksum | cut -d' ' -f1)
		printf '%s%s' "$kind" "$line" >"$corpus/$kind-$sum"
	done
done
mkdir "$corpus/new"
if "$fuzzer" -runs="${FUZZ_RUNS:-300000}" -max_len=512 -seed=1 \
	-artifact_prefix="$corpus/" "$corpus/new" "$corpus" \
	>"$corpus/log" 2>&1; then
	echo "ok 1 - fuzz-nid smoke: $(grep -o 'Done [0-9]* runs' "$corpus/log")"
else
	sed 's/^/# /' "$corpus/log" | tail -n 40
	echo "not ok 1 - fuzz-nid smoke"
fi
