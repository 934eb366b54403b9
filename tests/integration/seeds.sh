#!/bin/sh
# The seed documents' examples, verbatim: every command and YAML block the
# UDSP (000), Multi-Rail (001) and NRS TBF (002) designs print is a case in
# tests/data/seeds/, run against a real lnetd on a private bus, each in a
# fresh state (an lnetd with an empty state dir).  TAP, one line per case.
# tests/data/seeds/README describes the case files.
#
# Where it can, the test runs in a network namespace of its own with two
# interfaces, ib0 (192.168.2.3/24) and ib1 (192.168.2.4/24), so that the
# design's "this results in the NIDs ..." can be checked on the NIs lnetd
# brings up; without one, those checks (show-ifs) are left out, and said so.
#
# When the seeds are at hand (SEEDS_DIR, by default ../shared/seeds next to
# the source tree), each case's verbatim text is compared with the seed's
# lines it names, so a case cannot drift from what the design prints.
set -u
if [ -z "${SEEDS_HOST_NETNS:-}" ] && [ "$(id -u)" = 0 ] && unshare -n true 2>/dev/null; then
	# The bus socket is a file, reachable from the new namespace.
	SEEDS_HOST_NETNS=$(readlink /proc/self/ns/net)
	export SEEDS_HOST_NETNS
	exec unshare -n sh "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
LNETD=${LNETD:-lnetd/lnetd}
L=${LNETCTL:-lnetctl/lnetctl}
D=${TEST_DATA_DIR:-$(cd "$(dirname "$0")/../data" && pwd)}/seeds
TOP=${TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SEEDS_DIR=${SEEDS_DIR:-$TOP/../shared/seeds}
NL='
'

if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root"
	exit 0
fi

IFS_UP=
# Only in a namespace other than the one the test was started in.
if [ -n "${SEEDS_HOST_NETNS:-}" ] && [ -n "$(readlink /proc/self/ns/net)" ] &&
	[ "$(readlink /proc/self/ns/net)" != "$SEEDS_HOST_NETNS" ] &&
	ip link add ib0 type veth peer name ibp0 2>/dev/null &&
	ip link add ib1 type veth peer name ibp1 2>/dev/null; then
	ip addr add 192.168.2.3/24 dev ib0
	ip addr add 192.168.2.4/24 dev ib1
	for i in ib0 ibp0 ib1 ibp1; do ip link set "$i" up; done
	IFS_UP=1
fi

start_bus

# fresh: an lnetd of an empty state of its own: a copy of the state dir
# an lnetd made once and left with nothing configured (quicker than making
# the database each time).
fresh() {
	[ -n "$LNETD_PID" ] && stop_lnetd
	rm -rf "$T/state"
	if [ -d "$T/state0" ]; then
		cp -a "$T/state0" "$T/state" || return 1
	fi
	start_lnetd || return 1
	if ! [ -d "$T/state0" ]; then
		stop_lnetd
		cp -a "$T/state" "$T/state0" || return 1
		start_lnetd
	fi
}

# parse FILE DIR: the case file's sections into DIR/NAME.K (K counts
# repeats of NAME) and their header words into DIR/NAME.K.args; lines before
# the first section are comments; trailing blank lines of a section dropped.
parse() {
	rm -rf "$2"
	mkdir "$2"
	awk -v dir="$2" '
	/^@@ / {
		name = $2; k[name]++; cur = dir "/" name "." k[name]
		args = $0; sub(/^@@ [^ ]+ ?/, "", args)
		print args > (cur ".args"); close(cur ".args")
		printf "" > cur
		blank = 0; next
	}
	cur == "" { next }
	/^$/ { blank++; next }
	{ while (blank > 0) { print "" > cur; blank-- } print > cur }
	' "$1"
}

# runl WANT-RC ARGS...: lnetctl, output (both streams) appended to $C/out;
# a wrong exit code, or a failure with nothing on stderr, adds to $why.
runl() {
	rwant=$1
	shift
	"$L" "$@" </dev/null >"$C/o1" 2>"$C/e1"
	got=$?
	{
		echo "\$ lnetctl $*"
		cat "$C/o1" "$C/e1"
	} >>"$C/out"
	cat "$C/o1" "$C/e1" >>"$C/said"
	[ "$got" = "$rwant" ] || why="${why}lnetctl $*: exit $got, expected $rwant$NL"
	if [ "$got" != 0 ] && ! [ -s "$C/e1" ]; then
		why="${why}lnetctl $*: exit $got without a word on stderr$NL"
	fi
}

# words LINE WANT-RC: an lnetctl command line as printed ("lnetctl > net
# add -h" too: lnetctl's prompt), split on blanks; nothing else is read
# into it: a quote, backslash, $ or placeholder <...> is a data error.
words() {
	w=$1
	w=${w#"${w%%[! 	]*}"}
	case $w in
	"lnetctl > "*) w=${w#lnetctl > } ;;
	"lnetctl "*) w=${w#lnetctl } ;;
	*)
		why="${why}not an lnetctl command line: $w$NL"
		return
		;;
	esac
	case $w in
	*[\'\"\\\$\<\>\`]*)
		why="${why}quotes, backslashes, \$ and <...> need run argv: $w$NL"
		return
		;;
	esac
	wrc=$2
	set -f
	# shellcheck disable=SC2086 # split on blanks on purpose (globbing is off)
	set -- $w
	set +f
	runl "$wrc" "$@"
}

# run_input MODE ARGS FILE WANT-RC: carry out a case's input in its mode.
run_input() {
	mode=$1 margs=$2 inp=$3 iwant=$4
	case $mode in
	lnetctl)
		while IFS= read -r line || [ -n "$line" ]; do
			[ -n "$line" ] || continue
			words "$line" "$iwant"
		done <"$inp"
		;;
	argv)
		# One argument per line; an empty line ends a command.
		set --
		while IFS= read -r a || [ -n "$a" ]; do
			if [ -z "$a" ]; then
				[ $# -gt 0 ] && runl "$iwant" "$@"
				set --
			else
				set -- "$@" "$a"
			fi
		done <"$inp"
		[ $# -gt 0 ] && runl "$iwant" "$@"
		;;
	import)
		cp "$inp" "$C/case.yaml"
		set -f
		# shellcheck disable=SC2086 # --del, or nothing
		set -- $margs
		set +f
		runl "$iwant" import "$@" "$C/case.yaml"
		;;
	lctl)
		lctl "$inp" "$iwant"
		;;
	*) why="${why}unknown run mode '$mode'$NL" ;;
	esac
}

# lctl FILE WANT-RC: the TBF design's lctl forms, as lnetctl runs them:
#   lctl set_param A.B.SVC.nrs_policies="STR"  ->  tbf policy set --service SVC "STR"
#   lctl set_param A.B.SVC.nrs_tbf_rule="STR"  ->  tbf rule --service SVC "STR"
#   lctl get_param A.B.SVC.nrs_policies        ->  tbf show --service SVC
# The service is the param path's last part before the parameter; STR is
# everything between the quotes, as the shell would pass it: a line break
# inside the quotes (the design's printed commands wrap) stays in it.
lctl() {
	v=$(cat "$1")
	v=${v#"${v%%[! 	]*}"}
	case $v in
	"lctl set_param "*=\"*\")
		rest=${v#lctl set_param }
		path=${rest%%=*} str=${rest#*=\"}
		str=${str%\"}
		;;
	"lctl get_param "*)
		path=${v#lctl get_param } str=
		;;
	*)
		why="${why}not an lctl set_param/get_param command: $v$NL"
		return
		;;
	esac
	param=${path##*.} svc=${path%.*}
	svc=${svc##*.}
	case $v:$param in
	"lctl set_param "*:nrs_policies) runl "$2" tbf policy set --service "$svc" "$str" ;;
	"lctl set_param "*:nrs_tbf_rule) runl "$2" tbf rule --service "$svc" "$str" ;;
	"lctl get_param "*:nrs_policies) runl "$2" tbf show --service "$svc" ;;
	*) why="${why}no lnetctl form for $param$NL" ;;
	esac
}

# setup FILE: the case's setup steps ("case ID": that case's input, which
# must succeed; "lnetctl ...": a command line, split on blanks).
setup() {
	while IFS= read -r s || [ -n "$s" ]; do
		case $s in
		"") ;;
		"case "*)
			sid=${s#case }
			if ! [ -f "$D/$sid.case" ]; then
				why="${why}setup: no case $sid$NL"
				continue
			fi
			P=$C/setup-$sid
			parse "$D/$sid.case" "$P"
			pin=$P/instance.1
			[ -f "$pin" ] || pin=$P/verbatim.1
			read -r pmode pargs <"$P/run.1.args"
			run_input "$pmode" "$pargs" "$pin" 0
			;;
		"lnetctl "*) words "$s" 0 ;;
		*) why="${why}setup: cannot run '$s'$NL" ;;
		esac
	done <"$1"
}

# subseq WANT GOT: every line of WANT is a line of GOT, in that order, but
# a line "!LINE" of WANT: LINE is no line of GOT.
subseq() {
	awk 'FILENAME == ARGV[1] {
		if (substr($0, 1, 1) == "!") no[substr($0, 2)] = 1; else want[++n] = $0
		next
	}
	$0 in no { bad = 1 }
	i < n && $0 == want[i + 1] { i++ }
	END { exit i == n && !bad ? 0 : 1 }' "$1" "$2"
}

# The seed's LINES ("107-108", "109,113", "1425") of FILE.
seed_lines() {
	awk -v spec="$2" 'BEGIN {
		n = split(spec, part, ",")
		for (i = 1; i <= n; i++) {
			if (split(part[i], r, "-") == 2) { lo[i] = r[1]; hi[i] = r[2] }
			else { lo[i] = part[i]; hi[i] = part[i] }
		}
	}
	{ for (i = 1; i <= n; i++) if (FNR >= lo[i] && FNR <= hi[i]) print }' "$1"
}

if [ -d "$SEEDS_DIR" ]; then
	diag "seeds: $SEEDS_DIR (each case's verbatim text is checked against it)"
else
	diag "seeds: $SEEDS_DIR is not there; verbatim texts are not checked against the seeds"
	SEEDS_DIR=
fi
[ "$IFS_UP" ] || diag "no network namespace: the show-ifs checks (NIDs on ib0, ib1) are left out"

ncases=0
for f in "$D"/*.case; do
	[ -f "$f" ] || continue
	ncases=$((ncases + 1))
	id=${f##*/}
	id=${id%.case}
	C=$T/case
	parse "$f" "$C"
	why=
	: >"$C/out"
	: >"$C/said"
	kind=$(cat "$C/kind.1.args" 2>/dev/null)
	todo=$(cat "$C/todo.1.args" 2>/dev/null)
	read -r sfile slines <"$C/seed.1.args" 2>/dev/null || sfile=
	first=$(grep -v '^[[:space:]]*#' "$C/verbatim.1" 2>/dev/null | grep -m1 . | tr -d '#' |
		sed 's/^[[:space:]]*//' | cut -c1-72 | sed 's/[[:space:]]*$//')
	[ -f "$C/title.1.args" ] && first=$(tr -d '#' <"$C/title.1.args")
	desc="${sfile%%_*}:$slines${kind:+ [$kind]} $first"

	# The case file itself.
	for s in seed verbatim kind run; do
		[ -f "$C/$s.1" ] || why="${why}the case has no @@ $s$NL"
	done
	for s in "$C"/*.1; do
		case ${s##*/} in
		seed.1 | verbatim.1 | kind.1 | reading.1 | instance.1 | setup.1 | run.1 | rc.1 | \
			says.1 | export.1 | show.1 | show-ifs.1 | options.1 | todo.1 | title.1 | unchanged.1) ;;
		*) why="${why}unknown section @@ ${s##*/}$NL" ;;
		esac
	done
	for s in "$C"/*.2; do
		case ${s##*/} in
		show.2 | show-ifs.2 | '*.2') ;;
		*) why="${why}@@ ${s##*/} given twice$NL" ;;
		esac
	done
	case $kind in
	example | reading) ;;
	template | prose) [ -f "$C/instance.1" ] || why="${why}a $kind needs an @@ instance$NL" ;;
	*) why="${why}@@ kind must be example, reading, template or prose$NL" ;;
	esac
	case $kind in reading | template | prose)
		[ -s "$C/reading.1" ] || why="${why}a $kind says its reading in @@ reading$NL"
		;;
	esac
	if [ -z "$why" ] && [ "$SEEDS_DIR" ]; then
		if ! [ -f "$SEEDS_DIR/$sfile" ]; then
			why="${why}no seed $sfile$NL"
		else
			seed_lines "$SEEDS_DIR/$sfile" "$slines" >"$C/seedtext"
			if ! cmp -s "$C/seedtext" "$C/verbatim.1"; then
				why="${why}the verbatim text is not the seed's lines $slines:$NL$(diff "$C/seedtext" "$C/verbatim.1")$NL"
			fi
		fi
	fi

	if [ -z "$why" ]; then
		fresh || why="${why}lnetd does not start$NL"
		[ -f "$C/setup.1" ] && setup "$C/setup.1"
		[ -n "$why" ] && why="${why}(in the setup)$NL"
	fi
	if [ -z "$why" ]; then
		# The options a usage template names, in lnetctl's --help.
		if [ -f "$C/options.1" ]; then
			set -f
			# shellcheck disable=SC2046 # the command's words
			set -- $(cat "$C/options.1.args")
			set +f
			"$L" "$@" --help >"$C/help" 2>&1 || why="${why}lnetctl $* --help fails$NL"
			while IFS= read -r o || [ -n "$o" ]; do
				[ -n "$o" ] || continue
				grep -q -e "--$o\(:\| \|$\)" "$C/help" ||
					why="${why}lnetctl $* --help does not offer --$o$NL"
			done <"$C/options.1"
		fi
		inp=$C/instance.1
		[ -f "$inp" ] || inp=$C/verbatim.1
		want=$(cat "$C/rc.1.args" 2>/dev/null)
		read -r mode margs <"$C/run.1.args"
		"$L" export >"$C/before" 2>&1
		run_input "$mode" "$margs" "$inp" "${want:-0}"
		# A refusal, or a case that only looks, changes nothing; any other does.
		"$L" export >"$C/after" 2>&1
		after_rc=$?
		if [ "${want:-0}" != 0 ] || [ -f "$C/unchanged.1" ]; then
			cmp -s "$C/before" "$C/after" ||
				why="${why}the state changed:$NL$(diff "$C/before" "$C/after")$NL"
		elif cmp -s "$C/before" "$C/after"; then
			why="${why}the state did not change$NL"
		fi
		if [ -f "$C/says.1" ]; then
			said=$(cat "$C/said")
			while IFS= read -r s || [ -n "$s" ]; do
				case $s in
				!*)
					case $said in *"${s#!}"*) why="${why}must not say: ${s#!}$NL" ;; esac
					;;
				*)
					case $said in *"$s"*) ;; *) why="${why}expected to find: $s$NL" ;; esac
					;;
				esac
			done <"$C/says.1"
		fi
		if [ -f "$C/export.1" ]; then
			[ "$after_rc" = 0 ] || why="${why}lnetctl export fails$NL"
			cmp -s "$C/export.1" "$C/after" ||
				why="${why}lnetctl export afterwards:$NL$(diff "$C/export.1" "$C/after")$NL"
		fi
		for s in "$C"/show.* "$C"/show-ifs.*; do
			case $s in *.args | *'*') continue ;; esac
			case $s in *show-ifs.*) [ "$IFS_UP" ] || continue ;; esac
			set -f
			# shellcheck disable=SC2046 # the command's words
			set -- $(cat "$s.args")
			set +f
			"$L" "$@" >"$C/show" 2>&1 || why="${why}lnetctl $* fails$NL"
			subseq "$s" "$C/show" ||
				why="${why}lnetctl $* shows, wanted (in order):$NL$(cat "$s")${NL}got:$NL$(cat "$C/show")$NL"
		done
	fi

	if [ -z "$why" ]; then
		ok "$desc${todo:+ # TODO $todo}"
	elif [ "$todo" ]; then
		n=$((n + 1)) # a known bug: reported, not counted as a failure
		echo "not ok $n - $desc # TODO $todo"
	else
		not_ok "$desc"
	fi
	if [ -n "$why" ]; then
		diag "$id: ${why%"$NL"}" "output:" "$(cat "$C/out")"
	fi
done
[ "$ncases" -gt 0 ] || not_ok "no cases in $D"
[ -n "$LNETD_PID" ] && stop_lnetd
finish
