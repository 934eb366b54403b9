#!/bin/sh
# A short libFuzzer run of the data path's parser (tests/fuzz/fuzz-wire.c)
# as part of `make check`, from a corpus of well-formed starts: a ping, a
# PUT with a payload, a NOOP, and the large-NID forms.  Long runs by hand
# (Makefile.am's fuzz section).  TAP output.
set -u
fuzzer=${FUZZER:-tests/fuzz/fuzz-wire}
echo "1..1"
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
# byte 0: 1 = after a good handshake, chunks of 2^((b>>1)&7); then socklnd frames
printf '\001\301\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' >"$corpus/noop-ish"
printf '\005\300\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' >"$corpus/noop"
# bits 0 and 6: after a good large-NID handshake, a NOOP
printf '\101\300\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' >"$corpus/noop16"
printf '\000\000\161\316\254\001\000\000\000\001\000\000\012\000\000\002\000' >"$corpus/connreq"
# byte 0 bit 5: the large-NID parsers; a version 4 hello, ping info with an IPv6 NID
printf '\040\143\151\162\105\004\000\000\000\014\002\000\000\040\001\015\270\000\000\000\000\000\000\000\000\000\000\000\001\014\002\000\000\040\001\015\270\000\000\000\000\000\000\000\000\000\000\000\002\071\060\000\000\071\060\000\000\007\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\001\000\000\000\000\000\000\000' >"$corpus/hello16"
printf '\040\147\156\151\160\043\000\000\000\071\060\000\000\001\000\000\000\000\000\000\000\000\000\011\000\007\000\000\000\050\000\000\000\336\300\252\025\014\002\000\000\040\001\015\270\000\000\000\000\000\000\000\000\000\000\000\001' >"$corpus/ping16"
# found by CI's run: an ACK for nothing sent (counted, not fatal), then a
# frame that ends the connection
echo 'AcEAAADJAAAAAAAAAAAAAAAAAAAAAAAAAAEAAAoAAAIAAHHOrAEAAAAAAAEAAAoAAAAAAAAAAAAAwQAAAMkAAAAAAAAAAAAAAAAAAAAAAAAAAQAACgAAAgAAcc6sAQAAAAAAAQAACgAAAAAAAAAAAAAAADj///7/////NjMxMzM0N3HOrBEAAAA4///+/////zYzMTMzNDdxzqwRAAAAAQAAADY2AAAAAAAAgAAAAAA=' |
	base64 -d >"$corpus/unmatched-then-fatal"
mkdir "$corpus/new"
if "$fuzzer" -runs="${FUZZ_RUNS:-200000}" -max_len=4096 -seed=1 \
	-artifact_prefix="$corpus/" "$corpus/new" "$corpus" >"$corpus/log" 2>&1; then
	echo "ok 1 - fuzz-wire smoke: $(grep -o 'Done [0-9]* runs' "$corpus/log")"
else
	sed 's/^/# /' "$corpus/log" | tail -n 40
	echo "not ok 1 - fuzz-wire smoke"
fi
