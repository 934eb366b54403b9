#!/bin/sh
# A short libFuzzer run of the data path's parser (tests/fuzz/fuzz-wire.c)
# as part of `make check`, from a corpus of well-formed starts: a ping, a
# PUT with a payload, a NOOP.  Long runs by hand (Makefile.am's fuzz
# section).  TAP output.
set -u
fuzzer=${FUZZER:-tests/fuzz/fuzz-wire}
echo "1..1"
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
# byte 0: 1 = after a good handshake, chunks of 2^((b>>1)&7); then socklnd frames
printf '\001\301\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' >"$corpus/noop-ish"
printf '\005\300\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' >"$corpus/noop"
printf '\000\000\161\316\254\001\000\000\000\001\000\000\012\000\000\002\000' >"$corpus/connreq"
mkdir "$corpus/new"
if "$fuzzer" -runs="${FUZZ_RUNS:-200000}" -max_len=4096 -seed=1 \
	-artifact_prefix="$corpus/" "$corpus/new" "$corpus" >"$corpus/log" 2>&1; then
	echo "ok 1 - fuzz-wire smoke: $(grep -o 'Done [0-9]* runs' "$corpus/log")"
else
	sed 's/^/# /' "$corpus/log" | tail -n 40
	echo "not ok 1 - fuzz-wire smoke"
fi
