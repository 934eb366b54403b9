#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/vm/interop-import.sh KO - in the guest (init's "interop" group): the
# same lnet.conf of N peers (2 NIDs each on tcp) imported by upstream
# Lustre's LNet (its lnetctl import --old-api) and by lnetd + lnetk (KO is
# lnetk.ko), then one udsp add with those peers and 100 rules present, in
# both.  The times are figures, printed as "# interop: ..." lines with
# upstream / lnetd; never judged (TCG timings vary 2x with the host's load).
# The TAP lines say only that each step worked.
#
# Sizes: LNETD_VM_INTEROP_PEERS, comma-separated (default 2000).  Upstream
# takes 21-45 s for 10,000 peers under TCG, so that size is a run by hand:
#   LNETD_VM_ONLY=interop LNETD_VM_INTEROP_PEERS=2000,10000 tests/vm/run.sh
#
# lnetctl runs as root on lnetd's own socket (lnetd --private-socket), as
# under lnetd.service; the udsp add through dbus-daemon (as an unprivileged
# user's lnetctl goes) is printed beside.  Where lnetd's udsp add goes, from
# the mean of RUNS adds: lnetctl's process start (lnetctl --version; beside
# it /bin/true, the least any process takes here), the round trip (lnetctl
# global show, a read, less the start; through dbus-daemon too), lnetd's
# user CPU (judging, the store, building the push's messages) and system
# CPU (the module's side of the push over generic netlink, the store's
# writes), and the rest (waits;
# each part is a mean of its own runs, so the rest may come out below 0).
# Beside it, upstream's lnetctl start (its help) for comparison.  Where the
# import goes: lnetd's user and system CPU, lnetctl's CPU (the shell's
# children), dbus-daemon's CPU, and lnetd's own account of the push to the
# module (built, applied, copied into its record of the module).
#
# With LNETD_VM_PERF=1 (run.sh then puts the host's perf in the guest),
# lnetd's import and one udsp add each run under a system-wide perf record,
# and the samples are printed by process and library ("# profile:" lines);
# the times of those two steps then include perf's own cost.
set -u
PATH=/bin
KO=${1:-/lib/modules/$(uname -r)/extra/lnetk.ko}
RUNS=5
BUS=/tmp/interop-bus
LNETD_PID=
BUS_PID=

now() { cut -d' ' -f1 /proc/uptime; }
ok() { echo "ok - $*"; }
no() {
	echo "not ok - $*"
	failed=1
}
failed=0

# peers N FILE
peers() {
	awk -v n="$1" 'BEGIN {
		print "peer:"
		for (i = 0; i < n; i++) {
			a = int(i / 65536); b = int(i / 256) % 256; d = i % 256
			printf "    - primary nid: 10.%d.%d.%d@tcp\n      Multi-Rail: True\n", a, b, d
			printf "      peer ni:\n        - nid: 10.%d.%d.%d@tcp\n", a, b, d
			printf "        - nid: 11.%d.%d.%d@tcp\n", a, b, d
		}
	}' >"$2"
}

# mean CMD...: the mean seconds of RUNS runs of CMD (output discarded); the
# word "fail" when one fails.  Each run gets its number in $RUN.
mean() {
	t0=$(now)
	RUN=0
	while [ "$RUN" -lt "$RUNS" ]; do
		RUN=$((RUN + 1))
		"$@" >/dev/null 2>&1 || {
			echo fail
			return
		}
	done
	awk -v a="$t0" -v b="$(now)" -v n="$RUNS" 'BEGIN { printf "%.3f", (b - a) / n }'
}

# secs CMD...: the seconds CMD takes (output in /tmp/interop.out); "fail" if it fails.
secs() {
	t0=$(now)
	"$@" >/tmp/interop.out 2>&1 || {
		echo fail
		return
	}
	awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'
}

# cpu FILE: user + system seconds of the shell's children in `times` output FILE.
cpu() { awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, "m"); s += a[1] * 60 + a[2] } printf "%.2f", s }' "$1"; }

# profile NAME CMD...: CMD (a program, not a function), under perf when
# LNETD_VM_PERF is set and perf is here; the samples by process and library
# go to /tmp/interop.profile.
profile() {
	name=$1
	shift
	if [ -z "${LNETD_VM_PERF:-}" ] || [ ! -x /bin/perf ]; then
		"$@"
		return
	fi
	perf record -q -a -F 1000 -o /tmp/perf.data -- "$@" || return
	perf report -i /tmp/perf.data --stdio --no-children --sort comm,dso 2>/dev/null |
		awk -v n="$name" '/^ *[0-9.]+%/ && NR < 80 { printf "# profile: %s: %s %s %s\n", n, $1, $2, $3 }' |
		head -n 16 >>/tmp/interop.profile
}

# ldso CMD...: seconds CMD spends in the dynamic loader before main (ld.so's
# own count of cycles, LD_DEBUG=statistics, over the CPU's clock); "-" if
# it does not say.
ldso() {
	LD_DEBUG=statistics "$@" 2>&1 >/dev/null | awk -v mhz="$(awk '/^cpu MHz/ { print $4; exit }' /proc/cpuinfo)" '
		/total startup time in dynamic loader/ { c = $(NF - 1) }
		END { if (c > 0 && mhz > 0) printf "%.3f", c / mhz / 1e6; else print "-" }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.1f", a / b; else print "-" }'; }
ticks() { awk '{ print $14, $15 }' "/proc/$LNETD_PID/stat"; }
bus_cpu() { awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$BUS_PID/stat"; }

# Upstream's lnetctl without the wrapper's shell: one process, as lnetctl is.
up_ctl() { LD_LIBRARY_PATH=/opt/upstream/lib /opt/upstream/bin/lnetctl "$@"; }
# shellcheck disable=SC2317 # both called through mean
up_rule() { up_ctl udsp add --src "10.250.0.$RUN@tcp" --priority 1; }
# shellcheck disable=SC2317
our_rule() { lnetctl udsp add --src "10.251.0.$RUN@tcp" --priority 1; }
# shellcheck disable=SC2317
bus_rule() { LNETD_PRIVATE_SOCKET='' lnetctl udsp add --src "10.251.2.$RUN@tcp" --priority 1; }
# shellcheck disable=SC2317
bus_read() { LNETD_PRIVATE_SOCKET='' lnetctl global show; }

start_lnetd() {
	[ -e /sys/module/lnetk ] || insmod "$KO" || return 1
	dbus-daemon --config-file=/etc/lnetd-vm/bus.conf --address="unix:path=$BUS" --nofork \
		--nopidfile >>/tmp/interop-bus.log 2>&1 &
	BUS_PID=$!
	DBUS_SYSTEM_BUS_ADDRESS=unix:path=$BUS
	export DBUS_SYSTEM_BUS_ADDRESS
	rm -rf /tmp/interop-state
	# Root's lnetctl on lnetd's own socket, as under lnetd.service (bus_rule: on the bus).
	LNETD_PRIVATE_SOCKET=/tmp/interop-private
	export LNETD_PRIVATE_SOCKET
	lnetd --engine=kernel --state-dir=/tmp/interop-state --private-socket=$LNETD_PRIVATE_SOCKET \
		>>/tmp/interop-lnetd.log 2>&1 &
	LNETD_PID=$!
	i=0
	while [ $i -lt 300 ]; do
		lnetctl global show >/dev/null 2>&1 && return 0
		kill -0 "$LNETD_PID" 2>/dev/null || return 1
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

stop_lnetd() {
	[ -n "$LNETD_PID" ] && kill "$LNETD_PID" && wait "$LNETD_PID" 2>/dev/null
	[ -n "$BUS_PID" ] && kill "$BUS_PID" && wait "$BUS_PID" 2>/dev/null
	LNETD_PID=
	BUS_PID=
}

# The 100 rules, for lnetd as one import.
awk 'BEGIN { print "udsp:"
	for (k = 0; k < 100; k++)
		printf "    - src: 10.252.0.%d@tcp\n      action:\n          priority: %d\n", k, k % 8 }' \
	>/tmp/rules.yaml

for n in $(echo "${LNETD_VM_INTEROP_PEERS:-2000}" | tr ',' ' '); do
	f=/tmp/peers-$n.yaml
	peers "$n" "$f"

	# Upstream, loaded fresh for each size.
	if ! upstream-lnet load >/tmp/interop.out 2>&1; then
		no "upstream LNet loads beside lnetk"
		sed 's/^/# /' /tmp/interop.out
		continue
	fi
	up=$(secs up_ctl import --old-api "$f")
	if [ "$up" = fail ]; then
		no "upstream's lnetctl import --old-api of $n peers"
		tail -n 5 /tmp/interop.out | sed 's/^/# /'
	else
		ok "upstream's lnetctl import --old-api of $n peers"
	fi
	k=0
	while [ $k -lt 100 ]; do
		up_ctl udsp add --src "10.252.0.$k@tcp" --priority $((k % 8)) >/dev/null 2>&1 ||
			break
		k=$((k + 1))
	done
	up_udsp=$(mean up_rule)
	up_start=$(mean up_ctl help)
	if [ $k = 100 ] && [ "$up_udsp" != fail ]; then
		ok "upstream: 100 rules, then udsp add ($n peers)"
	else
		no "upstream: 100 rules, then udsp add ($n peers; $k rules went in)"
	fi
	upstream-lnet unload >/tmp/interop.out 2>&1 || {
		no "upstream LNet unloads"
		sed 's/^/# /' /tmp/interop.out
	}

	# lnetd + lnetk, on a state of its own.
	if ! start_lnetd; then
		no "lnetd --engine=kernel starts for the interop figures"
		tail -n 5 /tmp/interop-lnetd.log | sed 's/^/# /'
		stop_lnetd
		continue
	fi
	i0=$(ticks)
	b0=$(bus_cpu)
	times >/tmp/interop.t0
	ours=$(secs profile "import of $n peers" lnetctl import "$f")
	times >/tmp/interop.t1
	b1=$(bus_cpu)
	i1=$(ticks)
	got=$(lnetctl export | grep -c "primary nid")
	if [ "$ours" != fail ] && [ "$got" = "$n" ]; then
		ok "lnetd imports $n peers"
	else
		no "lnetd imports $n peers ($got in its export)"
	fi
	lnetctl import /tmp/rules.yaml >/dev/null 2>&1 || no "lnetd takes 100 rules"
	floor=$(mean /bin/true)
	start=$(mean lnetctl --version)
	trip=$(mean lnetctl global show)
	bus_trip=$(mean bus_read)
	t0=$(ticks)
	ours_udsp=$(mean our_rule)
	t1=$(ticks)
	bus_udsp=$(mean bus_rule)
	profile "udsp add with $n peers" lnetctl udsp add --src 10.251.1.1@tcp --priority 1 \
		>/dev/null 2>&1
	if [ "$ours_udsp" != fail ]; then
		ok "lnetd: udsp add with $n peers and 100 rules"
	else
		no "lnetd: udsp add with $n peers and 100 rules"
	fi
	stop_lnetd
	# lnetd's own account of the import's push to the module (its first batch).
	grep -m 1 "module took a" /tmp/interop-lnetd.log | sed -e 's/^<[0-9]*>//' -e 's/^/# interop: /'
	: >/tmp/interop-lnetd.log

	echo "# interop: import of $n peers: upstream $up s, lnetd $ours s:" \
		"upstream / lnetd $(ratio "$up" "$ours") (goal >= 10)"
	# shellcheck disable=SC2086 # two numbers each
	set -- $i0 $i1
	echo "# interop: lnetd's import of $n peers: lnetd user CPU (judging, store, push messages)" \
		"$(awk -v t=$(($3 - $1)) 'BEGIN { printf "%.2f", t / 100 }') s, system CPU (module" \
		"side of the push, store writes) $(awk -v t=$(($4 - $2)) 'BEGIN { printf "%.2f", t / 100 }') s," \
		"lnetctl CPU (reading the file, the bus) $(awk -v a="$(cpu /tmp/interop.t0)" \
			-v b="$(cpu /tmp/interop.t1)" 'BEGIN { printf "%.2f", b - a }') s," \
		"dbus-daemon CPU $(awk -v a="$b0" -v b="$b1" 'BEGIN { printf "%.2f", b - a }') s"
	echo "# interop: udsp add with $n peers and 100 rules (mean of $RUNS): upstream $up_udsp s," \
		"lnetd $ours_udsp s: upstream / lnetd $(ratio "$up_udsp" "$ours_udsp") (goal >= 2)"
	echo "# interop: the same udsp add through dbus-daemon (lnetctl as an unprivileged user" \
		"goes): lnetd $bus_udsp s: upstream / lnetd $(ratio "$up_udsp" "$bus_udsp")"
	echo "# interop: process start (mean of $RUNS): upstream's lnetctl help $up_start s," \
		"lnetctl --version $start s, /bin/true $floor s; in the dynamic loader: lnetctl" \
		"$(ldso lnetctl --version) s (libsystemd and what it loads), upstream's lnetctl" \
		"$(LD_LIBRARY_PATH=/opt/upstream/lib ldso /opt/upstream/bin/lnetctl help) s," \
		"/bin/true $(ldso /bin/true) s"
	if [ -s /tmp/interop.profile ]; then
		cat /tmp/interop.profile
		: >/tmp/interop.profile
	fi
	# shellcheck disable=SC2086 # two numbers each
	set -- $t0 $t1
	awk -v all="$ours_udsp" -v start="$start" -v trip="$trip" -v u=$(($3 - $1)) -v s=$(($4 - $2)) \
		-v n="$RUNS" -v bt="$bus_trip" 'BEGIN {
		u = u / 100 / n; s = s / 100 / n; rt = trip - start
		printf "# interop: where lnetd'\''s udsp add goes: process start %.3f s, round trip on " \
			"lnetd'\''s socket %.3f s (through dbus-daemon: %.3f s), ", start, rt, bt - start
		printf "lnetd user CPU (judging, store, push messages) %.3f s, lnetd system CPU (module " \
			"side of the push, store writes) %.3f s, rest %.3f s\n", u, s, all - start - rt - u - s
	}'
done
exit $failed
