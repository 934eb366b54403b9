#!/bin/sh
# The systemd units as the build generates them (systemd/systemd.am): one
# per engine, lnetd.service (kernel), lnetd-lustre.service (lustre) and
# lnetd-userspace.service (userspace).  Each passes systemd-analyze verify
# and scores at most 2.5 in systemd-analyze security; each conflicts with
# the other two and all hold the same alias, the one D-Bus activation
# starts; each starts lnetd with its own engine.  Then lnetd with the
# userspace engine runs under the capability set of lnetd-userspace.service,
# as systemd would give it, on two nodes in network namespaces of the test's
# own: it listens on port 988, the nodes ping each other over connections
# from reserved ports, it has exactly the unit's capabilities and holds
# sockets of the unit's address families only.  Under the old unit's
# CAP_NET_ADMIN alone a third node cannot listen on 988 nor bind a reserved
# port: the capability is what makes it work.  (The kernel and lustre
# engines need lnetk and lnet.ko: tests/vm/caps.sh, in the VM guest.)
# The namespaces need root; as a normal user only the units are checked.
# TAP.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/../lib/caps.sh"
LNETD=${LNETD:-lnetd/lnetd}
LNETCTL=${LNETCTL:-lnetctl/lnetctl}
units="lnetd.service lnetd-lustre.service lnetd-userspace.service"
top=${TOP_SRCDIR:-$here/../..}

command -v systemd-analyze >/dev/null || {
	echo "1..0 # SKIP systemd-analyze is missing"
	exit 0
}
for u in $units; do
	[ -f "systemd/$u" ] || {
		echo "1..0 # SKIP no systemd/$u here (run from a configured build folder)"
		exit 0
	}
done

# --- the units ----------------------------------------------------------------
# The programs the units start, as configure placed them (@sbindir@).
sbindir=$(sed -n 's|^ExecStart=\(/.*\)/lnetd .*|\1|p' systemd/lnetd.service)
check "the unit starts lnetd from an absolute sbindir ($sbindir)" test -n "$sbindir"

# systemd-analyze verify loads each unit and checks what it names: the
# programs it runs and the manual pages of Documentation=.  Neither is
# installed here, so it checks copies of the units that differ only in the
# programs' folder (this build's lnetd and lnetctl), with MANPATH at the
# source tree's pages; the units as built may then complain of nothing but
# "Command ... is not executable" for programs in $sbindir.
mkdir -p "$T/units" "$T/sbin" "$T/man/man8" "$T/man/man5"
ln -s "$(pwd)/$LNETD" "$T/sbin/lnetd"
ln -s "$(pwd)/$LNETCTL" "$T/sbin/lnetctl"
ln -s "$top/man/lnetd.8" "$top/man/lnetctl.8" "$T/man/man8/"
ln -s "$top/man/lnet.conf.5" "$T/man/man5/"
for u in $units; do
	sed "s|$sbindir/|$T/sbin/|g" "systemd/$u" >"$T/units/$u"
done
man=--man=yes
command -v man >/dev/null || {
	man=--man=no
	diag "no man(1) here: systemd-analyze verify leaves Documentation= unchecked"
}
for u in $units; do
	out=$(cd "$T/units" && MANPATH="$T/man" systemd-analyze verify "$man" "./$u" 2>&1)
	rc=$?
	check "$u: systemd-analyze verify finds nothing to say" test "$rc" = 0 -a -z "$out"
	[ -z "$out" ] || diag "$out"
	out=$(cd systemd && systemd-analyze verify --man=no "./$u" 2>&1 |
		grep -Ev "^$u: Command $sbindir/lnet(d|ctl) is not executable: ")
	check "$u as built: only its programs, not installed here, are missing" test -z "$out"
	[ -z "$out" ] || diag "$out"
done

# systemd-analyze security --offline=true: "Overall exposure level for U: N.N ..."
for u in $units; do
	out=$(cd systemd && systemd-analyze security --offline=true "./$u" 2>&1)
	level=$(echo "$out" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
	check "$u: systemd-analyze security's exposure ($level) is at most 2.5" \
		awk -v l="$level" 'BEGIN { exit !(l != "" && l + 0 <= 2.5) }'
	[ -n "$level" ] || diag "$out"
done

# Exactly one is enabled: each conflicts with the other two, and all three
# hold the alias org.lnetd1's D-Bus activation starts.
activation=$(sed -n 's/^SystemdService=//p' "$top/systemd/org.lnetd1.service")
check "D-Bus activation starts dbus-org.lnetd1.service" test "$activation" = dbus-org.lnetd1.service
for u in $units; do
	conflicts=$(unit_set Conflicts "systemd/$u" | tr '\n' ' ')
	others=$(for o in $units; do [ "$o" = "$u" ] || echo "$o"; done | sort | tr '\n' ' ')
	check "$u conflicts with the others ($others) and nothing else" test "$conflicts" = "$others"
	check "$u holds the alias $activation, only" \
		test "$(unit_set Alias "systemd/$u" | tr '\n' ' ')" = "$activation "
	check "$u is wanted by multi-user.target" \
		test "$(unit_set WantedBy "systemd/$u" | tr '\n' ' ')" = "multi-user.target "
done
for pair in lnetd.service=kernel lnetd-lustre.service=lustre lnetd-userspace.service=userspace; do
	check "${pair%=*} starts lnetd --engine=${pair#*=}" \
		grep -q "^ExecStart=$sbindir/lnetd --engine=${pair#*=} " "systemd/${pair%=*}"
done

# --- lnetd under lnetd-userspace.service's capabilities ---------------------------
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null || ! ip netns list >/dev/null 2>&1 ||
	! command -v setpriv >/dev/null || ! command -v ss >/dev/null; then
	echo "ok $((n + 1)) # SKIP lnetd under the unit's capabilities: needs root, ip netns, setpriv, ss"
	n=$((n + 1))
	finish
fi
unit=systemd/lnetd-userspace.service
caps=$(unit_set CapabilityBoundingSet "$unit" | tr '\n' ' ')
families=$(unit_set RestrictAddressFamilies "$unit" | tr '\n' ' ')
check "lnetd-userspace.service lists its capabilities (${caps% })" \
	test -n "$caps" -a "$caps" != "~ "
check "and its address families (${families% })" test -n "$families" -a "$families" != "~ "
# shellcheck disable=SC2086 # lists of words
bset=$(cap_setpriv $caps) || bset=
check "every capability it names is one the kernel has" test -n "$bset"

# sandboxed NAME BOUNDING-SET: a program that runs this build's lnetd as the
# unit would, logging to $T/NAME.log.  Of the unit's sandbox only the
# capabilities and NoNewPrivileges are given here: RestrictAddressFamilies=
# would need a seccomp filter, so the sockets lnetd holds are compared with
# it instead (below); the rest (ProtectSystem=, ...) is systemd's to enforce.
sandboxed() {
	cat >"$T/$1" <<EOF
#!/bin/sh
exec 2>>"$T/$1.log"
exec setpriv --bounding-set=$2 --inh-caps=-all --no-new-privs "$(pwd)/$LNETD" "\$@"
EOF
	chmod 755 "$T/$1"
}
sandboxed lnetd-unit "$bset"
sandboxed lnetd-netadmin -all,+net_admin

NS=lnu$$
. "$here/nodes.sh"
trap 'nodes_cleanup; cleanup' EXIT
on() {
	OUT=$(node_ctl "$@" 2>&1)
	RC=$?
}
# lnetd_pid X: the pid of node X's lnetd (the only lnetd in $NS$X)
lnetd_pid() {
	for _p in $(ip netns pids "$NS$1"); do
		[ "$(cat "/proc/$_p/comm" 2>/dev/null)" = lnetd ] && echo "$_p"
	done
}
# listens X PORT: whether node X has a TCP listener on PORT
listens() {
	ip netns exec "$NS$1" ss -ltnH | awk '{ print $4 }' | grep -q ":$2\$"
}
# source_ports X PEER:PORT: the local ports of X's connections to PEER:PORT
source_ports() {
	ip netns exec "$NS$1" ss -tnH state established | awk -v p="$2" '$4 == p {
		n = split($3, a, ":"); print a[n] }' | sort -n | tr '\n' ' ' | sed 's/ $//'
}

node_ns a b c || {
	echo "1..0 # SKIP cannot make network namespaces"
	exit 0
}
node_link a a0 b b0 10.81.0 || exit 1
node_link b b1 c c0 10.81.1 || exit 1

LNETD=$T/lnetd-unit
check "node a starts under the unit's capabilities" node_start a
check "node b too" node_start b
for x in a b; do
	pid=$(lnetd_pid $x)
	# shellcheck disable=SC2086
	check "$x: lnetd (pid $pid) has exactly the unit's capabilities (${caps% })" \
		caps_are "$pid" $caps
done
on a net add --net tcp --if a0
check "a: an NI on tcp" test "$RC" = 0
on b net add --net tcp --if b0,b1
check "b: two NIs on tcp, one towards c" test "$RC" = 0
for x in a b; do check "$x's NIs are up" node_up $x; done
check "a listens on port 988" listens a 988
check "b listens on port 988" listens b 988

on a ping --timeout 5 10.81.0.2@tcp
check "a pings b" test "$RC" = 0
on b ping --timeout 5 10.81.0.1@tcp
check "b pings a" test "$RC" = 0
ports=$(source_ports a 10.81.0.2:988)
check "a connects to b from reserved ports (${ports:-none})" \
	test -n "$ports" -a -z "$(echo "$ports" | tr ' ' '\n' | awk '$1 > 1023')"
for x in a b; do
	got=$(socket_families "$(lnetd_pid $x)" | tr '\n' ' ')
	check "$x: lnetd's sockets ($got) are of the unit's families (${families% })" \
		sh -c 'for f in $1; do case " $2 " in *" $f "*) ;; *) exit 1 ;; esac; done' - \
		"$got" "$families"
done
check "nothing it did was refused for want of privilege" \
	sh -c '! grep -Eiq "permission denied|operation not permitted" "$1"' - "$T/lnetd-unit.log"
[ "$failed" = 0 ] || diag "lnetd's log (unit's capabilities):" "$(cat "$T/lnetd-unit.log")"

# The set of the old single unit, CAP_NET_ADMIN alone: node c can neither
# listen on 988 nor bind a reserved port to connect.
LNETD=$T/lnetd-netadmin
check "node c starts with CAP_NET_ADMIN only" node_start c
check "c: lnetd has CAP_NET_ADMIN only" caps_are "$(lnetd_pid c)" CAP_NET_ADMIN
on c net add --net tcp --if c0
check "c: an NI on tcp" test "$RC" = 0
check "c's NI is up" node_up c
check "c: the listen on 988 is refused" \
	grep -q "cannot listen on 10.81.1.2 port 988: Permission denied" "$T/lnetd-netadmin.log"
check "c does not listen on 988" eval "! listens c 988"
on b ping --timeout 2 10.81.1.2@tcp
check "so b cannot reach c" test "$RC" != 0
on c ping --timeout 5 10.81.1.1@tcp
ports=$(source_ports c 10.81.1.1:988)
check "c connects to b from unreserved ports only (${ports:-none})" \
	test -n "$ports" -a -z "$(echo "$ports" | tr ' ' '\n' | awk '$1 <= 1023')"
[ "$failed" = 0 ] || diag "lnetd's log (CAP_NET_ADMIN):" "$(cat "$T/lnetd-netadmin.log")"
finish
