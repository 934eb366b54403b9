# shellcheck shell=sh
# LNet nodes in network namespaces of their own, each with a bus and an
# lnetd (userspace engine) of its own: what tests/integration/fabric.sh,
# bench/dp.sh and scripts/fabric share.  Sourced; the caller sets
#   T        a scratch directory (buses, state, logs)
#   NS       a prefix for the namespaces' names: node X lives in $NS$X
#   LNETD, LNETCTL  the programs under test
# and calls nodes_cleanup on exit.
NODE_PIDS=

# node_ns X...: the namespaces $NS$X, loopback up
node_ns() {
	for _x in "$@"; do
		ip netns add "$NS$_x" && ip -n "$NS$_x" link set lo up || return 1
	done
}

# node_start X [ARGS...]: in namespace $NS$X (node_ns), a bus at $T/X.bus and an lnetd
# (given ARGS too); 0 once it answers.
node_start() {
	_node=$1
	shift
	sed 's|<policy context="default">|&<allow user="*"/>|' \
		/usr/share/dbus-1/session.conf >"$T/bus.conf"
	dbus-daemon --config-file="$T/bus.conf" --address="unix:path=$T/$_node.bus" --nofork \
		--nopidfile 2>>"$T/bus.log" &
	NODE_PIDS="$NODE_PIDS $!"
	for _ in $(seq 50); do [ -S "$T/$_node.bus" ] && break; sleep 0.1; done
	DBUS_SYSTEM_BUS_ADDRESS="unix:path=$T/$_node.bus" ip netns exec "$NS$_node" \
		"$LNETD" --engine=userspace --state-dir="$T/$_node.state" "$@" 2>>"$T/lnetd.log" &
	NODE_PIDS="$NODE_PIDS $!"
	for _ in $(seq 100); do
		node_ctl "$_node" status >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	return 1
}

# node_ctl X ARGS...: lnetctl against node X
node_ctl() {
	_n=$1
	shift
	DBUS_SYSTEM_BUS_ADDRESS="unix:path=$T/$_n.bus" "$LNETCTL" "$@"
}

# node_rails A B COUNT PREFIX: COUNT veth pairs ${A}0.. in $NS$A and ${B}0.. in
# $NS$B, addresses PREFIX.R.1/24 and PREFIX.R.2/24 (PREFIX: two octets)
node_rails() {
	r=0
	while [ $r -lt "$3" ]; do
		ip link add "$1$r" netns "$NS$1" type veth peer name "$2$r" netns "$NS$2" &&
			ip -n "$NS$1" addr add "$4.$r.1/24" dev "$1$r" &&
			ip -n "$NS$2" addr add "$4.$r.2/24" dev "$2$r" &&
			ip -n "$NS$1" link set "$1$r" up && ip -n "$NS$2" link set "$2$r" up || return 1
		r=$((r + 1))
	done
}

# node_up X: until every NI of X is up (a veth's carrier can take a second to show)
node_up() {
	for _ in $(seq 100); do
		node_ctl "$1" net show | grep -q "status: down" || return 0
		sleep 0.05
	done
	return 1
}

nodes_cleanup() {
	for _p in $NODE_PIDS; do kill "$_p" 2>/dev/null; done
	wait 2>/dev/null
	for _ns in $(ip netns list 2>/dev/null | awk -v p="$NS" 'index($1, p) == 1 { print $1 }'); do
		ip netns del "$_ns"
	done
}
