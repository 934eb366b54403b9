#!/bin/sh
# lnetctl import --replace against a real lnetd on a private bus.  TAP.
#
# The files are tests/data/replace/: a.yaml, then b.yaml which changes,
# adds and removes objects of every kind.  The same file twice changes
# nothing; a dry run lists the change and keeps nothing; the change is one
# generation, and lnetd then holds exactly what a fresh lnetd importing the
# file holds (the globals the file leaves out keep their values); a file
# lnetctl cannot read, one lnetd refuses, and an ApplyWith made for another
# generation change nothing.
set -u
. "$(dirname "$0")/lib.sh"
LNETD=${LNETD:-lnetd/lnetd}
LNETCTL=${LNETCTL:-lnetctl/lnetctl}
D=${TEST_DATA_DIR:-$(cd "$(dirname "$0")/../data" && pwd)}/replace

if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root"
	exit 0
fi

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

is_rc() {
	[ "$RC" = "$1" ] && return 0
	diag "exit $RC, expected $1" "stdout: $(cat "$T/out")" "stderr: $(cat "$T/err")"
	return 1
}

printed() {
	grep -qF -- "$1" "$T/out" && return 0
	diag "expected on stdout: $1" "stdout: $(cat "$T/out")"
	return 1
}

said() {
	grep -qF -- "$1" "$T/err" && return 0
	diag "expected on stderr: $1" "stderr: $(cat "$T/err")"
	return 1
}

same() {
	cmp -s "$1" "$2" && return 0
	diag "$(diff "$1" "$2")"
	return 1
}

at_gen() {
	cur=$(gen)
	[ "$cur" = "$1" ] && return 0
	diag "generation $cur, expected $1"
	return 1
}

start_bus

# What a fresh lnetd holds after a plain import of b.yaml (plus a.yaml's
# global, which b.yaml leaves alone): what --replace must arrive at.
fresh
"$LNETCTL" import "$D/b.yaml" && "$LNETCTL" set max_interfaces 100 &&
	"$LNETCTL" export >"$T/want" || not_ok "a plain import of b.yaml"

fresh
ctl import --replace "$D/a.yaml"
check "--replace on an empty lnetd imports the file" is_rc 0
"$LNETCTL" export >"$T/a.export"
g=$(gen)
ctl import --replace --dry-run "$D/a.yaml"
check "the same file again: the dry run lists no change" \
	eval 'is_rc 0 && printed "changes: []"'
ctl import --replace "$D/a.yaml"
"$LNETCTL" export >"$T/now"
check "the same file again changes nothing" eval 'is_rc 0 && at_gen "$g" && same "$T/a.export" "$T/now"'
ctl import --replace "$T/a.export"
check "its export, replacing, changes nothing" eval 'is_rc 0 && at_gen "$g"'

# A peer configured by hand is not in the file: it goes.
"$LNETCTL" peer add --prim_nid 10.5.5.5@tcp
g=$(gen)
"$LNETCTL" export >"$T/before"
ctl import --replace --dry-run "$D/b.yaml"
"$LNETCTL" export >"$T/now"
check "the dry run lists what goes, what changes and what comes" \
	eval 'is_rc 0 && printed "\"-peer 10.5.5.5@tcp\"" && printed "\"-peer 10.0.1.1@tcp\"" &&
	printed "+peer 10.0.2.1@tcp" && printed "+ni tcp lo" && printed "+route tcp9 via 10.0.0.1@tcp"'
check "the dry run keeps nothing" eval 'at_gen "$g" && same "$T/before" "$T/now"'
ctl import --replace "$D/b.yaml"
"$LNETCTL" export >"$T/now"
check "the change is one generation" eval 'is_rc 0 && at_gen "$((g + 1))"'
check "lnetd holds exactly the file (and the global it leaves out)" same "$T/want" "$T/now"
ctl history --full
sed -n "/generation: $((g + 1))\$/,/generation: $g\$/p" "$T/out" >"$T/entry"
check "one history entry holds the dels and the adds" \
	eval 'grep -q -- "-peer 10.5.5.5@tcp" "$T/entry" && grep -q -- "+peer 10.0.2.1@tcp" "$T/entry" ||
	{ diag "$(cat "$T/out")"; false; }'
g=$(gen)
ctl import --replace "$D/b.yaml"
check "b.yaml again changes nothing" eval 'is_rc 0 && at_gen "$g"'

ctl import --replace "$D/bad.yaml"
"$LNETCTL" export >"$T/after"
check "a file lnetctl cannot read: exit 5 naming the key, nothing changed" \
	eval 'is_rc 5 && said "bad.yaml:4:7: key '\''peer nis'\''" && at_gen "$g" && same "$T/now" "$T/after"'
ctl import --replace "$D/refused.yaml"
"$LNETCTL" export >"$T/after"
check "a file lnetd refuses: exit 1 naming the object, none of the change made" \
	eval 'is_rc 1 && said "refused.yaml:" && at_gen "$g" && same "$T/now" "$T/after"'

bcall ApplyWith "a(ssa{sv})a{sv}" 1 del peer 1 primary s 10.0.0.1@tcp 1 generation t $((g + 7))
"$LNETCTL" export >"$T/after"
check "ApplyWith made for another generation is refused, nothing changed" \
	eval 'has "generation $g, not $((g + 7)): it changed meanwhile" && at_gen "$g" &&
	same "$T/now" "$T/after"'
bcall ApplyWith "a(ssa{sv})a{sv}" 1 del peer 1 primary s 10.0.2.1@tcp 1 generation t "$g"
check "ApplyWith at the current generation is made" eval 'at_gen "$((g + 1))"'

# Every file of the lnet.conf corpus that imports, replacing itself (and
# its export replacing it): no change, whatever the file leaves to lnetd's
# defaults (a rule's priority, a TBF queue's depth) or places by idx.
bad=
for f in "$D"/../lnetconf/*.yaml; do
	fresh
	"$LNETCTL" import "$f" >/dev/null 2>&1 || continue
	"$LNETCTL" export >"$T/exp"
	for g in "$f" "$T/exp"; do
		ctl import --replace --dry-run "$g"
		grep -q 'changes: \[\]' "$T/out" || bad="$bad ${f##*/}($(grep -c '^    - ' "$T/out") changes)"
	done
done
check "each corpus file and its export, replacing it, change nothing" eval '[ -z "$bad" ] || { diag "$bad"; false; }'

printf 'global:\n    max_intf: 100\n' >"$T/only-global.yaml"
ctl import --replace "$T/only-global.yaml"
ctl export
check "a file of one global leaves nothing else" eval 'is_rc 0 && [ "$(cat "$T/out")" = "global:
    max_intf: 100" ]'
finish
