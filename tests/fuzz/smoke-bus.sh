#!/bin/sh
# A short libFuzzer run of lnetd's D-Bus methods (fuzz-bus) as part of
# `make check`.  Long runs by hand: see tests/fuzz/fuzz-bus.am.  TAP.
set -u
fuzzer=${FUZZER:-tests/fuzz/fuzz-bus}
echo "1..1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
if "$fuzzer" -runs="${FUZZ_RUNS:-3000}" -max_len=4096 -len_control=20 -seed=1 \
	-artifact_prefix="$dir/" "$dir" >"$dir/log" 2>&1; then
	echo "ok 1 - fuzz-bus smoke: $(grep -o 'Done [0-9]* runs' "$dir/log")"
else
	sed 's/^/# /' "$dir/log" | tail -n 40
	echo "not ok 1 - fuzz-bus smoke"
fi
