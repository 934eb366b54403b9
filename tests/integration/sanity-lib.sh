# shellcheck shell=sh
# Helpers for sanity.sh, Lustre's sanity-lnet configuration tests against
# lnetd: a fresh lnetd per test (Lustre's "reinit_dlc"), lnetctl runs that
# record what went wrong instead of stopping, and YAML compared as data.
# Sourced after lib.sh, inside the test's network namespace.

# The namespace's interfaces, in Lustre's names: IF0 is INTERFACES[0] (an
# IPv4 /24 and an IPv6 /64), FAKE_IF the veth sanity-lnet adds for its
# Multi-Rail tests, with its addresses.
IF0=sl0
IF0_IP=10.1.0.10
IF0_IP6=2001:db8:10::10
FAKE_IF=test1pg
FAKE_IP=10.1.2.3
FAKE_IP6=2001:db8:0:f101::1
# The router of the route tests: a NID on the local net that is not ours.
GW=10.1.0.20@tcp

setup_links() {
	ip link set lo up
	ip link add "$IF0" type veth peer name "${IF0}p"
	ip addr add "$IF0_IP/24" dev "$IF0"
	ip -6 addr add "$IF0_IP6/64" dev "$IF0" nodad
	ip link add "$FAKE_IF" type veth peer name test1pl
	ip addr add "$FAKE_IP/31" dev "$FAKE_IF"
	ip -6 addr add "$FAKE_IP6/64" dev "$FAKE_IF" nodad
	for l in "${IF0}p" test1pl "$IF0" "$FAKE_IF"; do ip link set "$l" up; done
}

# What went wrong in the current case, one line each.
ERRS=
err() { ERRS="$ERRS$*
"; }

# lc ARGS...: run lnetctl; its output (stdout and stderr) in $OUT, status in $RC.
lc() {
	OUT=$("$LNETCTL" "$@" 2>&1)
	RC=$?
}
# must ARGS...: lnetctl must succeed; must_fail ARGS...: it must not.
must() {
	lc "$@"
	[ "$RC" = 0 ] && return 0
	err "lnetctl $* exited $RC: $OUT"
	return 1
}
must_fail() {
	lc "$@"
	[ "$RC" != 0 ] && return 0
	err "lnetctl $* should have failed: $OUT"
	return 1
}
# out_has TEXT / out_lacks TEXT: about the last lc's output.
out_has() {
	case $OUT in *"$1"*) return 0 ;; esac
	err "expected '$1' in: $OUT"
	return 1
}
out_lacks() {
	case $OUT in *"$1"*) err "did not expect '$1' in: $OUT" && return 1 ;; esac
	return 0
}
# count TEXT: how many lines of the last output contain TEXT.
count() { printf '%s\n' "$OUT" | grep -c -e "$1"; }

# reinit: an lnetd with nothing configured, and its export --backup kept in
# $T/global.yaml (Lustre's define_global_yaml).
reinit() {
	[ -n "$LNETD_PID" ] && stop_lnetd
	rm -rf "$T/state"
	start_lnetd || { err "lnetd did not start: $(tail -3 "$T/lnetd.log")" && return 1; }
	"$LNETCTL" export --backup >"$T/global.yaml" 2>&1 || err "export of nothing failed"
}

# expect: stdin is the expected YAML ($T/exp.yaml); expect_more appends.
expect() { cat >"$T/exp.yaml"; }
expect_more() { cat >>"$T/exp.yaml"; }
with_globals() { cat "$T/global.yaml" >>"$T/exp.yaml"; }

# same_as_expected [WHAT]: export --backup equals $T/exp.yaml as data.
same_as_expected() {
	"$LNETCTL" export --backup >"$T/act.yaml" 2>&1
	yaml_same "$T/act.yaml" "$T/exp.yaml" "${1:-export --backup}"
}
# yaml_same ACTUAL EXPECTED WHAT
yaml_same() {
	if ! why=$("$YAMLCMP" "$1" "$2" 2>&1); then
		err "$3 differs from what Lustre expects: $why" "--- expected:" "$(cat "$2")" \
			"--- actual:" "$(cat "$1")"
		return 1
	fi
}

# peer_add_is PRIM NIDS / peer_del_is PRIM NIDS: Lustre's compare_peer_add
# and compare_peer_del (the command, then the export against $T/exp.yaml).
peer_add_is() {
	set -- "$1" "${2-}"
	if [ -n "$2" ]; then must peer add --prim_nid "$1" --nid "$2"; else must peer add --prim_nid "$1"; fi &&
		same_as_expected "after peer add $*"
}
peer_del_is() {
	set -- "$1" "${2-}"
	if [ -n "$2" ]; then must peer del --prim_nid "$1" --nid "$2"; else must peer del --prim_nid "$1"; fi &&
		same_as_expected "after peer del $*"
}

# import_same FILE: Lustre's do_import_test (on the current state): the
# import succeeds and export --backup is then $T/exp.yaml.
import_same() {
	must import "$1" && same_as_expected "after importing $(cat "$1")"
}

# sl N TITLE [TODO REASON]: run t_N as the case "sanity-lnet N: TITLE".
# (SL_ONLY="N M ...": only those cases, for a quick run by hand.)
sl() {
	case " ${SL_ONLY:-$1} " in *" $1 "*) ;; *) return 0 ;; esac
	ERRS=
	"t_$1"
	todo=${3:+ # TODO $3}
	if [ -z "$ERRS" ]; then
		ok "sanity-lnet $1: $2$todo"
	else
		not_ok "sanity-lnet $1: $2$todo"
		diag "$ERRS"
	fi
}
