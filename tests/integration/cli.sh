#!/bin/sh
# lnetctl from tables: every command and verb, good and bad, against a real
# lnetd on a private bus.  TAP, one line per row.
#
# tests/data/cli/[0-9]*.tsv run in name order against one lnetd, each file
# top to bottom, so a row may rely on the rows before it (add, then show);
# then lnetd stops and no-lnetd.tsv runs on the bus without it.  A row is
#
#   EXIT <TAB> ARGV [<TAB> EXPECT [<TAB> TODO why]]
#
# EXIT is lnetctl's exit code (0 ok, 1 refused by lnetd, 2 usage, 3 lnetd
# unreachable, 4 permission denied, 5 file unreadable or unparsable).  ARGV
# is shell words (quotes and '< FILE' work, globbing does not) in which
# $D is the test data directory, $T the test's temporary directory, $GEN
# lnetd's generation before the row and $PREV the one before that.  ARGV
# may start with @nobody (run as uid and gid 65534, no groups), @nodaemon
# (DBUS_SYSTEM_BUS_ADDRESS names a socket nobody listens on) or @same
# (a change that must change nothing).  EXPECT is text that stdout or
# stderr must contain; "!TEXT": must not contain; "=TEXT": stdout and
# stderr together are exactly TEXT ("=" alone: nothing at all).  A fourth
# column marks a row that fails because of a known bug (a TAP TODO): the
# row keeps the right expectation and turns into an XPASS, which fails
# `make check`, the day the bug is fixed.
#
# Every row also checks what holds for all of them: a non-zero exit says
# why on stderr (or, for the NIDs a ping or discover did not reach, in
# upstream's "manage:" list on stdout), and a row that exits non-zero, reads
# (show, export, explain, status, history, --help, --dry-run, --show) or
# is marked @same leaves lnetd's export and generation as they were.
# After the tables, one check no row can make: a rollback's recorded change.
set -u
. "$(dirname "$0")/lib.sh"
LNETD=${LNETD:-lnetd/lnetd}
LNETCTL=${LNETCTL:-lnetctl/lnetctl}
D=${TEST_DATA_DIR:-$(cd "$(dirname "$0")/../data" && pwd)}
TABLES=$D/cli

if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root"
	exit 0
fi
if ! command -v setpriv >/dev/null; then
	echo "1..0 # SKIP needs setpriv (util-linux)"
	exit 0
fi
TAB=$(printf '\t')
NL='
'

# gen: lnetd's generation, from the bus itself rather than through lnetctl.
gen() {
	busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" --timeout="$TEST_WAIT" get-property org.lnetd1 \
		/org/lnetd1 org.lnetd1.Manager Generation 2>&1 | sed 's/^t //'
}

# state FILE: what a row must not change, generation and export, into FILE.
state() {
	{
		echo "generation $(gen)"
		"$LNETCTL" export 2>&1
		echo "export: exit $?"
	} >"$1"
}

# reads ARGV: the row only looks (whatever its exit code, nothing changes).
reads() {
	case " $1 " in
	*" --help "* | *" --dry-run "* | *" -n "* | *" --show "*) return 0 ;;
	esac
	case $1 in
	"net show"* | "peer show"* | "route show"* | "udsp show"* | "global show"* | \
		export* | explain* | status* | history* | ping* | help | -*) return 0 ;;
	esac
	return 1
}

# row FILE:LINE EXIT ARGV EXPECT TODO STATEFUL: run one row, print its TAP line.
row() {
	where=$1 want_rc=$2 argv=$3 expect=$4 todo=$5 stateful=$6
	a=$argv pre='' same=''
	case $a in
	"@nobody "*) pre="setpriv --reuid=65534 --regid=65534 --clear-groups" a=${a#@nobody } ;;
	"@nodaemon "*)
		pre="env LNETD_PRIVATE_SOCKET=$T/nobody-listens DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/nobody-listens"
		a=${a#@nodaemon }
		;;
	"@same "*) same=1 a=${a#@same } ;;
	esac
	GEN='' PREV=''
	if [ "$stateful" ]; then
		# The state after the row before (a first row takes its own).
		[ -f "$T/before" ] || state "$T/before"
		GEN=$(sed -n '1s/^generation //p' "$T/before")
		case $GEN in *[!0-9]* | "") GEN=0 ;; esac
		# shellcheck disable=SC2034 # a row's eval may use it
		PREV=$((GEN - 1))
	fi
	# The row's words: $D, $T, $GEN and $PREV expand, globs do not.
	set -f
	eval "$pre \"\$LNETCTL\" $a" </dev/null >"$T/out" 2>"$T/err"
	rc=$?
	set +f
	out=$(cat "$T/out" "$T/err")
	why=
	[ "$rc" = "$want_rc" ] || why="exit $rc, expected $want_rc"
	case $expect in
	"") ;;
	"=")
		[ -z "$out" ] || why="${why:+$why; }expected no output"
		;;
	=*)
		[ "$out" = "${expect#=}" ] || why="${why:+$why; }expected exactly: ${expect#=}"
		;;
	!*)
		case $out in *"${expect#!}"*) why="${why:+$why; }must not say: ${expect#!}" ;; esac
		;;
	*)
		case $out in *"$expect"*) ;; *) why="${why:+$why; }expected to find: $expect" ;; esac
		;;
	esac
	# (the NIDs a ping or discover did not reach are upstream's "manage:" list on stdout)
	if [ "$rc" != 0 ] && ! [ -s "$T/err" ] && ! grep -q '^manage:$' "$T/out"; then
		why="${why:+$why; }exit $rc without a word on stderr"
	fi
	if [ "$stateful" ]; then
		state "$T/after"
		if { [ "$rc" != 0 ] || [ "$same" ] || reads "$a"; } &&
			! cmp -s "$T/before" "$T/after"; then
			why="${why:+$why; }the state changed:$NL$(diff "$T/before" "$T/after")"
		fi
		mv "$T/after" "$T/before"
	fi
	d="[rc $want_rc] $argv"
	if [ -z "$why" ]; then
		ok "$d${todo:+ # $todo}"
		return
	fi
	if [ "$todo" ]; then
		n=$((n + 1)) # a known bug: reported, not counted as a failure
		echo "not ok $n - $d # $todo"
	else
		not_ok "$d"
	fi
	diag "$where: $why" "stdout: $(cat "$T/out")" "stderr: $(cat "$T/err")"
}

# table FILE STATEFUL: every row of FILE.
table() {
	line=0
	while IFS= read -r l || [ -n "$l" ]; do
		line=$((line + 1))
		case $l in "" | "#"*) continue ;; esac
		case $l in
		*"$TAB"*) ;;
		*)
			not_ok "${1##*/}:$line: not a row (EXIT<TAB>ARGV...)"
			continue
			;;
		esac
		rc=${l%%"$TAB"*}
		rest=${l#*"$TAB"}
		argv=${rest%%"$TAB"*} expect='' todo=''
		case $rest in *"$TAB"*)
			rest=${rest#*"$TAB"}
			expect=${rest%%"$TAB"*}
			case $rest in *"$TAB"*) todo=${rest#*"$TAB"} ;; esac
			;;
		esac
		case $rc in
		[0-5]) ;;
		*)
			not_ok "${1##*/}:$line: '$rc' is not an exit code (0 to 5)"
			continue
			;;
		esac
		case $todo in
		"" | "TODO "?*) ;;
		*)
			not_ok "${1##*/}:$line: the fourth column must read 'TODO why'"
			continue
			;;
		esac
		row "${1##*/}:$line" "$rc" "$argv" "$expect" "$todo" "$2"
	done <"$1"
}

start_bus
check "lnetd starts" start_lnetd
# The tables go through the bus, as a user's lnetctl does (security.sh and
# the rest of the tier take lnetd's own socket as root; direct.sh both).
LNETD_PRIVATE_SOCKET=
for f in "$TABLES"/[0-9]*.tsv; do
	table "$f" 1
done

# A rollback records the difference it makes: each object once, whatever
# rollbacks came before (not a replay of every step since, which grows
# fourfold with each pair of rollbacks).
g=$(gen)
d="rollback 0 after rollbacks names each change once"
if ! { "$LNETCTL" rollback 0 && "$LNETCTL" rollback "$g" && "$LNETCTL" rollback 0; }; then
	not_ok "$d (a rollback failed)"
elif "$LNETCTL" history --limit 1 --full | sed -n 's/^    - //p' | sort | uniq -d >"$T/twice" &&
	[ -s "$T/twice" ]; then
	not_ok "$d"
	diag "named more than once:" "$(head -5 "$T/twice")"
else
	ok "$d"
fi

# exact FILE: a case of tests/data/cli/exact/, where the output is compared
# byte for byte (Lustre's YAML layouts: errors, ping's unreached NIDs,
# --list-commands, commands read from the input).  Its lines: "+ ARGV" for
# each command to run first (it must succeed), then EXIT<TAB>ARGV, then
# "@@ stdout" and the exact standard output, "@@ stderr" and the exact
# standard error.  ARGV is shell words, as in the tables ($D, $T, '< FILE').
exact() {
	f=$1 name=${1##*/} why=
	sed -n 's/^+ //p' "$f" >"$T/x.setup"
	grep -v '^+ ' "$f" | head -n 1 >"$T/x.head"
	IFS="$TAB" read -r want argv <"$T/x.head"
	awk '/^@@ stdout$/ { o = 1; next } /^@@ stderr$/ { o = 0; next } o' "$f" >"$T/x.out"
	awk '/^@@ stderr$/ { o = 1; next } /^@@ stdout$/ { o = 0; next } o' "$f" >"$T/x.err"
	set -f
	while IFS= read -r pre; do
		eval "\"\$LNETCTL\" $pre" </dev/null >"$T/pre.out" 2>&1 ||
			why="${why:+$why; }'$pre' failed: $(cat "$T/pre.out")"
	done <"$T/x.setup"
	eval "\"\$LNETCTL\" $argv" </dev/null >"$T/got.out" 2>"$T/got.err"
	rc=$?
	set +f
	[ "$rc" = "$want" ] || why="${why:+$why; }exit $rc, expected $want"
	cmp -s "$T/got.out" "$T/x.out" ||
		why="${why:+$why; }stdout differs:$NL$(diff "$T/x.out" "$T/got.out")"
	cmp -s "$T/got.err" "$T/x.err" ||
		why="${why:+$why; }stderr differs:$NL$(diff "$T/x.err" "$T/got.err")"
	if [ -z "$why" ]; then
		ok "exact $name: [rc $want] $argv"
	else
		not_ok "exact $name: [rc $want] $argv"
		diag "$why"
	fi
}
# From nothing configured (the rollback above), in name order.
for f in "$D"/cli/exact/*.txt; do
	exact "$f"
done

stop_lnetd
check "lnetd stops cleanly" test "$LNETD_RC" = 0
table "$TABLES/no-lnetd.tsv" ""
finish
