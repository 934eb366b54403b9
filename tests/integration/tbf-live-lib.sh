# shellcheck shell=sh
# TBF on live requests between userspace-engine nodes: what
# tests/integration/tbf-live.sh and bench/tbf-live.sh share.  Sourced after
# nodes.sh (T, NS, LNETD, LNETCTL set; on() defined by the caller).
#
# A server s (PREFIX.0.100 on the bridge br0 of its namespace) serving its
# test portal, and clients a, b, c (PREFIX.0.1-3), each on a veth into s's
# bridge, one LNet net tcp.

# tbf_live_net PREFIX: build it and start the four nodes; LIVE_OK=yes if all came up.
tbf_live_net() {
	LIVE_OK=no
	LIVE_SERVER=$1.0.100@tcp
	node_ns s a b c || return 1
	"$IP" -n "${NS}s" link add br0 type bridge && "$IP" -n "${NS}s" link set br0 up &&
		"$IP" -n "${NS}s" addr add "$1.0.100/24" dev br0 || return 1
	_i=1
	for _x in a b c; do
		"$IP" link add "${_x}0" netns "$NS$_x" type veth peer name "s$_x" netns "${NS}s" &&
			"$IP" -n "${NS}s" link set "s$_x" master br0 up &&
			"$IP" -n "$NS$_x" addr add "$1.0.$_i/24" dev "${_x}0" &&
			"$IP" -n "$NS$_x" link set "${_x}0" up || return 1
		_i=$((_i + 1))
	done
	for _x in s a b c; do node_start "$_x" || return 0; done
	node_ctl s net add --net tcp --if br0 >/dev/null 2>&1 || return 0
	for _x in a b c; do node_ctl "$_x" net add --net tcp --if "${_x}0" >/dev/null 2>&1 || return 0; done
	for _x in s a b c; do node_up "$_x" || return 0; done
	node_ctl s selftest service on >/dev/null 2>&1 || return 0
	LIVE_OK=yes
}

# tbf_live_rules X RATE...: on s, rule cX for client X's NID at RATE requests/s
tbf_live_rules() {
	_i=1
	while [ $# -ge 2 ]; do
		case $1 in a) _i=1 ;; b) _i=2 ;; c) _i=3 ;; esac
		node_ctl s tbf rule start --service lnet_test --queue reg "c$1" \
			"nid={${LIVE_SERVER%.0.100@tcp}.0.$_i@tcp}" "rate=$2" >/dev/null || return 1
		eval "rate_$1=$2"
		shift 2
	done
}

# tbf_live_start SECONDS X RATE...: each client X starts writing RATE x
# SECONDS requests of LIVE_SIZE bytes (default 64; up to 4096 each carries
# a request body), 8 in flight, all at once, with LIVE_TRACE_MS set a trace
# of its rail in $T/live-X.csv; cnt_X is the count, $T/live-X.out its
# output, LIVE_PIDS the clients.  tbf_live_run does it and waits.
tbf_live_start() {
	_s=$1
	shift
	LIVE_PIDS=
	while [ $# -ge 2 ]; do
		eval "cnt_$1=$(($2 * _s))"
		# shellcheck disable=SC2046
		node_ctl "$1" selftest run --nid "$LIVE_SERVER" --mode write --size "${LIVE_SIZE:-64}" \
			--count $(($2 * _s)) --concurrency 8 \
			$([ -n "${LIVE_TRACE_MS:-}" ] && echo --trace "$T/live-$1.csv" --interval "$LIVE_TRACE_MS") \
			>"$T/live-$1.out" 2>&1 &
		LIVE_PIDS="$LIVE_PIDS $!"
		shift 2
	done
}
tbf_live_run() {
	tbf_live_start "$@"
	# shellcheck disable=SC2086
	wait $LIVE_PIDS
}

# tbf_live_result X: LIVE_SECS and LIVE_FAILED from client X's run
tbf_live_result() {
	LIVE_SECS=$(awk '$1 == "seconds:" { print $2; exit }' "$T/live-$1.out")
	LIVE_FAILED=$(awk '$1 == "failed:" { print $2; exit }' "$T/live-$1.out")
	: "${LIVE_SECS:=0}" "${LIVE_FAILED:=unknown}"
}

# tbf_live_dispatched RULE: what s's rule RULE (reg queue of lnet_test) dispatched
tbf_live_dispatched() {
	node_ctl s tbf show --service lnet_test 2>/dev/null |
		awk -v r="$1" '$0 ~ "name: " r "$" { want = 1; next }
			want && $1 == "dispatched:" { print $2; exit }'
}
