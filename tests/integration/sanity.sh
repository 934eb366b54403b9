#!/bin/sh
# Lustre's sanity-lnet configuration tests (lustre/tests/sanity-lnet.sh),
# re-expressed against lnetctl and lnetd: one TAP line per upstream test,
# named by its number, with Lustre's expectations (YAML compared as data by
# tests/tools/yamlcmp, exit codes, refusals).  Each test starts from an
# lnetd with nothing configured, as Lustre's reinit_dlc does.  Where lnetd
# differs on purpose, the case asserts lnetd's behaviour and lnetctl(8)'s
# DIFFERENCES section says why.  Tests that need traffic, discovery, health,
# fault injection or module loading are not here (README in the report).
set -u
if [ -z "${LNETD_IN_NETNS:-}" ]; then
	if [ "$(id -u)" != 0 ] || ! unshare -n true 2>/dev/null; then
		echo "1..0 # SKIP needs root and network namespaces"
		exit 0
	fi
	LNETD_IN_NETNS=1 exec unshare -n sh "$0" "$@"
fi
here=$(dirname "$0")
. "$here/lib.sh"
. "$here/sanity-lib.sh"
LNETD=${LNETD:-lnetd/lnetd}
LNETCTL=${LNETCTL:-lnetctl/lnetctl}
YAMLCMP=${YAMLCMP:-tests/tools/yamlcmp}

setup_links
start_bus

# --- peers -------------------------------------------------------------------

# peer_yaml PRIMARY NIDS...: a Multi-Rail peer in Lustre's export layout.
peer_yaml() {
	printf '    - primary nid: %s\n      Multi-Rail: True\n      peer ni:\n' "$1"
	for nid in "$@"; do printf '        - nid: %s\n' "$nid"; done
}

t_0() {
	reinit || return
	must import "$T/global.yaml"
	cp "$T/global.yaml" "$T/exp.yaml"
	same_as_expected
	grep -q discovery "$T/global.yaml" || err "export --backup of nothing lacks the globals"
}
t_1() { reinit && { echo peer: && peer_yaml 1.1.1.1@tcp; } | expect && with_globals && peer_add_is 1.1.1.1@tcp; }
t_2() { reinit && { echo peer: && peer_yaml 2.2.2.2@o2ib; } | expect && with_globals && peer_add_is 2.2.2.2@o2ib; }
t_3() {
	reinit && { echo peer: && peer_yaml 3.3.3.3@tcp 3.3.3.3@o2ib; } | expect && with_globals
	peer_add_is 3.3.3.3@tcp 3.3.3.3@o2ib
}
t_4() {
	reinit && { echo peer: && peer_yaml 4.4.4.4@tcp 4.4.4.1@tcp 4.4.4.2@tcp 4.4.4.3@tcp; } |
		expect && with_globals
	peer_add_is 4.4.4.4@tcp "4.4.4.[1-3]@tcp"
	peer_add_is 4.4.4.4@tcp "4.4.4.[1-4]@tcp"
}
t_5() {
	reinit && { echo peer: && peer_yaml 5.5.5.5@o2ib 5.5.5.1@o2ib 5.5.5.2@o2ib 5.5.5.3@o2ib \
		5.5.5.4@o2ib; } | expect && with_globals
	peer_add_is 5.5.5.5@o2ib "5.5.5.[1-4]@o2ib"
	peer_add_is 5.5.5.5@o2ib "5.5.5.[1-4]@o2ib"
	peer_add_is 5.5.5.5@o2ib "5.5.5.[1,2,3-4]@o2ib"
}
t_6() {
	reinit && { echo peer: && peer_yaml 6.6.6.6@tcp 6.6.6.0@tcp 6.6.6.2@tcp 6.6.6.4@tcp \
		6.6.7.0@tcp 6.6.7.2@tcp 6.6.7.4@tcp 6.6.1.0@o2ib 6.6.1.3@o2ib 6.6.1.6@o2ib \
		6.6.3.0@o2ib 6.6.3.3@o2ib 6.6.3.6@o2ib 6@gni 10@gni 6@kfi 10@kfi 6@bxi3f 10@bxi3f; } |
		expect && with_globals
	peer_add_is 6.6.6.6@tcp \
		"6.6.[6-7].[0-4/2]@tcp,6.6.[1-4/2].[0-6/3]@o2ib,[6-12/4]@gni,[6-12/4]@kfi,[6-12/4]@bxi3f"
}
t_7() {
	reinit && cp "$T/global.yaml" "$T/exp.yaml"
	for p in 7.7.7.7@tcp 7.7.7.7@o2ib; do must peer add --prim_nid $p && peer_del_is $p; done
	for lnd in tcp o2ib; do
		must peer add --prim_nid 7.7.7.7@$lnd --nid "7.7.7.[8-12]@$lnd" && peer_del_is 7.7.7.7@$lnd
	done
	must peer add --prim_nid 7.7.7.7@tcp --nid "7.7.7.[9-12]@tcp,7.7.7.[13-15]@o2ib" &&
		peer_del_is 7.7.7.7@tcp
	for lnd in gni kfi bxi3f; do
		must peer add --prim_nid 7@$lnd && peer_del_is 7@$lnd
		must peer add --prim_nid 7@$lnd --nid "[8-12]@$lnd" && peer_del_is 7@$lnd
	done
	must peer add --prim_nid 7@gni \
		--nid "[8-12]@gni,7.7.7.[1-4]@tcp,7.7.7.[5-9]@o2ib,[1-5]@kfi,[3-7]@bxi3f" &&
		peer_del_is 7@gni
	must peer add --prim 1.1.1.1@tcp --nid 1.1.1.1@tcp,2.2.2.2@tcp,3.3.3.3@tcp,4.4.4.4@tcp &&
		peer_del_is 1.1.1.1@tcp 1.1.1.1@tcp,2.2.2.2@tcp,3.3.3.3@tcp,4.4.4.4@tcp
}
t_8() {
	reinit && { echo peer: && peer_yaml 8.8.8.8@tcp 8.8.8.10@tcp 8.8.8.11@tcp 8.8.8.12@tcp \
		8.8.8.14@tcp 8.8.8.15@tcp; } | expect && with_globals
	must peer add --prim_nid 8.8.8.8@tcp --nid "8.8.8.[10-15]@tcp" &&
		peer_del_is 8.8.8.8@tcp 8.8.8.13@tcp
}
t_9() {
	reinit && { echo peer: && peer_yaml 9.9.9.9@tcp; } | expect && with_globals
	must peer add --prim_nid 9.9.9.9@tcp --nid "9.9.9.[11-16]@tcp" &&
		peer_del_is 9.9.9.9@tcp "9.9.9.[11-16]@tcp"
}
t_10() {
	reinit && { echo peer: && peer_yaml 10.10.10.10@tcp 10.10.10.12@tcp 10.10.10.13@tcp \
		10.10.10.15@tcp 10.10.10.16@tcp; } | expect && with_globals
	must peer add --prim_nid 10.10.10.10@tcp --nid "10.10.10.[12-16]@tcp" &&
		peer_del_is 10.10.10.10@tcp 10.10.10.14@tcp
}
t_11() {
	reinit && { echo peer: && peer_yaml 11.11.11.11@tcp; } | expect && with_globals
	must peer add --prim_nid 11.11.11.11@tcp --nid "11.11.11.[13-17]@tcp" &&
		peer_del_is 11.11.11.11@tcp "11.11.11.[13-17]@tcp"
}
t_12() {
	reinit && { echo peer: && peer_yaml 12.12.12.12@o2ib 13.13.13.13@o2ib 14.13.13.13@o2ib \
		14.15.13.13@o2ib 15.17.1.5@tcp 15.17.1.10@tcp 15.17.1.20@tcp; } | expect && with_globals
	must peer add --prim_nid 12.12.12.12@o2ib \
		--nid "[13-14/1].[13-15/2].13.13@o2ib,[15-16/3].[17-19/4].[1].[5-20/5]@tcp" &&
		peer_del_is 12.12.12.12@o2ib "13.15.13.13@o2ib,15.17.1.15@tcp"
}
t_13() {
	reinit && { echo peer: && peer_yaml 13.13.13.13@o2ib; } | expect && with_globals
	must peer add --prim_nid 13.13.13.13@o2ib \
		--nid "[14-15].[1-2/1].[1].[100-254/10]@tcp,14.14.[254].14@o2ib" &&
		peer_del_is 13.13.13.13@o2ib "[14-15].[1-2/1].[1].[100-254/10]@tcp,14.14.[254].14@o2ib"
}

# mr_peers N SECONDARIES NET: Lustre's create_mr_peer_yaml, into $T/peers.yaml.
nidof() { case $2 in gni | kfi | bxi3f) echo "$1@$2" ;; *) echo "$1.$1.$1.$1@$2" ;; esac; }
mr_peers() {
	echo peer: >"$T/peers.yaml"
	k=1
	for _ in $(seq "$1"); do
		# shellcheck disable=SC2046 # one word per NID
		peer_yaml $(for j in $(seq "$k" $((k + $2))); do nidof "$j" "$3"; done) >>"$T/peers.yaml"
		k=$((k + $2 + 1))
	done
}
# import_peers N SECONDARIES NET: import them, count them, delete them.
import_peers() {
	reinit || return
	mr_peers "$@"
	must import <"$T/peers.yaml"
	cp "$T/peers.yaml" "$T/exp.yaml" && with_globals
	# Lustre compares one peer as data; several only by count (their
	# order is its hash's).
	if [ "$1" = 1 ]; then same_as_expected; else "$LNETCTL" export --backup >"$T/act.yaml"; fi
	p=$(grep -c -- '- *primary nid:' "$T/act.yaml")
	s=$(grep -c -- '- *nid:' "$T/act.yaml")
	[ "$p" = "$1" ] && [ "$s" = $(($1 + $1 * $2)) ] || err "expected $1 peers and $(($1 + $1 * $2)) NIDs, found $p and $s"
	must import --del <"$T/peers.yaml"
	cp "$T/global.yaml" "$T/exp.yaml" && same_as_expected "after import --del"
}
t_14() { import_peers 1 0 tcp; }
t_15() { import_peers 5 0 o2ib; }
t_16() { import_peers 1 5 tcp; }
t_17() { import_peers 5 7 o2ib; }
t_18a() {
	reinit || return
	{ echo peer: && peer_yaml 1.1.1.1@tcp 2.2.2.2@tcp 4.4.4.4@tcp 3.3.3.3@o2ib 5@gni; } >"$T/a.yaml"
	must import <"$T/a.yaml"
	{ echo peer: && peer_yaml 1.1.1.1@tcp | sed '/- nid: 1.1.1.1/d' && echo '        - nid: 2.2.2.2@tcp' &&
		echo '        - nid: 3.3.3.3@o2ib' && echo '        - nid: 5@gni'; } >"$T/d.yaml"
	must import --del <"$T/d.yaml"
	{ echo peer: && peer_yaml 1.1.1.1@tcp 4.4.4.4@tcp; } | expect && with_globals
	same_as_expected
}
t_18b() {
	reinit || return
	{ echo peer: && peer_yaml 1.1.1.1@tcp 2.2.2.2@tcp 4.4.4.4@tcp 3.3.3.3@o2ib 5@gni &&
		peer_yaml 6.6.6.6@o2ib 7.7.7.7@tcp 8.8.8.8@tcp 9.9.9.9@tcp 10@gni; } >"$T/a.yaml"
	must import <"$T/a.yaml"
	{
		echo peer:
		printf '    - primary nid: 1.1.1.1@tcp\n      Multi-Rail: True\n      peer ni:\n'
		printf '        - nid: %s\n' 2.2.2.2@tcp 3.3.3.3@o2ib 5@gni
		printf '    - primary nid: 6.6.6.6@o2ib\n      Multi-Rail: True\n      peer ni:\n'
		printf '        - nid: %s\n' 7.7.7.7@tcp 8.8.8.8@tcp 10@gni
	} >"$T/d.yaml"
	must import --del <"$T/d.yaml"
	# Lustre's expected YAML here keeps 7.7.7.7@tcp, which was deleted,
	# and lists the peers in its hash order; it only counts them (2 peers,
	# one NID each besides the primary).  What remains is 9.9.9.9@tcp.
	{ echo peer: && peer_yaml 1.1.1.1@tcp 4.4.4.4@tcp && peer_yaml 6.6.6.6@o2ib 9.9.9.9@tcp; } |
		expect && with_globals
	same_as_expected
}
t_19() { reinit && { echo peer: && peer_yaml 19@gni; } | expect && with_globals && peer_add_is 19@gni; }
t_20() {
	reinit && { echo peer: && peer_yaml 20@gni 20.20.20.20@tcp 20.20.20.20@o2ib; } | expect &&
		with_globals
	peer_add_is 20@gni 20.20.20.20@tcp,20.20.20.20@o2ib
}
t_21() {
	reinit && { echo peer: && peer_yaml 21@gni 22@gni 23@gni 24@gni 25@gni; } | expect && with_globals
	peer_add_is 21@gni "[22-25]@gni"
	peer_add_is 21@gni "[21-25]@gni"
}
t_22() {
	reinit && { echo peer: && peer_yaml 22@gni 24@gni 25@gni 27@gni 28@gni 29@gni; } | expect &&
		with_globals
	must peer add --prim_nid 22@gni --nid "[24-29]@gni" && peer_del_is 22@gni 26@gni
}
t_23() {
	reinit && { echo peer: && peer_yaml 23@gni; } | expect && with_globals
	must peer add --prim_nid 23@gni --nid "[25-29]@gni" && peer_del_is 23@gni "[25-29]@gni"
}
t_24() {
	# A peer's NIDs grouped by net, the primary's first, as Lustre lists
	# them (11@gni second), in export --backup and in peer show alike, and
	# after a restart.
	reinit && { echo peer: && peer_yaml 24@gni 11@gni 13.13.13.13@o2ib 14.13.13.13@o2ib \
		14.15.13.13@o2ib 15.17.1.5@tcp 15.17.1.10@tcp 15.17.1.20@tcp; } | expect &&
		with_globals
	must peer add --prim_nid 24@gni \
		--nid "[13-14/1].[13-15/2].13.13@o2ib,[15-16/3].[17-19/4].[1].[5-20/5]@tcp,[5-12/6]@gni" &&
		peer_del_is 24@gni "5@gni,13.15.13.13@o2ib,15.17.1.15@tcp" || return
	"$LNETCTL" peer show --nid 24@gni | sed -n 's/^ *- *nid: //p' >"$T/show.nids"
	sed -n 's/^ *- nid: //p' "$T/exp.yaml" >"$T/exp.nids"
	cmp -s "$T/show.nids" "$T/exp.nids" ||
		err "peer show lists the NIDs otherwise: $(tr '\n' ' ' <"$T/show.nids")"
	stop_lnetd && start_lnetd || err "lnetd did not start again"
	same_as_expected "export --backup after a restart"
}
t_25() {
	reinit && { echo peer: && peer_yaml 25@gni; } | expect && with_globals
	must peer add --prim_nid 25@gni --nid "[26-27].[4-10/3].26.26@tcp,26.26.26.26@o2ib,[30-35]@gni" &&
		peer_del_is 25@gni "[26-27].[4-10/3].26.26@tcp,26.26.26.26@o2ib,[30-35]@gni"
}
# peer_state NID: the peer's "peer state" (Lustre's bits: LNET_PEER_LOCK_PRIMARY is 1 << 20).
peer_state() {
	lc peer show -v 4 --nid "$1"
	printf '%s\n' "$OUT" | awk '/peer state/ {print $NF}'
}
t_26() {
	reinit || return
	must peer add --prim_nid 1.1.1.1@tcp --lock_prim
	st=$(peer_state 1.1.1.1@tcp)
	[ $((${st:-0} & (1 << 20))) != 0 ] || err "peer state lacks the locked bit: '$st'"
	# a plain del keeps a locked peer (its other NIDs go); --force removes it
	must peer del --prim_nid 1.1.1.1@tcp
	lc peer show --nid 1.1.1.1@tcp && out_has 1.1.1.1@tcp
	must peer del --prim_nid 1.1.1.1@tcp --force
	must_fail peer show --nid 1.1.1.1@tcp
	# lnetd's own checks: the lock outlives a restart, a locked peer loses
	# only its other NIDs, and a peer added without --lock_prim is not
	# locked and goes with a plain del
	must peer add --prim_nid 1.1.1.3@tcp --nid 1.1.1.4@tcp,1.1.1.5@o2ib --lock_prim
	stop_lnetd && start_lnetd || err "lnetd did not start again"
	must peer del --prim_nid 1.1.1.3@tcp
	{ echo peer: && peer_yaml 1.1.1.3@tcp; } | expect && with_globals && same_as_expected
	must peer add --prim_nid 1.1.1.2@tcp
	st=$(peer_state 1.1.1.2@tcp)
	[ $((${st:-0} & (1 << 20))) = 0 ] || err "a peer added without --lock_prim is locked: '$st'"
	must peer del --prim_nid 1.1.1.2@tcp
	must_fail peer show --nid 1.1.1.2@tcp
}
t_27() {
	reinit || return
	echo "foobar:" >"$T/bad.yaml"
	lc import "$T/bad.yaml"
	[ "$RC" != 0 ] || err "foobar: was taken"
	out_has "invalid key"
	sed 's/discovery:.*/discovery:/' "$T/global.yaml" >"$T/bad.yaml"
	grep -q discovery "$T/global.yaml" || err "no discovery in the globals"
	lc import "$T/bad.yaml"
	out_has "no value"
	sed -i 's/discovery:/discovery: foo/' "$T/bad.yaml"
	lc import "$T/bad.yaml"
	out_has "invalid value"
}
t_28() {
	reinit || return
	must peer add --prim_nid 1.1.1.1@tcp --ni 7.7.7.7@tcp
	must peer add --prim_nid 1.1.1.2@tcp --nid 7.7.7.8@tcp
	must peer list
	[ "$(printf '%s\n' "$OUT" | grep -c -- '- *nid:')" = 2 ] || err "peer list: $OUT"
}

# --- routing, numa -------------------------------------------------------------

t_50() {
	reinit || return
	printf 'routing:\n    enable: 1\n' >"$T/r.yaml"
	must import "$T/r.yaml"
	lc routing show
	out_has "enable: 1"
	printf 'routing:\n    enable: 0\n' >"$T/r.yaml"
	must import "$T/r.yaml"
	lc routing show
	out_has "enable: 0"
	lc export --backup
	tiny=$(printf '%s\n' "$OUT" | awk '/ tiny:/{print $NF}')
	small=$(printf '%s\n' "$OUT" | awk '/ small:/{print $NF}')
	large=$(printf '%s\n' "$OUT" | awk '/ large:/{print $NF}')
	printf 'routing:\n    enable: 1\nbuffers:\n    tiny: %s\n    small: %s\n    large: %s\n' \
		$((${tiny:-0} + 1)) $((${small:-0} + 1)) $((${large:-0} + 1)) >"$T/r.yaml"
	must import "$T/r.yaml"
	lc export --backup
	out_has "tiny: $((${tiny:-0} + 1))" && out_has "small: $((${small:-0} + 1))" &&
		out_has "large: $((${large:-0} + 1))"
}
t_51() {
	reinit || return
	printf 'numa:\n    range: 1\n' >"$T/n.yaml"
	must import "$T/n.yaml"
	lc global show
	out_has "numa_range: 1"
}

t_99a() {
	reinit || return
	must_fail peer add --prim_nid foobar
	must_fail peer del --prim_nid foobar
	must_fail peer del --prim_nid 1.1.1.1@o2ib
	must_fail peer del --nid 1.1.1.1@tcp
	# Lustre refuses a peer without --prim_nid; lnetd takes the first NID
	# as primary, as the Multi-Rail design's usage has it (lnetctl(8),
	# DIFFERENCES).
	must peer add --nid 1.1.1.1@tcp && must peer del --prim_nid 1.1.1.1@tcp
	must_fail peer add
	must_fail peer add --prim_nid 1.1.1.1@tcp --nid foobar
	must_fail peer add --prim_nid 1.1.1.1@tcp --nid "1.1.1.[2-255]@tcp"
	must_fail peer add --prim_nid 1@foo
	for nid in 1@tcp 1@o2ib 1.1.1.1@gni; do must_fail peer add --prim_nid $nid; done
	for s in "[2-1]@gni" "[a-f/x]@gni" 256.256.256.256@tcp "1.1.1.1.[2-5/f]@tcp" \
		"1.]2[.3.4@o2ib1.[2-4,[5-6],7-8].1.1@tcp" foobar; do
		must_fail peer add --prim_nid 1.1.1.1@tcp --nid "$s"
	done
	cp "$T/global.yaml" "$T/exp.yaml" && same_as_expected "after the refusals"
	# Lustre refuses a route through a gateway on no local net; lnetd keeps
	# it as desired state (the net may come later) and warns, naming the
	# gateway (lnetctl(8), DIFFERENCES).
	must route add --net tcp --gateway 1@gni && out_has "warning" && out_has "1@gni" &&
		out_has "no NI is configured on gni"
	lc export --backup && out_has "gateway: 1@gni"
	lc status && out_has "name: tcp 1@gni" && out_has "no NI is configured on gni"
	must net add --net tcp1 --if "$IF0"
	must route add --net tcp2 --gateway 10.1.0.30@tcp1 && out_lacks "warning"
	lc import --dry-run <<-EOF
		route:
		    - net: o2ib
		      gateway: 2@gni
	EOF
	out_has "route o2ib 2@gni: no NI is configured on gni"
}
t_99b() {
	reinit && cp "$T/global.yaml" "$T/exp.yaml"
	printf 'peer:\n    - primary nid: 99.99.99.99@tcp\n      Multi-Rail: Foobar\n      peer ni:\n        - nid: 99.99.99.99@tcp\n' >"$T/bad.yaml"
	must_fail import <"$T/bad.yaml"
	same_as_expected
}

# --- routes ----------------------------------------------------------------------

# gateways_are FILE NIDS...: Lustre's validate_gateway_nids.
gateways_are() {
	f=$1
	shift
	cnt=$(grep -c 'gateway:' "$f")
	[ "$cnt" = $# ] || err "expected $# gateways, found $cnt: $(cat "$f")"
	for g in "$@"; do grep -q "gateway: $g\$" "$f" || err "$g is not a gateway: $(cat "$f")"; done
}
t_100() {
	reinit || return
	must net add --net tcp --if "$IF0"
	must route add --net tcp1 --gateway $GW
	"$LNETCTL" export --backup >"$T/act.yaml"
	gateways_are "$T/act.yaml" $GW
	grep -q 'hop: -1' "$T/act.yaml" || err "an unset hop is not exported as -1: $(cat "$T/act.yaml")"
	cp "$T/act.yaml" "$T/hop.yaml"
	lc peer show --nid $GW
	out_has "Multi-Rail: False" && out_has "primary nid: $GW"
	lc peer list && out_has "nid: $GW"
	# The gateway's peer goes with its last route (it was not configured).
	must route del --net tcp1 --gateway $GW
	must_fail peer show --nid $GW
	# The unset hop stays -1 through an import (route show gives the hops in
	# effect, 1: lnetctl(8), DIFFERENCES).
	reinit && must import "$T/hop.yaml" && "$LNETCTL" export --backup >"$T/act.yaml"
	yaml_same "$T/act.yaml" "$T/hop.yaml" "export --backup of the import of export --backup"
	lc route show -v && out_has "hop: 1"
}
t_101() {
	reinit || return
	must net add --net tcp --if "$IF0"
	must route add --net tcp1 --gateway "10.1.0.[11-15]@tcp"
	"$LNETCTL" export --backup >"$T/act.yaml"
	gateways_are "$T/act.yaml" 10.1.0.11@tcp 10.1.0.12@tcp 10.1.0.13@tcp 10.1.0.14@tcp 10.1.0.15@tcp
	cnt=$(grep -c 'Multi-Rail: False' "$T/act.yaml")
	[ "$cnt" = 5 ] || err "expected the 5 gateways as peers, found $cnt"
	# The export imports into an empty lnetd as the same export.
	reinit && must import "$T/act.yaml" && "$LNETCTL" export --backup >"$T/again.yaml"
	yaml_same "$T/again.yaml" "$T/act.yaml" "export --backup of the import of export --backup"
}
t_102() {
	reinit || return
	must net add --net tcp --if "$IF0"
	must route add --net tcp1 --gateway $GW
	must route del --net tcp1 --gateway $GW
	"$LNETCTL" export --backup >"$T/act.yaml"
	gateways_are "$T/act.yaml"
}
t_103() {
	reinit || return
	must net add --net tcp --if "$IF0"
	must route add --net tcp103 --gateway "10.1.0.[11-16/2]@tcp"
	must route del --net tcp103 --gateway "10.1.0.[11-16/2]@tcp"
	"$LNETCTL" export --backup >"$T/act.yaml"
	gateways_are "$T/act.yaml"
}
t_104() {
	reinit || return
	lc global show
	out_has "response_tracking: 3"
	must_fail set response_tracking -1
	printf 'global:\n    response_tracking: -10\n' >"$T/g.yaml"
	must_fail import <"$T/g.yaml"
	for i in 0 1 2 3; do
		reinit && must set response_tracking $i && lc global show && out_has "response_tracking: $i"
		reinit && printf 'global:\n    response_tracking: %s\n' $i >"$T/g.yaml"
		must import <"$T/g.yaml" && lc global show && out_has "response_tracking: $i"
	done
	reinit && must_fail set response_tracking 4
	printf 'global:\n    response_tracking: 10\n' >"$T/g.yaml"
	reinit && must_fail import <"$T/g.yaml"
}
t_105() {
	reinit || return
	must net add --net tcp --if "$IF0"
	must route add --net tcp1 --gateway $GW
	must_fail peer add --prim $GW && out_has "$GW is a route's gateway"
	must_fail peer add --prim 10.1.0.21@tcp --nid $GW
	must_fail peer add --prim $GW --non_mr && out_has "exists already"
	lc peer show --nid $GW && out_has "Multi-Rail: False"
	# An import of the gateway as export writes it changes nothing.
	printf 'peer:\n    - primary nid: %s\n      Multi-Rail: False\n' $GW >"$T/gw.yaml"
	lc history --limit 1 && before=$OUT
	must import "$T/gw.yaml"
	lc history --limit 1 && [ "$OUT" = "$before" ] || err "importing the gateway changed: $OUT"
	# The Multi-Rail design's peers: (each peer exactly its NIDs) may not take it either.
	printf 'peers:\n- nids:\n  0: 10.1.0.21@tcp\n  1: %s\n' $GW >"$T/gws.yaml"
	must_fail import "$T/gws.yaml" && out_has "$GW is a route's gateway"
	lc peer show --nid $GW && out_has "Multi-Rail: False"
	# (its peers are Multi-Rail: the gateway alone there would change it)
	printf 'peers:\n- nids:\n  0: %s\n' $GW >"$T/gws.yaml"
	must_fail import "$T/gws.yaml" && out_has "$GW is a route's gateway"
	lc history --limit 1 && [ "$OUT" = "$before" ] || err "a refused peers: changed: $OUT"
	must route del --net tcp1 --gateway $GW
	must_fail peer show --nid $GW
}
t_106() {
	reinit || return
	must net add --net tcp --if "$IF0"
	must route add --net tcp1 --gateway $GW
	must_fail peer del --prim $GW
}
t_107() {
	reinit || return
	must net add --net tcp --if "$IF0"
	must net add --net tcp --if "$FAKE_IF"
	must net del --net tcp --if "$FAKE_IF"
}
t_108() {
	reinit || return
	must net add --net tcp --if "$IF0"
	"$LNETCTL" net show >"$T/exp.yaml"
	must net add --net tcp --if "$FAKE_IF"
	printf '      -     nid: %s\n            status: up\n            interfaces:\n                  0: %s\n' \
		"$FAKE_IP@tcp" "$FAKE_IF" >>"$T/exp.yaml"
	"$LNETCTL" net show >"$T/act.yaml"
	yaml_same "$T/act.yaml" "$T/exp.yaml" "net show"
}
t_109() {
	reinit || return
	ip addr add 10.1.2.31/31 dev "$FAKE_IF" label "$FAKE_IF:0"
	must net add --net tcp --if "$FAKE_IF:0"
	must net add --net tcp --if "$FAKE_IF"
	must net del --net tcp --if "$FAKE_IF"
	must net del --net tcp --if "$FAKE_IF:0"
	must net add --net tcp --if "$FAKE_IF"
	must net add --net tcp --if "$FAKE_IF:0"
	# The alias is its label's address, the interface its own (as Lustre's
	# getifaddrs() has them).
	lc net show --net tcp
	printf '%s\n' "$OUT" | grep -A3 "nid: 10.1.2.31@tcp" | grep -q "0: $FAKE_IF:0\$" &&
		printf '%s\n' "$OUT" | grep -A3 "nid: $FAKE_IP@tcp" | grep -q "0: $FAKE_IF\$" ||
		err "the alias and its interface are not two NIs of their own addresses: $OUT"
	ip addr del 10.1.2.31/31 dev "$FAKE_IF"
	lc net show --net tcp
	out_has "interface $FAKE_IF:0 does not exist"
}
t_110() {
	reinit || return
	must net add --nid "$IF0_IP@tcp"
	lc net show --net tcp
	out_has "nid: $IF0_IP@tcp"
	must net del --nid "$IF0_IP@tcp"
	lc net show
	out_lacks "nid: $IF0_IP@tcp"
}
t_111() {
	reinit || return
	must net add --net tcp --if "$IF0"
	for i in $(seq 2 500); do "$LNETCTL" route add -n "tcp1$i" -g $GW >/dev/null 2>&1 || break; done
	lc route show
	[ "$(count gateway)" = 499 ] || err "expected 499 routes, found $(count gateway): $(printf '%s\n' "$OUT" | tail -3)"
}
t_112() {
	reinit || return
	"$LNETCTL" net add --net tcp1 --if "$IF0"
	"$LNETCTL" net add --nid "$FAKE_IP@tcp2"
	lc net show -v 3
	[ "$(count 'lnd tunables:')" = 2 ] || err "expected 2 'lnd tunables:', got: $OUT"
}

# ni_order FILE: the nets of an export or net show and each net's
# interfaces, in the order listed, on one line ("tcp1 eth1 eth2 tcp eth0").
ni_order() {
	awk '/net type:/ { printf "%s%s", sep, $NF; sep = " " } / 0: / { printf " %s", $NF }
		END { print "" }' "$1"
}
# order_is WHEN ORDER: export, export --backup and net show list
# the NIs in ORDER.
order_is() {
	for what in export "export --backup" "net show"; do
		# shellcheck disable=SC2086
		"$LNETCTL" $what >"$T/order.yaml" 2>&1
		got=$(ni_order "$T/order.yaml")
		[ "$got" = "$2" ] || err "$1: $what lists '$got', not '$2'"
	done
}
# last_gen: the generation of the latest change.
last_gen() { "$LNETCTL" history --limit 1 | awk '/generation:/ { print $NF; exit }'; }
# Lustre lists NIs in the order they were added (each net where its first NI
# was), and so does lnetd, whatever happens to the configuration since.
t_ni_order() {
	reinit || return
	must net add --net tcp1 --if "$FAKE_IF"
	must net add --net tcp --if "$IF0"
	must net add --net tcp1 --if nosuch0
	want="tcp1 $FAKE_IF nosuch0 tcp $IF0" && added=$(last_gen)
	order_is "as added" "$want"
	"$LNETCTL" export >"$T/added.yaml"
	stop_lnetd
	start_lnetd || err "lnetd did not start again: $(tail -3 "$T/lnetd.log")"
	order_is "after lnetd restarts" "$want"
	must net set --net tcp1 --conns-per-peer 2
	order_is "after net set of the first net" "$want"
	lc net show -v --net tcp1
	[ "$(count 'conns_per_peer: 2')" = 2 ] || err "net set did not retune both NIs of tcp1: $OUT"
	# A refused Apply (the peer's NID is a kept NI's) puts nothing out of place.
	cat >"$T/refused.yaml" <<-EOF
		net:
		    - net type: tcp
		      local NI(s):
		        - interfaces:
		              0: $IF0
		peer:
		    - primary nid: $IF0_IP@tcp
	EOF
	must_fail import --replace "$T/refused.yaml"
	order_is "after a refused import --replace" "$want"
	# A replace that keeps the NIs (their tunables back as added, the nets
	# in another order in the file) keeps their places.
	cat >"$T/keep.yaml" <<-EOF
		net:
		    - net type: tcp
		      local NI(s):
		        - interfaces:
		              0: $IF0
		    - net type: tcp1
		      local NI(s):
		        - interfaces:
		              0: nosuch0
		        - interfaces:
		              0: $FAKE_IF
	EOF
	must import --replace "$T/keep.yaml"
	order_is "after import --replace" "$want"
	# A net lists where its first NI now is (Lustre's, where it was: lnetctl(8),
	# DIFFERENCES).
	must net del --net tcp1 --if "$FAKE_IF"
	order_is "after net del" "tcp $IF0 tcp1 nosuch0"
	must rollback "$added"
	order_is "after a rollback over net set and net del" "$want"
	must rollback 0
	must import "$T/added.yaml"
	order_is "after a rollback to nothing and an import" "$want"
}

# --- ip2nets ------------------------------------------------------------------------

# ip2nets NET IF=RANGE...: an ip2nets rule ("IF=" alone: no ip-range).
ip2rule() {
	net=$1
	shift
	printf '  - net-spec: %s\n    interfaces:\n' "$net"
	k=0
	for a in "$@"; do printf '        %s: %s\n' $k "${a%%=*}" && k=$((k + 1)); done
	k=0
	for a in "$@"; do
		[ -n "${a#*=}" ] || continue
		[ $k = 0 ] && printf '    ip-range:\n'
		printf '        %s: "%s"\n' $k "${a#*=}"
		k=$((k + 1))
	done
}
# base NET IF...: the NIs Lustre's test adds by hand, exported into $T/exp.yaml.
base() {
	reinit || return
	net=$1
	shift
	for i in "$@"; do must net add --net "$net" --if "$i"; done
	"$LNETCTL" export --backup >"$T/exp.yaml"
	"$LNETCTL" net show >"$T/exp-nis.yaml"
}
fresh_import_same() {
	reinit && import_same "$1"
}
# ip2nets_same FILE (the import's output in $OUT): lnetd keeps ip2nets rules as rules (lnetctl(8),
# DIFFERENCES), so the export is not the NIs' as in Lustre; the NIs the
# import makes are: net show equals the one of the NIs added by hand.
ip2nets_same() {
	reinit && must import "$1" || return
	# lnetd's net show also names the rule an NI came from.
	"$LNETCTL" net show | grep -v 'ip2nets pattern:' >"$T/act.yaml"
	yaml_same "$T/act.yaml" "$T/exp-nis.yaml" "net show after importing $(cat "$1")"
}
t_150() {
	base tcp "$IF0" && { echo ip2nets: && ip2rule tcp "$IF0=$IF0_IP"; } >"$T/i.yaml"
	ip2nets_same "$T/i.yaml"
}
t_151() {
	base tcp "$IF0" "$FAKE_IF" &&
		{ echo ip2nets: && ip2rule tcp "$IF0=$IF0_IP" "$FAKE_IF=$FAKE_IP"; } >"$T/i.yaml"
	ip2nets_same "$T/i.yaml"
	{ ip2rule tcp "$IF0=" && ip2rule tcp "$FAKE_IF=$FAKE_IP"; } >>"$T/i.yaml"
	# The later rules of the net are skipped, and the import says which.
	ip2nets_same "$T/i.yaml" && out_has "ip2nets rule 2: tcp has interface $IF0 by rule 1" &&
		out_has "ip2nets rule 3: tcp has interface $FAKE_IF by rule 1"
	# An import adds a rule without ip-range (a plain NI) before those with
	# ranges, lnetd's canonical order, so tcp2 lists first; Lustre adds in
	# the file's order (lnetctl(8), DIFFERENCES).
	base tcp2 "$IF0" && must net add --net tcp --if "$IF0" && must net add --net tcp --if "$FAKE_IF" &&
		"$LNETCTL" net show >"$T/exp-nis.yaml"
	ip2rule tcp2 "$IF0=" >>"$T/i.yaml"
	ip2nets_same "$T/i.yaml"
}
t_152() {
	base tcp "$IF0"
	for r in "10.1.0.*" "10.1.*.*" "10.*.*.*"; do
		{ echo ip2nets: && ip2rule tcp "$IF0=$r"; } >"$T/i.yaml"
		ip2nets_same "$T/i.yaml"
	done
	{ echo ip2nets: && ip2rule tcp "$IF0=*.*.*.*" && ip2rule tcp "$IF0=" "$FAKE_IF=" &&
		ip2rule tcp "$IF0=$IF0_IP" "$FAKE_IF=$FAKE_IP"; } >"$T/i.yaml"
	ip2nets_same "$T/i.yaml"
}
t_153() {
	base tcp "$IF0" && { echo ip2nets: && ip2rule tcp "$IF0=10.1.0.[6-14]"; } >"$T/i.yaml"
	ip2nets_same "$T/i.yaml"
}
t_154() {
	base tcp "$IF0" && { echo ip2nets: && ip2rule tcp "$IF0=10.1.0.[6-14/2]"; } >"$T/i.yaml"
	ip2nets_same "$T/i.yaml"
}
t_155() {
	# lnetd keeps an ip2nets rule that matches nothing yet as desired state
	# (a NIC may come later, lnetctl(8) DIFFERENCES); it says so, by name.
	reinit && { echo ip2nets: && ip2rule tcp "$IF0=10.20.30.40"; } >"$T/i.yaml"
	must import --dry-run "$T/i.yaml"
	out_has "pending" && out_has "ni tcp $IF0 10.20.30.40:"
	must import "$T/i.yaml"
	out_has "warning: the ip2nets rule tcp $IF0 10.20.30.40 matches no interface now"
	lc net show
	out_lacks "nid:"
}
t_156() {
	base tcp "$IF0" && { echo ip2nets: && ip2rule tcp "$IF0=10.1.0.[12,14,10,16,18]"; } >"$T/i.yaml"
	ip2nets_same "$T/i.yaml"
}
t_157() {
	reinit || return
	printf 'ip2nets:\n  - interfaces:\n        0: %s\n    ip-range:\n        0: 192.168.1.1\n' "$IF0" >"$T/i.yaml"
	must_fail import "$T/i.yaml"
}
t_158() {
	base tcp "$IF0" && { echo ip2nets: && ip2rule tcp "$IF0=$IF0_IP6"; } >"$T/i.yaml"
	ip2nets_same "$T/i.yaml"
}
t_159() {
	base tcp "$IF0" && { echo ip2nets: && ip2rule tcp "$IF0=$IF0_IP6/128"; } >"$T/i.yaml"
	ip2nets_same "$T/i.yaml"
}
t_160() {
	base tcp "$IF0" "$FAKE_IF" &&
		{ echo ip2nets: && ip2rule tcp "$IF0=$IF0_IP6" "$FAKE_IF=$FAKE_IP6"; } >"$T/i.yaml"
	ip2nets_same "$T/i.yaml"
	{ ip2rule tcp "$IF0=" && ip2rule tcp "$FAKE_IF=$FAKE_IP6"; } >>"$T/i.yaml"
	ip2nets_same "$T/i.yaml"
	base tcp "$IF0" "$FAKE_IF" && must net add --net tcp2 --if "$IF0" &&
		"$LNETCTL" net show >"$T/exp-nis.yaml"
	ip2rule tcp2 "$IF0=$IF0_IP6" >>"$T/i.yaml"
	ip2nets_same "$T/i.yaml"
}
t_161() {
	base tcp "$IF0"
	for len in 64 32 16 8; do
		{ echo ip2nets: && ip2rule tcp "$IF0=$IF0_IP6/$len"; } >"$T/i.yaml"
		ip2nets_same "$T/i.yaml"
	done
}
t_162() {
	reinit && { echo ip2nets: && ip2rule tcp "$IF0=2001:db8:dead:beef::1"; } >"$T/i.yaml"
	must import "$T/i.yaml"
	out_has "warning: the ip2nets rule tcp $IF0 2001:db8:dead:beef::1 matches no interface now"
	lc net show
	out_lacks "nid:"
}

# --- NI settings -----------------------------------------------------------------------

t_170() {
	reinit || return
	printf 'net:\n-     net type: tcp\n      local NI(s):\n        - interfaces:\n                0: %s\n          CPT: "[0]"\n        - interfaces:\n                0: %s\n          CPT: "[1]"\n' \
		"$IF0" "$FAKE_IF" >"$T/n.yaml"
	must import --old-api <"$T/n.yaml"
	lc export --backup
	[ "$(printf '%s\n' "$OUT" | grep CPT: | tr -d ' ')" = 'CPT:"[0]"
CPT:"[1]"' ] || err "CPTs: $OUT"
	reinit || return
	printf 'net:\n-     net type: tcp\n      local NI(s):\n        - interfaces:\n                0: %s\n          lnd tunables:\n                conns_per_peer: 5\n                tos: -1\n' \
		"$IF0" >"$T/n.yaml"
	must import --old-api <"$T/n.yaml"
	lc export --backup
	out_has "conns_per_peer: 5"
	# lnd tunables are each NI's own
	reinit || return
	printf 'net:\n-     net type: tcp\n      local NI(s):\n        - interfaces:\n                0: %s\n          lnd tunables:\n                conns_per_peer: 5\n                tos: -1\n        - interfaces:\n                0: %s\n          lnd tunables:\n                conns_per_peer: 3\n                tos: -1\n' \
		"$IF0" "$FAKE_IF" >"$T/n.yaml"
	must import --old-api <"$T/n.yaml"
	lc export --backup
	out_has "conns_per_peer: 5" && out_has "conns_per_peer: 3"
	# a net's tunables are its first NI's: a second NI's own are not used,
	# with a warning (Lustre's "All tunables of NIs of a net should be the
	# same"); its lnd tunables are its own
	reinit || return
	printf 'net:\n-     net type: tcp\n      local NI(s):\n        - interfaces:\n                0: %s\n        - interfaces:\n                0: %s\n          tunables:\n                peer_timeout: 181\n                peer_credits: 8\n                peer_buffer_credits: 0\n                credits: 256\n          lnd tunables:\n                conns_per_peer: 3\n                tos: -1\n' \
		"$IF0" "$FAKE_IF" >"$T/n.yaml"
	must import --old-api <"$T/n.yaml"
	out_has "all NIs of a net have the net's"
	lc export --backup
	printf '%s\n' "$OUT" | grep "conns_per_peer:" | grep -qv 3 || err "no NI kept its own conns_per_peer: $OUT"
	out_has "conns_per_peer: 3"
	[ "$(count 'peer_timeout: 181')" = 0 ] || err "the second NI's peer_timeout was used: $OUT"
	reinit || return
	printf 'net:\n-     net type: tcp\n      local NI(s):\n        - interfaces:\n                0: %s\n        - interfaces:\n                0: %s\n      tunables:\n            peer_timeout: 182\n            peer_credits: 8\n            peer_buffer_credits: 0\n            credits: 256\n      lnd tunables:\n            conns_per_peer: 3\n            tos: -1\n' \
		"$IF0" "$FAKE_IF" >"$T/n.yaml"
	must import --old-api <"$T/n.yaml"
	lc export --backup
	[ "$(count 'peer_timeout: 182')" = 2 ] && [ "$(count 'conns_per_peer: 3')" = 2 ] ||
		err "net-level tunables not on both NIs: $OUT"
}
t_230() {
	for i in 4 5 6 7; do
		reinit || return
		if [ $((i % 2)) = 0 ]; then
			must net add --net tcp --if "$IF0" && must net set --all --conns-per-peer $i
		else
			must net add --net tcp --if "$IF0" --conns-per-peer $i
		fi
		lc net show -v 1
		out_has "conns_per_peer: $i"
	done
	reinit && must net add --net tcp --if "$IF0"
	must_fail net set --all --conns-per-peer 128
	lc net show -v 1
	def=$(printf '%s\n' "$OUT" | awk '/conns_per_peer/{print $NF}')
	must net set --all --conns-per-peer -1
	lc net show -v 1
	out_has "conns_per_peer: $def"
	for v in 128 1000000000000000000000000 foo; do
		reinit && must_fail net add --net tcp --if "$IF0" --conns-per-peer $v
		lc net show --net tcp
		out_lacks "nid:"
	done
	reinit && must net add --net tcp --if "$IF0" --conns-per-peer 8
	"$LNETCTL" export --backup | sed 's/conns_per_peer: 8/conns_per_peer: 200/' >"$T/n.yaml"
	reinit && must_fail import <"$T/n.yaml"
	lc net show --net tcp
	out_lacks "nid:"
}
t_231() {
	reinit || return
	must net add --net tcp231 --if "$IF0"
	"$LNETCTL" export --backup >"$T/exp.yaml"
	pto=$(awk '/^ +peer_timeout:/{print $NF}' "$T/exp.yaml")
	[ "$pto" = 180 ] || err "export --backup: peer_timeout '$pto', not 180"
	for p in -1 0 60 180; do
		reinit || return
		sed -i "s/peer_timeout: .*/peer_timeout: $p/" "$T/exp.yaml"
		must import "$T/exp.yaml"
		[ "$p" != -1 ] || sed -i "s/peer_timeout: -1/peer_timeout: 180/" "$T/exp.yaml"
		same_as_expected "after importing peer_timeout $p"
		must net del --net tcp231 --if "$IF0"
		must net add --net tcp231 --if "$IF0" --peer-timeout=$p
		same_as_expected "after net add --peer-timeout=$p"
	done
}
t_232() {
	reinit || return
	must net add --net tcp232 --if "$IF0"
	lc net show --net tcp232 -v 1
	out_has "tos: -1"
	must net del --net tcp232 --if "$IF0"
	for i in -1 104 106; do
		must net add --net tcp232 --if "$IF0" --tos $i
		lc net show --net tcp232 -v 1
		out_has "tos: $i"
		must net del --net tcp232 --if "$IF0"
	done
	must_fail net add --net tcp232 --if "$IF0" --tos 300
}
t_234() {
	reinit && must net add --net tcp --if "$IF0"
	lc net show -v 2 --net tcp
	out_has "status: up" && out_has "health value: 1000"
	must set health_sensitivity 0
	# recovery would ping the NI back up: held off (the longest interval there is)
	must set max_recovery_ping_interval 4294967295
	must set recovery_interval 4294967295
	must net set --health 0 --nid "$IF0_IP@tcp"
	lc net show -v 2 --net tcp
	out_has "status: down" && out_has "health value: 0"
	must net set --health 1000 --nid "$IF0_IP@tcp"
	lc net show -v 2 --net tcp
	out_has "status: up" && out_has "health value: 1000"
}
# check_parameter NAME VALUE: Lustre's: in net show -v of tcp, the lines
# "NAME: VALUE" are as many as the NIs ("nid:" lines).
check_parameter() {
	lc net show --net tcp -v
	nis=$(count "nid:")
	[ "$nis" -gt 0 ] && [ "$(printf '%s\n' "$OUT" | grep -c "^ \+$1: $2\$")" = "$nis" ] ||
		err "net show -v: expected $1: $2 on $nis NIs: $OUT"
}
t_241() {
	reinit && must net add --net tcp --if "$IF0"
	lc net set -h
	out_has "--lnd-timeout:" || return
	lc net show --net tcp -v
	old=$(printf '%s\n' "$OUT" | awk '/^ +timeout:/{print $NF}')
	must net set --net tcp --lnd-timeout $((old + 1))
	check_parameter timeout $((old + 1))
	lc global show -v
	glob=$(printf '%s\n' "$OUT" | awk '/lnd_timeout:/{print $NF}')
	must net set --net tcp --lnd-timeout 0
	check_parameter timeout "$glob"
	must net set --net tcp --lnd-timeout "$old"
	check_parameter timeout "$old"
}
t_245() {
	reinit && must net add --net tcp --if "$IF0"
	lc net show -v
	[ "$(count ' \+timeout:')" = 1 ] || err "net show -v: $OUT"
	lc export -b
	[ "$(count ' \+timeout:')" = 0 ] || err "export -b: $OUT"
}
t_265() {
	reinit || return
	for cpt in "[1-0]" "[]"; do
		printf 'net:\n-     net type: tcp\n      local NI(s):\n      -     interfaces:\n                  0: %s\n            CPT: "%s"\n' "$IF0" "$cpt" >"$T/n.yaml"
		must_fail import "$T/n.yaml"
		printf 'net:\n-     net type: tcp\n      local NI(s):\n      -     interfaces:\n                  0: %s\n            CPT: %s\n' "$IF0" "$cpt" >"$T/n.yaml"
		must_fail import "$T/n.yaml"
	done
}
t_266() {
	reinit && must net add --net tcp --if "$IF0"
	"$LNETCTL" export --backup >"$T/exp.yaml"
	lc net show -v --net tcp
	cpt=$(printf '%s\n' "$OUT" | awk '/CPT/{print $NF}')
	[ -n "$cpt" ] || err "net show -v has no CPT"
	low=$(echo "$cpt" | awk -F, '{print $1}' | tr -d '[]"')
	high=$(echo "$cpt" | awk -F, '{print $NF}' | tr -d '[]"')
	for q in '"' ''; do
		printf 'net:\n-     net type: tcp\n      local NI(s):\n      -     interfaces:\n                  0: %s\n' "$IF0" >"$T/n.yaml"
		printf '%s\n' "$OUT" | awk '/^ +tunables:$/,/^ +CPT:/' | grep -v -e 'dev cpt' -e CPT >>"$T/n.yaml"
		echo "            CPT: ${q}[$low-$high]$q" >>"$T/n.yaml"
		fresh_import_same "$T/n.yaml"
	done
}

# --- UDSP ------------------------------------------------------------------------------

t_400() { reinit && must udsp add --src tcp --priority 0 && must udsp del --idx 0; }
t_402() { reinit && must udsp add --dst kfi --priority 0 && must peer add --prim 402@kfi; }
t_403() {
	for rt in src dst; do
		for arg in tcp 1.1.1.1@tcp; do
			reinit || return
			printf 'udsp:\n- idx: 0\n  %s: %s\n  action:\n    priority: 1\n' $rt $arg >"$T/exp.yaml"
			must udsp add --$rt $arg --prio 1
			"$LNETCTL" udsp show >"$T/act.yaml"
			yaml_same "$T/act.yaml" "$T/exp.yaml" "udsp show"
			must udsp del --idx 0
			lc udsp show
			[ -z "$OUT" ] || err "udsp show with no rules: $OUT"
		done
	done
}
t_404() {
	for rt in src dst both; do
		for net in tcp tcp2; do
			reinit && must net add --net tcp --if "$IF0" && must net add --net tcp2 --if "$IF0"
			if [ $rt = both ]; then
				must udsp add --src $net --prio 1 && must udsp add --dst $net --prio 1
			else
				must udsp add --$rt $net --prio 1
			fi
			"$LNETCTL" export --backup >"$T/exp.yaml"
			reinit && must import "$T/exp.yaml" && same_as_expected "after importing the backup"
			lc net show -v 5 --net $net
			[ $rt = dst ] || out_has "net priority: 1"
		done
	done
}
t_450() {
	base tcp "$IF0" "$FAKE_IF"
	printf 'net:\n    - net type: tcp\n      local NI(s):\n        - interfaces:\n              0: %s\n              1: %s\n' "$IF0" "$FAKE_IF" >"$T/n.yaml"
	fresh_import_same "$T/n.yaml"
	must import --del "$T/n.yaml"
	lc net show
	out_lacks "nid:"
}

# --- lnetctl lnet configure / unconfigure (Lustre's lnet.service) ------------------------

t_lnet() {
	reinit || return
	must lnet configure
	must lnet configure --all
	must net add --net tcp --if "$IF0"
	# lnetd does not take LNet down: refused, saying how (lnetctl(8), DIFFERENCES)
	must_fail lnet unconfigure
	out_has "does not take it down"
}

sl 0 "Export empty config, import the config, compare"
sl 1 "Add peer with single nid (tcp)"
sl 2 "Add peer with single nid (o2ib)"
sl 3 "Add peer with tcp primary o2ib secondary"
sl 4 "Add peer with nidrange (tcp)"
sl 5 "Add peer with nidrange (o2ib)"
sl 6 "Add peer with multiple nidranges"
sl 7 "Various peer delete tests"
sl 8 "Delete single secondary nid from peer (tcp)"
sl 9 "Delete all secondary nids from peer (tcp)"
sl 10 "Delete single secondary nid from peer (o2ib)"
sl 11 "Delete all secondary nids from peer (o2ib)"
sl 12 "Delete a secondary nid from peer (tcp and o2ib)"
sl 13 "Delete all secondary nids from peer (tcp and o2ib)"
sl 14 "import peer create/delete with single nid"
sl 15 "import multi peer create/delete with single nid per peer"
sl 16 "import peer create/delete with multiple nids"
sl 17 "import multi peer create/delete with multiple nids"
sl 18a "Delete a subset of nids from a single peer using import --del"
sl 18b "Delete multiple nids from multiple peers using import --del"
sl 19 "Add peer with single nid (gni)"
sl 20 "Add peer with gni primary and tcp, o2ib secondary"
sl 21 "Add peer with nidrange (gni)"
sl 22 "Delete single secondary nid from peer (gni)"
sl 23 "Delete all secondary nids from peer (gni)"
sl 24 "Delete a secondary nid from peer (tcp, o2ib and gni)"
sl 25 "Delete all secondary nids from peer (tcp, gni and o2ib)"
sl 26 "Delete peer with primary nid locked"
sl 27 "Import bad config should fail gracefully"
sl 28 "Test peer_list"
sl 50 "Enable/disable routing via yaml import"
sl 51 "Set numa range via yaml import"
sl 99a "Check various invalid inputs to lnetctl peer (lnetd: a route on no local net warns)"
sl 99b "Invalid value for Multi-Rail in yaml import"
sl 100 "Add route with single gw"
sl 101 "Add route with multiple gw"
sl 102 "Delete route with single gw"
sl 103 "Delete route with multiple gw"
sl 104 "Set/check response_tracking param"
sl 105 "Adding duplicate GW peer should fail"
sl 106 "Deleting GW peer should fail"
sl 107 "Deleting extra interface doesn't crash node"
sl 108 "Check Multi-Rail setup"
sl 109 "Add NI using a network interface alias (LU-16859)"
sl 110 "Configure NI using lnetctl net add --nid"
sl 111 "Test many routes"
sl 112 "multiple net configurations"
sl ni_order "NIs keep the order they were added (restart, net set, refused Apply, replace, rollback)"
sl 150 "Check import of ip2nets yaml sequence"
sl 151 "Check correct application of multiple ip2nets rules"
sl 152 "Check import of ip2nets with wildcard IP patterns"
sl 153 "Check import of ip2nets with IP address ranges"
sl 154 "Check import of ip2nets with stepped IP address ranges"
sl 155 "Check ip2nets import failure with no matching rules (lnetd: a warning)"
sl 156 "Check import of ip2nets with comma-separated IP ranges"
sl 157 "Check import failure with malformed ip2nets YAML"
sl 158 "Check import of ip2nets with single IPv6 address"
sl 159 "Check import of ip2nets with IPv6 /128 CIDR notation"
sl 160 "Check correct application of multiple IPv6 ip2nets rules"
sl 161 "Check import of ip2nets with various IPv6 prefix lengths"
sl 162 "Check ip2nets import failure with non-matching IPv6 (lnetd: a warning)"
sl 170 "Check CPTs and tunables parsing when importing"
sl 230 "Test setting conns-per-peer"
sl 231 "Check DLC handling of peer_timeout parameter"
sl 232 "Test setting ToS value"
sl 234 "Verify NI status changes with manual health value transitions"
sl 241 "Check setting LND timeout value via lnetctl updates tunables"
sl 245 "Check read-only params do not appear in export --backup"
sl 265 "Import of invalid CPT should fail"
sl 266 "Validate CPT parsing in network sequence"
sl 400 "Check for udsp add/delete net rule without net num"
sl 402 "Destination net rule should not panic"
sl 403 "Add and delete udsp net and nid rules"
sl 404 "Check udsp src/dst net rule"
sl 450 "Check import of multiple interfaces"
sl lnet "lnetctl lnet configure / unconfigure, as Lustre's lnet.service runs them"
finish
