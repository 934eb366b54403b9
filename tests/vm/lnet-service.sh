#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/vm/lnet-service.sh LNET-SERVICE DROP-IN LNETD-LUSTRE-UNIT - in the
# VM guest: what Lustre's own lnet.service runs, run against lnetd with the
# lustre engine, as systemd would on a node with Lustre's packages and
# lnetd's (lnetd(8), LUSTRE), without systemd:
#   1. lnetd-lustre.service starts (ExecStartPre=, ExecStart=, ExecStartPost=
#      of the unit as built) on a node whose /etc/lnet.conf names an NI and
#      whose store is empty: its import --if-empty says it imported the file;
#   2. lnet.service runs its ExecStart= lines as Lustre's unit (LNET-SERVICE,
#      upstream's lnet.service.in from the 2.17.57 tarball) and lnetd's
#      drop-in (DROP-IN) make them: only `lnetctl lnet configure`, which
#      exits 0; lnet.ko is then configured from /etc/lnet.conf, as Lustre's
#      own lnetctl shows, and lnetd's history has one import naming it;
#   3. Lustre's unit without the drop-in (its three lines: modprobe lnet,
#      lnet configure, import /etc/lnet.conf) also runs clean against lnetd
#      and changes nothing;
#   4. a second start of lnetd-lustre.service does not import again.
# lnetctl in the units is lnetd's (as the Debian package diverts Lustre's);
# upstream-lnetctl is Lustre's.  TAP lines ("ok - ...", unnumbered, as the
# guest's are); exit 1 if any failed.
#
# Environment: LNETD, LNETCTL (default lnetd, lnetctl in PATH),
# LUSTRE_LNETCTL (upstream-lnetctl), IP (/bin/ip2 where it exists), BUS_CONF
# (/etc/lnetd-vm/bus.conf, else the session one), LNET_CONF (/etc/lnet.conf,
# written here), T (/tmp/lnet-service).
set -u
svc=${1:-}
dropin=${2:-}
unit=${3:-}
for f in "$svc" "$dropin" "$unit"; do
	[ -r "$f" ] || {
		echo "usage: lnet-service.sh LNET-SERVICE DROP-IN LNETD-LUSTRE-UNIT ($f unreadable)" >&2
		exit 2
	}
done
LNETD=${LNETD:-lnetd}
LNETCTL=${LNETCTL:-lnetctl}
LUSTRE_LNETCTL=${LUSTRE_LNETCTL:-upstream-lnetctl}
LNET_CONF=${LNET_CONF:-/etc/lnet.conf}
if [ -z "${IP:-}" ]; then
	IP=ip
	[ -x /bin/ip2 ] && IP=/bin/ip2
fi
T=${T:-/tmp/lnet-service}
failed=0
ok() { echo "ok - lnet.service: $*"; }
not_ok() {
	echo "not ok - lnet.service: $*"
	failed=$((failed + 1))
}
check() {
	_d=$1
	shift
	if "$@" >"$T/check" 2>&1; then ok "$_d"; else
		not_ok "$_d"
		sed 's/^/# /' "$T/check"
	fi
}

# The lustre engine is hE's (issue 30): until lnetd has it, nothing here can run.
if ! "$LNETD" --help 2>&1 | grep -q "^ *lustre  "; then
	echo "ok - lnet.service # SKIP this lnetd has no lustre engine ($LNETD --help)"
	exit 0
fi
command -v "$LUSTRE_LNETCTL" >/dev/null 2>&1 || {
	echo "ok - lnet.service # SKIP no Lustre lnetctl ($LUSTRE_LNETCTL)"
	exit 0
}
rm -rf "$T"
mkdir -p "$T" "$(dirname "$LNET_CONF")" || exit 2
if [ -z "${BUS_CONF:-}" ]; then
	BUS_CONF=/etc/lnetd-vm/bus.conf
	[ -r "$BUS_CONF" ] || {
		BUS_CONF=$T/bus.conf
		sed 's|<policy context="default">|&<allow user="*"/>|' \
			/usr/share/dbus-1/session.conf >"$BUS_CONF"
	}
fi
wait_for() {
	_end=$(($(date +%s) + 120))
	until "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -lt $_end ] || return 1
		sleep 0.1
	done
}

# --- the node: an interface, Lustre's /etc/lnet.conf naming it ---------------------
$IP link add lsvc0 type veth peer name lsvc1 && $IP addr add 10.86.0.1/24 dev lsvc0 &&
	$IP link set lsvc0 up && $IP link set lsvc1 up || {
	not_ok "a veth for the NI"
	exit 1
}
cat >"$LNET_CONF" <<'EOF'
net:
    - net type: tcp
      local NI(s):
        - interfaces:
              0: lsvc0
EOF

# words WORD...: a unit's command line as run here (lnetd, lnetctl and
# lnet.conf by whatever path the unit names them, lnetd's options ours).
words() {
	cmd=
	for _w in "$@"; do
		case $_w in
		*/lnetd) _w=$LNETD ;;
		*/lnetctl) _w=$LNETCTL ;;
		*/modprobe) _w=modprobe ;;
		*/lnet.conf) _w=$LNET_CONF ;;
		--private-socket=*) _w=--private-socket=$T/private ;;
		\$LNETD_OPTIONS) _w=--state-dir=$T/state ;;
		esac
		cmd="$cmd $_w"
	done
}
# run_lines FILE LOG: each line of FILE a unit's command ("-" and "+" as
# systemd reads them: failure ignored, full privileges, which root has
# here); 0 unless one without "-" failed.
run_lines() {
	_rc=0
	while read -r _line; do
		[ -n "$_line" ] || continue
		_pfx=$(echo "$_line" | sed 's/^\([-+@!:]*\).*/\1/')
		# shellcheck disable=SC2086
		words ${_line#"$_pfx"}
		# shellcheck disable=SC2086
		DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/bus LNETD_PRIVATE_SOCKET=$T/private \
			$cmd >>"$2" 2>&1 </dev/null
		_st=$?
		echo "#$cmd: exit status $_st" >>"$2"
		case $_pfx in *-*) ;; *) [ $_st = 0 ] || _rc=1 ;; esac
	done <"$1"
	return $_rc
}
# exec_lines KEY FILE...: the KEY= lines of the unit FILE and its drop-ins in
# order, an empty KEY= clearing those before it, as systemd merges them.
exec_lines() {
	_k=$1
	shift
	cat "$@" | sed -n "s/^$_k=//p" | awk '/^[ \t]*$/ { n = 0; next } { l[n++] = $0 }
		END { for (i = 0; i < n; i++) print l[i] }'
}
ctl() {
	DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/bus LNETD_PRIVATE_SOCKET=$T/private "$LNETCTL" "$@"
}

dbus-daemon --config-file="$BUS_CONF" --address="unix:path=$T/bus" --nofork --nopidfile \
	2>>"$T/bus.log" &
BUS=$!
LNETD_PID=
wait_for test -S "$T/bus"
# lnetd_lustre_start: lnetd-lustre.service's start, its log in $T/start.log
lnetd_lustre_start() {
	: >"$T/start.log"
	exec_lines ExecStartPre "$unit" >"$T/pre"
	exec_lines ExecStart "$unit" >"$T/start"
	exec_lines ExecStartPost "$unit" >"$T/post"
	run_lines "$T/pre" "$T/start.log" || return 1
	# shellcheck disable=SC2046
	words $(cat "$T/start")
	# shellcheck disable=SC2086
	DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/bus $cmd 2>>"$T/lnetd.log" &
	LNETD_PID=$!
	wait_for ctl status || return 1
	run_lines "$T/post" "$T/start.log"
}
lnetd_stop() {
	[ -n "$LNETD_PID" ] && kill "$LNETD_PID" && wait "$LNETD_PID"
	LNETD_PID=
}
cleanup() {
	lnetd_stop 2>/dev/null
	kill "$BUS" 2>/dev/null
	wait 2>/dev/null
	$IP link del lsvc0 2>/dev/null
	if command -v upstream-lnet >/dev/null; then upstream-lnet unload >/dev/null 2>&1; fi
}
trap cleanup EXIT

# --- 1. lnetd-lustre.service, first start -------------------------------------------
check "lnetd-lustre.service starts (ExecStartPre, ExecStart, ExecStartPost)" lnetd_lustre_start
check "its first start imports $LNET_CONF and says so" grep -q "^imported: $LNET_CONF" "$T/start.log"

# --- 2. lnet.service: Lustre's unit with lnetd's drop-in -------------------------------
exec_lines ExecStart "$svc" "$dropin" >"$T/svc"
check "with the drop-in, lnet.service runs only 'lnetctl lnet configure'" \
	sh -c '[ "$(wc -l <"$1")" = 1 ] && grep -q "/lnetctl lnet configure$" "$1"' - "$T/svc"
check "lnet.service's ExecStart= lines all exit 0" run_lines "$T/svc" "$T/svc.log"
check "lnet.ko has the NI of $LNET_CONF (Lustre's lnetctl net show)" \
	sh -c '"$1" net show | grep -q "10.86.0.1@tcp"' - "$LUSTRE_LNETCTL"
check "lnetd's history has the import, naming $LNET_CONF" \
	sh -c 'DBUS_SYSTEM_BUS_ADDRESS=unix:path=$2/bus LNETD_PRIVATE_SOCKET=$2/private \
		"$1" history --limit 0 | grep -c "import --if-empty $3" | grep -qx 1' - "$LNETCTL" "$T" "$LNET_CONF"

# --- 3. Lustre's unit alone (no drop-in): its three lines, against lnetd ----------------
gen0=$(ctl status | sed -n 's/^ *generation: //p')
exec_lines ExecStart "$svc" >"$T/svc-alone"
check "Lustre's own lnet.service has its three ExecStart= lines" \
	sh -c '[ "$(wc -l <"$1")" = 3 ]' - "$T/svc-alone"
check "they run clean against lnetd" run_lines "$T/svc-alone" "$T/svc-alone.log"
check "and change nothing (generation $gen0)" \
	sh -c '[ "$(DBUS_SYSTEM_BUS_ADDRESS=unix:path=$2/bus LNETD_PRIVATE_SOCKET=$2/private \
		"$1" status | sed -n "s/^ *generation: //p")" = "$3" ]' - "$LNETCTL" "$T" "$gen0"

# --- 4. a second start ------------------------------------------------------------------
lnetd_stop
check "lnetd-lustre.service starts again" lnetd_lustre_start
check "and does not import again" grep -q "^not imported: $LNET_CONF" "$T/start.log"
check "lnet.ko still has the NI" sh -c '"$1" net show | grep -q "10.86.0.1@tcp"' - "$LUSTRE_LNETCTL"
[ $failed = 0 ] || {
	echo "# lnetd's log:"
	sed 's/^/#   /' "$T/lnetd.log" "$T/start.log" "$T"/svc*.log 2>/dev/null | tail -n 40
}
[ $failed = 0 ]
