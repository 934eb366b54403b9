#!/bin/sh
# A short libFuzzer run of the Lustre TBF listings' parser
# (tests/fuzz/fuzz-lutbf.c) as part of `make check`, from listings a
# 2.17.57 guest printed and a 2.15-style one.  Long runs by hand
# (Makefile.am's fuzz section).  TAP output.
set -u
fuzzer=${FUZZER:-tests/fuzz/fuzz-lutbf}
echo "1..1"
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
pol='
regular_requests:
  - name: fifo
    state: started
    fallback: yes
    queued: 0
    active: 0

  - name: tbf nid
    state: started
    fallback: no
    queued: 0
    active: 0

high_priority_requests:
  - name: fifo
    state: started
    fallback: yes
    queued: 0
    active: 0

  - name: tbf nid
    state: started
    fallback: no
    queued: 0
    active: 0
'
{
	printf '%s\0' "$pol"
	printf 'regular_requests:\nCPT 0:\na nid={0@lo} 10, ref 1\ndefault * 250, ref 0\nCPT 1:\n'
	printf 'a nid={0@lo} 10, ref 0\ndefault * 250, ref 0\nhigh_priority_requests:\nCPT 0:\n'
	printf 'b nid={10.0.0.[1]@tcp 10.0.0.[3]@tcp} 20, ref 0\ndefault * 5000, ref 0\nCPT 1:\n'
	printf 'default * 5000, ref 0\n'
} >"$corpus/listing"
{
	printf '%s\0' "$pol"
	printf 'regular_requests:\nCPT 0:\nx {dd.0 cp.*} 7, ref 2\ndefault {*} 10000, ref 0\n'
} >"$corpus/old"
printf '\nregular_requests:\n  - name: fifo\n    state: started\n    fallback: yes\n' >"$corpus/fifo"
mkdir "$corpus/new"
if "$fuzzer" -runs="${FUZZ_RUNS:-200000}" -max_len=2048 -seed=1 \
	-artifact_prefix="$corpus/" "$corpus/new" "$corpus" >"$corpus/log" 2>&1; then
	echo "ok 1 - fuzz-lutbf smoke: $(grep -o 'Done [0-9]* runs' "$corpus/log")"
else
	sed 's/^/# /' "$corpus/log" | tail -n 40
	echo "not ok 1 - fuzz-lutbf smoke"
fi
