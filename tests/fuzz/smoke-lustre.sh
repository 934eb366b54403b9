#!/bin/sh
# A short libFuzzer run of the lnet.ko library's readers of what lnet.ko
# answers (tests/fuzz/fuzz-lustre.c) as part of `make check`, from a corpus
# of well-formed answers: a UDSP rule's descriptors, a peer's NIDs, and a
# netlink dump (key table, then values).  Long runs by hand (lustre.am).
# TAP output.
set -u
fuzzer=${FUZZER:-tests/fuzz/fuzz-lustre}
echo "1..1"
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
# u32s LE... : the little-endian bytes of each number
u32s() {
	for v in "$@"; do
		printf "\\$(printf %03o $((v & 255)))\\$(printf %03o $((v >> 8 & 255)))"
		printf "\\$(printf %03o $((v >> 16 & 255)))\\$(printf %03o $((v >> 24 & 255)))"
	done
}
# byte 0 = 0: --src tcp1 --dst 10.1.[2-6/2].*@tcp
{
	printf '\000'
	u32s 4411987 0 2 1 1 1 1 5526340 4 2 0 1 10 10 1 1 1 1 1 1 2 6 2 1 0 255 1 4543570 0 0 0
} >"$corpus/udsp"
# byte 0 = 1: two NIDs of a peer (the rest of each entry blank)
{
	printf '\001\002'
	u32s 167837953 131072
	head -c 276 /dev/zero
	u32s 167903489 131073
	head -c 276 /dev/zero
} >"$corpus/peer"
# byte 0 = 2: a key table {1: "net type" string} then a value "tcp"
{
	printf '\002'
	printf '\040\000\001\034\000\001\200\025\000\005\000net type\000\000\000\000\006\000\004\000\005\000\000\000'
	printf '\010\000\000\010\000\001\000tcp\000'
} >"$corpus/dump"
mkdir "$corpus/new"
if "$fuzzer" -runs="${FUZZ_RUNS:-200000}" -max_len=4096 -seed=1 \
	-artifact_prefix="$corpus/" "$corpus/new" "$corpus" >"$corpus/log" 2>&1; then
	echo "ok 1 - fuzz-lustre smoke: $(grep -o 'Done [0-9]* runs' "$corpus/log")"
else
	sed 's/^/# /' "$corpus/log" | tail -n 40
	echo "not ok 1 - fuzz-lustre smoke"
fi
