#!/bin/sh
# Peers and routes through lnetd: adds, refusals that name the owner or the
# bad part and change nothing, all-or-nothing deletes, the gateway that
# becomes a peer, and the same state after a restart.  TAP.
set -u
. "$(dirname "$0")/lib.sh"
LNETD=${LNETD:-lnetd/lnetd}

if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root"
	exit 0
fi
start_bus
check "lnetd starts" start_lnetd

bcall AddPeer 'sasa{sv}' 10.0.0.1@tcp 2 10.0.0.2@tcp 10.1.0.1@o2ib 1 multi_rail b true
check "AddPeer makes a peer with its NIDs" has 't 1'
bcall ListPeers
check "ListPeers shows it by named fields, every NID healthy" \
	has '"10.0.0.1@tcp" 7 "multi_rail" b true "implicit" b false "discovered" b false "locked" b false "discovered_nids" as 0 "nids" a(su) 3 "10.0.0.1@tcp" 1000 "10.0.0.2@tcp" 1000 "10.1.0.1@o2ib" 1000 "nid_states" a(ss) 3 "10.0.0.1@tcp" "NA" "10.0.0.2@tcp" "NA" "10.1.0.1@o2ib" "NA"'
bcall AddPeer 'sasa{sv}' 10.0.0.9@tcp 1 10.0.0.2@tcp 1 multi_rail b true
check "a NID owned by another peer is refused, naming the owner" \
	has "10.0.0.2@tcp: already a NID of peer 10.0.0.1@tcp"
bcall AddPeer 'sasa{sv}' 10.0.0.1@tcp 0 1 multi_rail b true
check "adding an existing peer with nothing new is refused" has "peer 10.0.0.1@tcp exists already"
bcall AddPeer 'sasa{sv}' 10.0.0.1@tcp 1 10.0.0.3@tcp 1 multi_rail b false
check "a peer keeps its Multi-Rail setting" has "exists as Multi-Rail"
bcall AddPeer 'sasa{sv}' 10.0.0.300@tcp 0 1 multi_rail b true
check "a bad NID is refused with the grammar's sentence" \
	has "10.0.0.300@tcp: '10.0.0.300' is not an IP address"
bprop Generation && check "refusals changed nothing" has 't 1'

bsend DeletePeer string:10.0.0.1@tcp array:string:10.0.0.2@tcp,10.9.9.9@tcp
check "deleting a NID the peer does not have is refused" \
	has "NotFound: 10.9.9.9@tcp is not a NID of peer 10.0.0.1@tcp"
bcall ListPeers
check "and the other NID of that request is still there" has '"10.0.0.2@tcp" 1000'
bsend DeletePeer string:10.0.0.1@tcp array:string:10.0.0.1@tcp
check "the primary NID goes only with the peer" has "Busy: 10.0.0.1@tcp is peer 10.0.0.1@tcp's primary NID"
bcall DeletePeer sas 10.0.0.1@tcp 1 10.1.0.1@o2ib
check "DeletePeer removes one NID" has 't 2'

bcall AddRoute 'ssa{sv}' o2ib2 10.0.0.254@tcp 2 hops u 2 priority u 5
check "AddRoute with options" has 't 3'
bcall ListRoutes
# then the router checker's state (its value: routers.sh)
check "ListRoutes shows it, each setting by name" has '"o2ib2" "10.0.0.254@tcp" 4 "hops" u 2 "priority" u 5 "sensitivity" u 1 "state" s'
bcall ListPeers
check "its gateway became an (implicit) peer" has '"10.0.0.254@tcp" 7 "multi_rail" b false "implicit" b true "discovered" b false "locked" b false'
bcall AddRoute 'ssa{sv}' o2ib2 10.0.0.254@tcp 0
check "the same route again is refused" has "a route through 10.0.0.254@tcp exists already"
bcall AddRoute 'ssa{sv}' o2ib3 10.0.0.254@tcp 1 hops u 0
check "hops 0 is refused with its range" has "hops 0 is outside 1..255"
bcall AddRoute 'ssa{sv}' o2ib3 10.0.0.254@tcp 1 weight u 3
check "an unknown option is refused by name" has "AddRoute: unknown field 'weight'"
bcall AddRoute 'ssa{sv}' tcp 10.0.0.254@tcp 0
check "a gateway on the remote net itself is refused" has "a gateway to tcp cannot be on tcp itself"
bcall AddRoute 'ssa{sv}' o2ib4 10.0.0.254@tcp 0
check "a second route through the same gateway, defaults for the rest" has 't 4'
bcall DeleteRoute ss o2ib4 10.0.0.254@tcp
check "DeleteRoute" has 't 5'
bcall DeleteRoute ss o2ib4 10.0.0.254@tcp
check "deleting it twice is refused, naming the route" has "no route to o2ib4 through 10.0.0.254@tcp"

bcall AddPeer 'sasa{sv}' 10.0.0.254@tcp 0 1 multi_rail b true
check "a route's gateway is not made a Multi-Rail peer (sanity-lnet 105)" has "10.0.0.254@tcp is a route's gateway"
bcall AddPeer 'sasa{sv}' 10.0.0.9@tcp 1 10.0.0.254@tcp 0
check "nor another peer's NID" has "10.0.0.254@tcp is a route's gateway, not a NID of peer 10.0.0.9@tcp"
bcall AddPeer 'sasa{sv}' 10.0.0.254@tcp 0 1 multi_rail b false
check "added as it is, it exists already" has "peer 10.0.0.254@tcp exists already"
bcall Apply 'a(ssa{sv})b' 1 add peer 2 primary s 10.0.0.254@tcp multi_rail b false false
check "and Apply (an import) takes it as it is, changing nothing" has 'tas 5 0'
bcall ListPeers
check "ListPeers shows it still implicit" has '"10.0.0.254@tcp" 7 "multi_rail" b false "implicit" b true "discovered" b false "locked" b false'

# A missing multi_rail means one thing in AddPeer and Apply alike: Multi-Rail
# for a new peer, the peer's own for an existing one.
lacks() {
	case $OUT in *"$1"*) diag "did not expect: $1" "got: $OUT" && return 1 ;; esac
}
bcall AddPeer 'sasa{sv}' 10.0.0.5@tcp 0 1 multi_rail b false
check "AddPeer makes a non-Multi-Rail peer" has 't 6'
bcall AddPeer 'sasa{sv}' 10.0.0.5@tcp 1 10.0.0.6@tcp 0
check "AddPeer without multi_rail adds a NID to it, keeping its setting" has 't 7'
bcall Apply 'a(ssa{sv})b' 1 add peer 2 primary s 10.0.0.5@tcp nids as 1 10.0.0.7@tcp false
check "and so does Apply" has 'tas 8 '
bcall ListPeers
check "the peer is still non-Multi-Rail" has '"10.0.0.5@tcp" 7 "multi_rail" b false'
check "with its three NIDs" \
	has '"nids" a(su) 3 "10.0.0.5@tcp" 1000 "10.0.0.6@tcp" 1000 "10.0.0.7@tcp" 1000'
bcall AddPeer 'sasa{sv}' 10.0.0.8@tcp 0 0
bcall Apply 'a(ssa{sv})b' 1 add peer 1 primary s 10.0.0.11@tcp false
bcall ListPeers
check "a new peer AddPeer makes without multi_rail is Multi-Rail" \
	has '"10.0.0.8@tcp" 7 "multi_rail" b true'
check "and one Apply makes" has '"10.0.0.11@tcp" 7 "multi_rail" b true'
bcall Export
check "Export says multi_rail always" has '"primary" s "10.0.0.8@tcp" "multi_rail" b true'
check "and lock_prim only where it is set" lacks 'lock_prim'
bcall Apply 'a(ssa{sv})b' 1 add peer 2 primary s 10.0.0.12@tcp lock_prim b true false
bcall Export
check "so a locked peer's Export carries it, for an Apply to restore" \
	has '"primary" s "10.0.0.12@tcp" "multi_rail" b true "lock_prim" b true'

bcall ListPeers
before_peers=$OUT
bcall ListRoutes
before_routes=$OUT
stop_lnetd
check "lnetd stops" test "$LNETD_RC" = 0
check "and starts again" start_lnetd
bcall ListPeers
check "peers are the same after the restart" test "$OUT" = "$before_peers"
bcall ListRoutes
check "routes are the same after the restart" test "$OUT" = "$before_routes"
bprop Generation && check "and so is the generation" has 't 11'
finish
