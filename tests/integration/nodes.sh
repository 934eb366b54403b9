# shellcheck shell=sh
# LNet nodes in network namespaces of their own, each with a bus and an
# lnetd (userspace engine) of its own: what tests/integration/fabric.sh,
# bench/dp.sh and scripts/fabric share.  Sourced; the caller sets
#   T        a scratch directory (buses, state, logs)
#   NS       a prefix for the namespaces' names: node X lives in $NS$X
#   LNETD, LNETCTL  the programs under test
# and calls nodes_cleanup on exit.  Optional: IP (iproute2's ip; the VM
# guest's is /bin/ip2), NODE_ENGINE (userspace, or kernel where the lnetk
# module is loaded) and NODE_BUS_CONF (a bus configuration to use as is).
# Every wait is for a condition, bounded by NODE_WAIT seconds (generous: the
# bound only turns a hang into a failure, on a machine as loaded as it gets).
NODE_PIDS=
IP=${IP:-ip}
NODE_WAIT=${NODE_WAIT:-${TEST_WAIT:-120}}

# wait_until SECONDS COMMAND...: poll COMMAND until it succeeds; 1 if it has
# not after SECONDS (lib.sh has the same, for the tests that source it alone)
wait_until() {
	_wu_end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$_wu_end" ] || return 1
		sleep 0.05
	done
}

# node_ns X...: the namespaces $NS$X, loopback up
node_ns() {
	for _x in "$@"; do
		"$IP" netns add "$NS$_x" && "$IP" -n "$NS$_x" link set lo up || return 1
	done
}

# node_start X [ARGS...]: in namespace $NS$X (node_ns), a bus at $T/X.bus and an lnetd
# (given ARGS too); 0 once it answers.
node_start() {
	_node=$1
	shift
	_conf=${NODE_BUS_CONF:-$T/bus.conf}
	[ -n "${NODE_BUS_CONF:-}" ] || sed 's|<policy context="default">|&<allow user="*"/>|' \
		/usr/share/dbus-1/session.conf >"$T/bus.conf"
	dbus-daemon --config-file="$_conf" --address="unix:path=$T/$_node.bus" --nofork \
		--nopidfile 2>>"$T/bus.log" &
	NODE_PIDS="$NODE_PIDS $!"
	wait_until "$NODE_WAIT" test -S "$T/$_node.bus"
	DBUS_SYSTEM_BUS_ADDRESS="unix:path=$T/$_node.bus" "$IP" netns exec "$NS$_node" \
		"$LNETD" --engine="${NODE_ENGINE:-userspace}" --state-dir="$T/$_node.state" "$@" \
		2>>"$T/lnetd.log" &
	NODE_PIDS="$NODE_PIDS $!"
	wait_until "$NODE_WAIT" node_ctl "$_node" status >/dev/null 2>&1
}

# node_ctl X ARGS...: lnetctl against node X
node_ctl() {
	_n=$1
	shift
	DBUS_SYSTEM_BUS_ADDRESS="unix:path=$T/$_n.bus" "$LNETCTL" "$@"
}

# node_link A IFA B IFB NET: a veth pair, IFA in $NS$A with NET.1/24 and IFB in
# $NS$B with NET.2/24 (NET: three octets), both up
node_link() {
	"$IP" link add "$2" netns "$NS$1" type veth peer name "$4" netns "$NS$3" &&
		"$IP" -n "$NS$1" addr add "$5.1/24" dev "$2" &&
		"$IP" -n "$NS$3" addr add "$5.2/24" dev "$4" &&
		"$IP" -n "$NS$1" link set "$2" up && "$IP" -n "$NS$3" link set "$4" up
}

# node_rails A B COUNT PREFIX: COUNT veth pairs ${A}0.. in $NS$A and ${B}0.. in
# $NS$B, addresses PREFIX.R.1/24 and PREFIX.R.2/24 (PREFIX: two octets)
node_rails() {
	r=0
	while [ $r -lt "$3" ]; do
		node_link "$1" "$1$r" "$2" "$2$r" "$4.$r" || return 1
		r=$((r + 1))
	done
}

# node_up X: until every NI of X is up (a veth's carrier can take a second to show)
node_up() { wait_until "$NODE_WAIT" node_all_up "$1"; }
node_all_up() { ! node_ctl "$1" net show | grep -q "status: down"; }

nodes_cleanup() {
	for _p in $NODE_PIDS; do kill "$_p" 2>/dev/null; done
	wait 2>/dev/null
	for _ns in $("$IP" netns list 2>/dev/null | awk -v p="$NS" 'index($1, p) == 1 { print $1 }'); do
		"$IP" netns del "$_ns"
	done
}
