#!/bin/sh
# Issue 35: does the engine's cost grow with configured peers?  Two pairs of
# userspace lnetd nodes at once, each on a veth rail of its own: a (10 peers
# configured: b and 9 others) and c (50,000: d and 49,999 others).  Idle
# CPU: each of a and c's lnetd's time on CPU (/proc/PID/schedstat, ns) over
# the same IDLE seconds, both connected to their peer.  A ping's round trip:
# selftest --mode ping, concurrency 1, COUNT pings, a then c, ROUNDS times
# alternately; the medians.  Ratios: c / a.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
B=${BUILD:-$TOP/build/main}
LNETD=$B/lnetd/lnetd LNETCTL=$B/lnetctl/lnetctl
T=$(mktemp -d)
NS=lnmeas$$
IDLE=${IDLE:-60} COUNT=${COUNT:-2000} ROUNDS=${ROUNDS:-15}
. $TOP/tests/integration/nodes.sh
trap 'nodes_cleanup; rm -rf $T' EXIT
node_ns a b c d && node_rails a b 1 10.90 && node_rails c d 1 10.91 || exit 1
for x in a b c d; do node_start $x || exit 1; done
node_ctl a net add --net tcp --if a0 >/dev/null && node_ctl b net add --net tcp --if b0 >/dev/null &&
	node_ctl c net add --net tcp --if c0 >/dev/null && node_ctl d net add --net tcp --if d0 >/dev/null
for x in a b c d; do node_up $x || exit 1; done
node_ctl b selftest service on >/dev/null && node_ctl d selftest service on >/dev/null
# peers X PEERNID N: X's configuration holds PEERNID and N-1 peers nobody answers for
peers() {
	awk -v n="$3" -v p="$2" 'BEGIN { print "peer:"
		printf "    - primary nid: %s\n", p
		for (i = 1; i < n; i++) printf "    - primary nid: 10.%d.%d.%d@tcp1\n", 100 + int(i / 65536), int(i / 256) % 256, i % 256
	}' >$T/$1.yaml
	node_ctl "$1" import $T/$1.yaml >/dev/null || echo "import of $3 peers on $1 failed"
	echo "$1: $(node_ctl "$1" export 2>/dev/null | grep -c "primary nid") peers"
}
peers a 10.90.0.2@tcp 10
peers c 10.91.0.2@tcp 50000
pid() { for p in $(ip netns pids "$NS$1"); do [ "$(cat /proc/$p/comm)" = lnetd ] && echo "$p"; done; }
ap=$(pid a) cp=$(pid c)
oncpu() { cut -d' ' -f1 /proc/$1/schedstat; }
rtt() { # X DST: microseconds per ping
	node_ctl "$1" selftest run --nid "$2" --mode ping --count "$COUNT" --concurrency 1 2>&1 |
		awk -v n="$COUNT" '$1 == "seconds:" { printf "%.1f\n", $2 / n * 1e6; exit }'
}
rtt a 10.90.0.2@tcp >/dev/null && rtt c 10.91.0.2@tcp >/dev/null # connected, warm
a0=$(oncpu $ap) c0=$(oncpu $cp)
sleep "$IDLE"
a1=$(oncpu $ap) c1=$(oncpu $cp)
echo "idle over $IDLE s: a (10 peers) $(( (a1 - a0) / 1000 )) us on CPU, c (50,000) $(( (c1 - c0) / 1000 )) us"
r=0
while [ $r -lt "$ROUNDS" ]; do
	echo "a $(rtt a 10.90.0.2@tcp)" >>$T/rtt
	echo "c $(rtt c 10.91.0.2@tcp)" >>$T/rtt
	r=$((r + 1))
done
med() { awk -v k="$1" '$1 == k { print $2 }' $T/rtt | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ma=$(med a) mc=$(med c)
echo "ping RTT, median of $ROUNDS x $COUNT: a (10 peers) $ma us, c (50,000) $mc us, ratio $(awk -v a="$ma" -v c="$mc" 'BEGIN { printf "%.3f", c / a }')"
echo "all: $(tr '\n' ' ' <$T/rtt)"
