#!/bin/sh
# lnetctl import and export with the lnet.conf corpus, against real lnetds
# on a private bus.  TAP.
#
# Every good file of tests/data/lnetconf/ (NAME.yaml; NAME.ops says what it
# parses to, or the error import gives; NAME.del the same for import --del),
# on a fresh lnetd: a dry run keeps nothing and lists the changes the import
# then makes; the import succeeds; its export A imports again without a
# change; import --del removes every object NAME.del names; A imported into
# another fresh lnetd exports as A again.  A file only --del takes (its .ops
# an error) is refused as .ops says and deletes its nets next to others.
# Every bad file (bad/NAME.yaml, first line "# error: NAME:LINE:COL: why",
# perhaps "# mode: del" next) exits 5 saying so, and every file lnetd
# refuses (tests/data/cli/refused/, same first line) exits 1 naming the
# refused object's FILE:LINE:COL; neither changes the export or the
# generation.  Then stdin, and import --del next to what the file did not
# configure.
# The checks are strings that check runs through eval, so they expand then:
# shellcheck disable=SC2016,SC2317
set -u
. "$(dirname "$0")/lib.sh"
LNETD=${LNETD:-lnetd/lnetd}
LNETCTL=${LNETCTL:-lnetctl/lnetctl}
D=${TEST_DATA_DIR:-$(cd "$(dirname "$0")/../data" && pwd)}
CORPUS=$D/lnetconf
NL='
'

if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root"
	exit 0
fi

# fresh: a new lnetd on a new state directory (generation 0, nothing configured).
fresh() {
	[ -n "$LNETD_PID" ] && stop_lnetd
	rm -rf "$T/state"
	# shellcheck disable=SC2119 # no arguments for lnetd
	start_lnetd || {
		not_ok "lnetd starts"
		finish
	}
}

gen() {
	busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" --timeout="$TEST_WAIT" get-property org.lnetd1 \
		/org/lnetd1 org.lnetd1.Manager Generation 2>&1 | sed 's/^t //'
}

# ctl ARGS...: lnetctl; its exit code in $RC, stdout in $T/out, stderr in $T/err.
ctl() {
	"$LNETCTL" "$@" >"$T/out" 2>"$T/err"
	RC=$?
}

# export_to FILE: lnetd's export, or a failure naming why.
export_to() {
	"$LNETCTL" export >"$1" 2>"$T/err" && return 0
	diag "export failed: $(cat "$T/err")"
	return 1
}

# is_rc N: the last ctl exited N (else say what it printed).
is_rc() {
	[ "$RC" = "$1" ] && return 0
	diag "exit $RC, expected $1" "stdout: $(cat "$T/out")" "stderr: $(cat "$T/err")"
	return 1
}

# said TEXT: the last ctl's stderr holds TEXT.
said() {
	case $(cat "$T/err") in *"$1"*) return 0 ;; esac
	diag "expected on stderr: $1" "stderr: $(cat "$T/err")"
	return 1
}

# printed TEXT: the last ctl's stdout holds TEXT.
printed() {
	case $(cat "$T/out") in *"$1"*) return 0 ;; esac
	diag "expected on stdout: $1" "stdout: $(cat "$T/out")"
	return 1
}

# same A B: two files are identical (else show how they differ).
same() {
	cmp -s "$1" "$2" && return 0
	diag "$(diff "$1" "$2")"
	return 1
}

# empty FILE: FILE has nothing in it.
empty() {
	[ ! -s "$1" ] && return 0
	diag "expected nothing, got:" "$(cat "$1")"
	return 1
}

# at_gen N: lnetd is at generation N.
at_gen() {
	g=$(gen)
	[ "$g" = "$1" ] && return 0
	diag "generation $g, expected $1"
	return 1
}

# expected FILE: the text after "# error: " on FILE's first line.
expected() {
	sed -n '1s/^# error: //p' "$1"
}

# A known bug, by corpus file: the cases it breaks are TAP TODOs, so they
# document the bug and turn into XPASS (a failure) when it is fixed.
known_bug() {
	case $1 in
	none) ;;
	esac
}

# todo_check NAME DESCRIPTION COMMAND...: check, but a TODO when NAME has a known bug.
todo_check() {
	t=$(known_bug "$1")
	d=$2
	shift 2
	if [ -z "$t" ]; then
		check "$d" "$@"
	elif "$@"; then
		ok "$d # TODO $t"
	else
		n=$((n + 1))
		echo "not ok $n - $d # TODO $t"
	fi
}

# ops_error FILE: the error an .ops or .del file promises, or nothing.
ops_error() {
	[ -f "$1" ] && sed -n 's/^error: //p' "$1" | head -n 1
}

# changes FILE: the change lines of a dry run's or history's YAML.
changes() {
	# (a dry run's pending: list, after the changes, is no change)
	sed -n -e '/^ *pending:/q' -e '/^ *changes:/,$s/^    - //p' "$1"
}

# field OP KEY: KEY="value" of an .ops line.
field() {
	printf '%s\n' "$1" | sed -n "s/.* $2=\"\([^\"]*\)\".*/\1/p"
}

# has_ni NET WHAT: net show lists an NI of NET on interface or pattern WHAT.
has_ni() {
	"$LNETCTL" net show --net "$1" >"$T/show" 2>&1
	grep -q -e "^ *0: $2\$" -e "^ *ip2nets pattern: $2\$" "$T/show"
}

# named DELFILE present|gone: every object an .del file names is there, or
# none is (UDSP rules aside: an idx names whatever rule is there now).
named() {
	wrong=
	while IFS= read -r op; do
		net=$(field "$op" net)
		case $op in
		*" del net "*" interface="* | *" del net "*" pattern="*)
			i=$(field "$op" interface)
			[ -n "$i" ] || i=$(field "$op" pattern)
			has_ni "$net" "$i"
			there=$? what="NI $net on $i"
			;;
		*" del net "*)
			"$LNETCTL" net show --net "$net" | grep -q 'net: \[\]'
			there=$((!$?)) what="net $net"
			;;
		*" del peer "*" nids="*)
			for nid in $(printf '%s\n' "$op" | sed 's/.* nids=\[//; s/\].*//; s/[",]/ /g'); do
				"$LNETCTL" peer show --nid "$nid" >/dev/null 2>&1
				there=$?
				[ "$2" = present ] && [ "$there" != 0 ] && wrong="$wrong${NL}NID $nid is missing"
				[ "$2" = gone ] && [ "$there" = 0 ] && wrong="$wrong${NL}NID $nid is still there"
			done
			continue
			;;
		*" del peer "*)
			p=$(field "$op" primary)
			"$LNETCTL" peer show --nid "$p" >/dev/null 2>&1
			there=$? what="peer $p"
			;;
		*" del route "*)
			gw=$(field "$op" gateway)
			"$LNETCTL" route show --net "$net" --gateway "$gw" | grep -q gateway
			there=$? what="route to $net through $gw"
			;;
		*) continue ;;
		esac
		[ "$2" = present ] && [ "$there" != 0 ] && wrong="$wrong${NL}$what is missing"
		[ "$2" = gone ] && [ "$there" = 0 ] && wrong="$wrong${NL}$what is still there"
	done <<EOF_DEL
$(grep '^@' "$1")
EOF_DEL
	[ -z "$wrong" ] && return 0
	diag "${1##*/}:$wrong"
	return 1
}

# del_only NAME YAML: a file only import --del takes (NAME.del lists del net
# ops only): import refuses it, import --del removes those nets and keeps
# the rest.
del_only() {
	name=$1 f=$2
	ctl import "$f"
	todo_check "$name" "$name: import refuses it (5) as ${name%.yaml}.ops says" \
		eval 'is_rc 5 && said "$f${want#"$name"}" && at_gen 0'
	if grep '^@' "$CORPUS/${name%.yaml}.del" | grep -qv ' del net '; then
		ok "$name: import --del # SKIP only files deleting nets are set up for"
		return
	fi
	"$LNETCTL" net add --net tcp --if lo 2>/dev/null
	export_to "$T/keep"
	i=0
	# shellcheck disable=SC2013 # net names are words
	for net in $(sed -n 's/^@[0-9:]* del net net="\([^"]*\)".*/\1/p' \
		"$CORPUS/${name%.yaml}.del"); do
		i=$((i + 1))
		"$LNETCTL" net add --net "$net" --if "cli-del$i" 2>/dev/null
	done
	ctl import --del "$f"
	todo_check "$name" "$name: import --del removes its nets and keeps the rest" \
		eval 'is_rc 0 && export_to "$T/left" && same "$T/keep" "$T/left"'
}

start_bus

# --- good files -----------------------------------------------------------
ngood=0
for f in "$CORPUS"/*.yaml; do
	[ -f "$f" ] || continue
	ngood=$((ngood + 1))
	name=${f##*/}
	ops=$CORPUS/${name%.yaml}.ops
	del=$CORPUS/${name%.yaml}.del
	fresh
	want=$(ops_error "$ops")
	if [ -n "$want" ]; then
		del_only "$name" "$f"
		continue
	fi

	ctl import --dry-run "$f"
	todo_check "$name" "$name: a dry run" eval 'is_rc 0 && printed "dry run:"'
	changes "$T/out" >"$T/dry"
	check "$name: and keeps nothing" eval 'at_gen 0 && export_to "$T/a" && empty "$T/a"'

	ctl import "$f"
	todo_check "$name" "$name: import" is_rc 0
	# What follows needs the import (a known bug's file would only XPASS).
	[ "$RC" = 0 ] || continue
	"$LNETCTL" history --limit 1 --full >"$T/h" 2>&1
	changes "$T/h" >"$T/did"
	check "$name: the dry run listed what the import did" same "$T/dry" "$T/did"
	export_to "$T/a"
	g=$(gen)
	ctl import "$T/a"
	todo_check "$name" "$name: its export imports again, changing nothing" \
		eval 'is_rc 0 && at_gen "$g" && export_to "$T/a2" && same "$T/a" "$T/a2"'

	if [ -f "$del" ] && [ -z "$(ops_error "$del")" ]; then
		check "$name: the import made what ${name%.yaml}.del names" named "$del" present
		ctl import --del "$f"
		todo_check "$name" "$name: import --del removes it" \
			eval 'is_rc 0 && named "$del" gone'
	elif [ -f "$del" ]; then
		want=$(ops_error "$del")
		ctl import --del "$f"
		check "$name: import --del refuses it (5) as ${name%.yaml}.del says" \
			eval 'is_rc 5 && said "$f${want#"$name"}"'
	fi

	fresh
	ctl import "$T/a"
	todo_check "$name" "$name: its export imports into a fresh lnetd and exports the same" \
		eval 'is_rc 0 && export_to "$T/b" && same "$T/a" "$T/b"'
done
check "the corpus has good files ($ngood)" test "$ngood" -ge 10

# --- bad and refused files: exit 5 or 1, FILE:LINE:COL, nothing kept -------
fresh
"$LNETCTL" net add --net tcp --if lo 2>/dev/null
ctl import "$D/cli/site.yaml"
check "a site to refuse files next to" is_rc 0
export_to "$T/base"
g=$(gen)

# refuse DIR EXIT MIN: every DIR/*.yaml (at least MIN of them) exits EXIT
# with its first line's text.
refuse() {
	# shellcheck disable=SC2034 # the eval'd check uses it
	want_rc=$2
	nfiles=0
	for f in "$1"/*.yaml; do
		[ -f "$f" ] || continue
		nfiles=$((nfiles + 1))
		name=${f##*/}
		want=$(expected "$f")
		mode=
		sed -n 2p "$f" | grep -q '^# mode: del' && mode=--del
		if [ -z "$want" ]; then
			not_ok "$name: its first line must be '# error: $name:LINE:COL: ...'"
			continue
		fi
		case $want in
		"$name":[0-9]*:[0-9]*:*) ;;
		*) not_ok "$name: '# error: $want' does not start with $name:LINE:COL:" ;;
		esac
		# lnetctl names the file as given: the path, then :LINE:COL: why.
		ctl import ${mode:+"$mode"} "$f"
		check "${1##*/}/$name: exit $2, '$want'" \
			eval 'is_rc $want_rc && said "$f${want#"$name"}" && at_gen "$g" &&
				export_to "$T/now" && same "$T/base" "$T/now"'
	done
	check "${1##*/}/ has files ($nfiles)" test "$nfiles" -ge "$3"
}
refuse "$CORPUS/bad" 5 30
refuse "$D/cli/refused" 1 5

# --- stdin, and --del next to what the file did not configure ----------------
fresh
ctl import <"$D/cli/site.yaml"
check "import < FILE" is_rc 0
export_to "$T/stdin"
fresh
ctl import "$D/cli/site.yaml"
export_to "$T/path"
check "configures what import FILE does" same "$T/path" "$T/stdin"
ctl import - <"$D/cli/bad.yaml"
check "a bad file on stdin exits 5, naming LINE:COL" \
	eval 'is_rc 5 && said ":4:7: key '\''peer nis'\'': invalid key in a peer"'
ctl import --del <"$D/cli/site.yaml"
check "import --del < FILE" eval 'is_rc 0 && export_to "$T/d" && empty "$T/d"'

fresh
"$LNETCTL" net add --net tcp --if lo 2>/dev/null
"$LNETCTL" peer add --prim_nid 10.9.0.1@tcp --nid 10.9.0.2@tcp 2>/dev/null
"$LNETCTL" set max_interfaces 64 2>/dev/null
export_to "$T/keep"
ctl import "$D/cli/site.yaml"
g=$(gen)
ctl import --dry-run --del "$D/cli/site.yaml"
check "a dry run of --del lists what would go and keeps it" \
	eval 'is_rc 0 && printed "-peer 10.20.0.1@tcp20" && at_gen "$g"'
ctl import --del "$D/cli/site.yaml"
check "import --del removes what the file configured and nothing else" \
	eval 'is_rc 0 && export_to "$T/left" && same "$T/keep" "$T/left"'

# export lists a route's gateway as a peer (as Lustre's does) while a route
# uses it, and no more once the route is gone (lnetctl asks for every peer
# only when there is a route).
fresh
"$LNETCTL" net add --net tcp --if lo 2>/dev/null
"$LNETCTL" route add --net tcp7 --gateway 10.7.0.1@tcp 2>/dev/null
ctl export
check "export lists a route's gateway as a non-Multi-Rail peer" \
	eval 'is_rc 0 && printed "primary nid: 10.7.0.1@tcp" && printed "Multi-Rail: False"'
"$LNETCTL" route del --net tcp7 --gateway 10.7.0.1@tcp 2>/dev/null
ctl export
check "... and not once its route is gone" \
	eval 'is_rc 0 && ! printed "10.7.0.1@tcp" >/dev/null'

# Peers list by primary NID as text (lnetctl(8)), whatever order they came
# in, one at a time or in one import, and the same after a restart: two
# exports of the same configuration compare line by line.
fresh
{ echo peer: && printf '    - primary nid: %s\n' 10.5.0.5@tcp 10.5.0.10@tcp; } >"$T/order.yaml"
"$LNETCTL" peer add --prim_nid 10.5.0.3@tcp 2>/dev/null
ctl import "$T/order.yaml"
"$LNETCTL" peer add --prim_nid 10.5.0.1@tcp 2>/dev/null
ctl peer show
order=$(sed -n 's/.*primary nid: \(10\.5\.0\.[0-9]*\)@tcp$/\1/p' "$T/out" | tr '\n' ' ')
check "peers list by primary NID as text, not in the order added" \
	eval 'test "$order" = "10.5.0.10 10.5.0.1 10.5.0.3 10.5.0.5 " || { diag "got: $order"; false; }'
export_to "$T/o1"
stop_lnetd
# shellcheck disable=SC2119 # no arguments for lnetd
start_lnetd
export_to "$T/o2"
check "... and export the same after a restart" same "$T/o1" "$T/o2"

# peer show -v asks three things of every peer NI and sends the calls ahead
# of the one it prints (lnetctl/ahead.c): with 120 peer NIs, 360 calls, far
# more than it keeps in flight, each NI must still get its own answers.
fresh
awk 'BEGIN { print "peer:"
	for (i = 0; i < 60; i++)
		printf "    - primary nid: 10.6.0.%d@tcp\n      peer ni:\n        - nid: 11.6.0.%d@tcp\n", i, i }' \
	>"$T/sixty.yaml"
"$LNETCTL" import "$T/sixty.yaml" 2>/dev/null
"$LNETCTL" udsp add --dst 10.6.0.37@tcp --priority 3 2>/dev/null
"$LNETCTL" udsp add --dst 11.6.0.52@tcp --priority 5 2>/dev/null
ctl peer show -v
# "NID priority" for each peer NI, in the order shown.
awk '/^ *- *nid: / { n = $NF } /nid priority:/ { print n, $NF }' "$T/out" >"$T/prio"
check "peer show -v: every one of the 120 peer NIs has its udsp info" \
	test "$(wc -l <"$T/prio")" = 120
check "... the NID a rule names shows its priority, and only it" \
	eval 'test "$(grep -v " -1$" "$T/prio" | tr "\n" " ")" = "10.6.0.37@tcp 3 11.6.0.52@tcp 5 "'
cp "$T/out" "$T/direct-v"
LNETD_PRIVATE_SOCKET='' ctl peer show -v
check "... the same through dbus-daemon" same "$T/direct-v" "$T/out"
ctl peer show -v --nid 11.6.0.52@tcp
check "... and for one peer picked by a NID" \
	eval 'is_rc 0 && printed "nid priority: 5" && ! printed "nid priority: 3" >/dev/null'

# net show -v fed back: Lustre's import reads the keys that configure an NI
# and passes over the rest (dev cpt, the counters, health), so it changes
# nothing.  dev cpt sits where Lustre's net show -v puts it: after the
# tunables, before CPT.
fresh
"$LNETCTL" net add --net tcp --if lo 2>/dev/null
export_to "$T/keep"
ctl net show -v
cp "$T/out" "$T/shown"
check "net show -v: dev cpt after lnd tunables, before CPT" awk '
	/^ *lnd tunables:/ { t = NR } /^ *dev cpt: -1$/ { d = NR } /^ *CPT:/ { c = NR }
	END { exit !(t && t < d && d < c) }' "$T/shown"
g=$(gen)
ctl import "$T/shown"
check "net show -v's output imports, changing nothing" \
	eval 'is_rc 0 && at_gen "$g" && export_to "$T/now" && same "$T/keep" "$T/now"'
finish
