# shellcheck shell=sh
# The start every multi-node TAP script shares (fabric.sh, fabric6.sh,
# health.sh, routers.sh, discovery.sh, tbf-live.sh): skip unless root with
# ip netns, then lib.sh (TAP, $T, cleanup), the programs under test,
# nodes.sh with the namespaces' prefix $NS_PREFIX, a trap that takes the
# nodes down, and on().  Sourced, after `set -u` and NS_PREFIX=...
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null || ! ip netns list >/dev/null 2>&1; then
	echo "1..0 # SKIP needs root and ip netns"
	exit 0
fi
. "$(dirname "$0")/lib.sh"
LNETD=${LNETD:-lnetd/lnetd}
LNETCTL=${LNETCTL:-lnetctl/lnetctl}
NS=$NS_PREFIX$$
. "$(dirname "$0")/nodes.sh"
trap 'nodes_cleanup; cleanup' EXIT
# on X CMD...: lnetctl against node X; output in $OUT, status in $RC.
on() {
	OUT=$(node_ctl "$@" 2>&1)
	RC=$?
}
