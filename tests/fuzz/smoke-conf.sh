#!/bin/sh
# A short libFuzzer run of lnetctl's lnet.conf reader (tests/fuzz/fuzz-conf),
# seeded with every file of the lnet.conf corpus, good and bad, and its
# dictionary of keys and tokens, as part of `make check`.  Long runs by hand (lnetctl/conf.am).  TAP output.
set -u
fuzzer=${FUZZER:-tests/fuzz/fuzz-conf}
data=${TEST_DATA_DIR:?}
echo "1..1"
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
mkdir "$corpus/seed" "$corpus/new"
for f in "$data"/lnetconf/*.yaml "$data"/lnetconf/bad/*.yaml "$data"/lnetconf/fuzz/*; do
	[ -f "$f" ] || continue
	sum=$(cksum <"$f" | cut -d' ' -f1)
	cp "$f" "$corpus/seed/$sum"
done
if "$fuzzer" -runs="${FUZZ_RUNS:-50000}" -max_len=4096 -seed=1 -timeout=600 \
	-dict="$data/lnetconf/fuzz-conf.dict" -artifact_prefix="$corpus/" "$corpus/new" "$corpus/seed" \
	>"$corpus/log" 2>&1; then
	echo "ok 1 - fuzz-conf smoke: $(grep -o 'Done [0-9]* runs' "$corpus/log")"
else
	sed 's/^/# /' "$corpus/log" | tail -n 40
	echo "not ok 1 - fuzz-conf smoke"
fi
