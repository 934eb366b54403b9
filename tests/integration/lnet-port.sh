#!/bin/sh
# The LNet port is configurable (lnetd --lnet-port, the userspace engine's;
# the module's lnet_port parameter is tests/vm/dp.sh's): two nodes on port
# 7988 listen there, not on 988, and ping each other; a node on the default
# port is not reached from them; a port that is no port is refused by name.
# TAP.
set -u
NS_PREFIX=lnp
. "$(dirname "$0")/nodes-tap.sh"

node_ns a b c || {
	echo "1..0 # SKIP cannot make network namespaces"
	exit 0
}
node_link a a0 b b0 10.79.0 || exit 1
node_link b b1 c c0 10.79.1 || exit 1

for bad in 0 65536 988x ""; do
	"$LNETD" --lnet-port="$bad" --state-dir="$T/bad.state" >/dev/null 2>"$T/bad.err"
	check "--lnet-port='$bad' is refused" test $? = 2
	check "naming the option and the value" grep -q -- "--lnet-port: '$bad' is not a port" "$T/bad.err"
done

check "node a starts on port 7988" node_start a --lnet-port=7988
check "node b starts on port 7988" node_start b --lnet-port=7988
check "node c starts on the default port" node_start c
on a net add --net tcp --if a0
on b net add --net tcp --if b0,b1
on c net add --net tcp --if c0
for x in a b c; do check "$x's NIs are up" node_up $x; done

listens() { # listens X PATTERN: whether node X has a TCP listener on an ADDR:PORT matching
	"$IP" netns exec "$NS$1" ss -ltnH | awk '{ print $4 }' | grep -qx "$2"
}
check "b listens on 10.79.0.2:7988" wait_until "$TEST_WAIT" listens b 10.79.0.2:7988
check "and not on 988" eval "! listens b '.*:988'"
check "c listens on 10.79.1.2:988" wait_until "$TEST_WAIT" listens c 10.79.1.2:988

on a ping --timeout 60 10.79.0.2@tcp
check "a pings b on port 7988" test "$RC" = 0
on b ping --timeout 60 10.79.0.1@tcp
check "b pings a on port 7988" test "$RC" = 0
on b ping --timeout 2 10.79.1.2@tcp
check "b does not reach c, on 988" test "$RC" != 0
finish
