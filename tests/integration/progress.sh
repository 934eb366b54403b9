#!/bin/sh
# lnetctl import tells what it is doing on a terminal: run under a pty
# (script), a large import shows its phases on one line, rewritten and
# cleared at the end; piped, it prints nothing more than before; --progress
# and --no-progress override, and an error starts on a clean line.  Against
# a real lnetd on a private bus.  TAP.
set -u
. "$(dirname "$0")/lib.sh"
LNETD=${LNETD:-lnetd/lnetd}
LNETCTL=${LNETCTL:-lnetctl/lnetctl}
if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root (lnetd takes changes from root on a private bus)"
	exit 0
fi
if ! script -qec true /dev/null >/dev/null 2>&1; then
	echo "1..0 # SKIP needs script (util-linux) to give lnetctl a terminal"
	exit 0
fi
ESC=$(printf '\033')
CR=$(printf '\r')

# peers N FILE: N peers with 2 NIDs each.
peers() {
	awk -v n="$1" 'BEGIN {
		print "peer:"
		for (i = 0; i < n; i++) {
			b = int(i / 256) % 256; d = i % 256
			printf "    - primary nid: 10.80.%d.%d@tcp\n      peer ni:\n", b, d
			printf "        - nid: 10.80.%d.%d@tcp\n        - nid: 10.81.%d.%d@tcp\n", b, d, b, d
		}
	}' >"$2"
}

# tty CMD...: lnetctl on a terminal; what the terminal got in $T/tty, status in $RC.
tty() {
	script -qec "$(printf '%s ' "$LNETCTL" "$@")" /dev/null >"$T/tty" 2>&1 </dev/null
	RC=$?
}

start_bus
check "lnetd starts" start_lnetd
peers 3000 "$T/p.yaml"

tty import --dry-run "$T/p.yaml"
check "on a terminal, a dry run of 3,000 peers succeeds" test "$RC" = 0
check "showing that it reads the file" grep -q "lnetctl import: reading $T/p.yaml\.\.\." "$T/tty"
check "and expands 3,000 objects" grep -q "lnetctl import: expanding 3000 objects\.\.\." "$T/tty"
check "and waits for lnetd" grep -q "lnetctl import: lnetd is applying 3000 objects as one change\.\.\." "$T/tty"
check "each phase rewrites the one line" grep -q "\.\.\.${CR}${ESC}\[Klnetctl import: " "$T/tty"
check "which is cleared before the result is printed" grep -q "${CR}${ESC}\[Kdry run:" "$T/tty"

OUT=$("$LNETCTL" import "$T/p.yaml" 2>"$T/err")
check "piped, the import succeeds" test $? = 0
check "and says nothing on stderr" test ! -s "$T/err"
bprop Generation
check "it was one change" has 't 1'

tty import --no-progress --dry-run "$T/p.yaml"
check "--no-progress on a terminal" test "$RC" = 0
check "shows no progress" sh -c '! grep -q "lnetctl import:" "$1"' - "$T/tty"

"$LNETCTL" import --progress --dry-run "$T/p.yaml" >/dev/null 2>"$T/err"
check "--progress when piped" test $? = 0
check "writes each phase as a line of its own" grep -qx "lnetctl import: expanding 3000 objects\.\.\." "$T/err"
check "and the last word" grep -qx "lnetctl import: judged 3000 objects" "$T/err"
check "without a terminal's escapes" sh -c '! grep -q "$1" "$2"' - "$ESC" "$T/err"

"$LNETCTL" import --progress --no-progress "$T/p.yaml" 2>"$T/err"
check "--progress with --no-progress is a usage error" test $? = 2
OUT=$(cat "$T/err")
check "naming both" has "--progress and --no-progress go alone"

OUT=$("$LNETCTL" import --show --progress "$T/p.yaml" 2>"$T/err")
check "--show prints the file only" test ! -s "$T/err"

printf 'peer:\n    - primary nid: 10.80.0.1@tcp\n      peer ni: [\n' >"$T/bad.yaml"
tty import "$T/bad.yaml"
check "a bad file on a terminal fails" test "$RC" = 5
# (the error is Lustre's YAML block, naming the file's line in descr:)
check "its error starts on a cleared line" grep -q "${CR}${ESC}\[K---" "$T/tty"
check "and names the file's line" grep -q "descr: .*$T/bad.yaml:4:" "$T/tty"
check "never after a phase's dots" sh -c '! grep -q "\.\.\.lnetctl import: " "$1"' - "$T/tty"
finish
