# SPDX-License-Identifier: GPL-2.0
# tests/vm/lustre-fs/rails.sh server|client - UDSP on Lustre's traffic: two
# guests joined by two rails (run.sh rails: two -netdev socket links on
# 127.0.0.1; a node's own NIDs go over the loopback LND, so rails need a
# client in another guest), each node's LNet configured by its own lnetd
# --engine=lustre (configure_lnet).
#
#   rail 0: eth0, 10.2.0.0/24      rail 1: eth1, 10.3.0.0/24
#   server .1: MGS+MDT0000 and OST0000 on osd-wbcfs, LNet NIs on both rails
#   client .2: LNet NIs on both rails, the file system mounted, the dd's
#
# The client writes with dd (conv=fsync: the bytes have left when it ends)
# and counts the bytes each rail's interface sent (/proc/net/dev); an
# ost_write's bulk is pulled by the server (a GET), so where it goes is the
# server's choice as much as the client's, and the UDSP rules go on both
# nodes.  The client asks the server over rail 0, by a line to its control
# port (busybox nc: "rule", "tbf", "untbf", "down", "done"), answered "ok".
#  1. no rule: both rails carry the dd's bytes (each at least 5 %);
#  2. on both nodes `lnetctl udsp add` prefers rail 1's NIs (local NIs and
#     peer NIs, priority 0): at least 95 % of the dd's bytes on rail 1;
#  3. a nid rule of 2/s on the server's ost_io (its lnetd, lnetctl tbf)
#     holds the client's direct writes to it: undivided, in the one CPT of
#     the server's two that the client's requests reach;
#  4. that rail's link goes down (ip link set eth1 down on both nodes)
#     while a dd is under way (it reads a FIFO that is half fed: it cannot
#     have ended), then the rest is fed: the dd completes and the file reads
#     back identical (after the client's cached pages are dropped).
# Verdicts are shares of bytes, completion and content, never durations.
# The server stays up until the client says "done" (or 1200 s), then exits.
# Exit status: the number of failed TAP lines.
. /lib/lustre-fs/fixture.sh
role=$1
fails=0
me=1
[ "$role" = client ] && me=2


rails_up() {
	modprobe virtio_pci && modprobe virtio_net || return 1
	i=0
	while [ ! -e /sys/class/net/eth1 ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	ip addr add 10.2.0.$me/24 dev eth0 && ip link set eth0 up &&
		ip addr add 10.3.0.$me/24 dev eth1 && ip link set eth1 up
}

# tx_bytes IFACE: bytes the interface has sent.
tx_bytes() { awk -v i="$1:" '$1 == i { print $10 }' /proc/net/dev; }

# eventually SECONDS COMMAND...: COMMAND succeeds within SECONDS (polling).
eventually() {
	_limit=$(($1 * 10))
	shift
	_i=0
	until "$@" >/dev/null 2>&1; do
		_i=$((_i + 1))
		[ $_i -ge $_limit ] && return 1
		sleep 0.1
	done
}

tap "two rails up: eth0 10.2.0.$me, eth1 10.3.0.$me" rails_up
# Rail 1 going down mid-dd, and who gives up first (facts from
# lustre-release 2.17.57).  LNet: a message caught on rail 1 is resent on
# rail 0 once the LND gives up on it (socklnd: no progress on its
# connection for the LND timeout, a third of LNET_TIMEOUT, 30 s, set
# through lnetd on both nodes), or failed when its transaction timeout
# passes without the ACK or REPLY it awaits (a bulk caught in the dead
# socket's buffer).  Zero-copy sends are off (SOCKLND_ZC_MIN): a
# zero-copy message's deadline runs from the start of its transmission to
# the peer's ZC-ACK (klnds/socklnd/socklnd_cb.c ksocknal_check_zc_req,
# ksocknal_check_peer_timeouts), which a healthy but loaded rail misses
# with megabytes queued ahead (seen at load 15: "stale ZC_REQs" on rail 0
# every 15-30 s of the read-back, each closing the connection and failing
# every bulk on it); without it a connection times out only when nothing
# moves (ksocknal_find_timed_out_conn: the deadline follows each send).
# Lustre then decides what a late or failed message costs:
#  - a bulk the server pulls waits min(bulk_timeout 100 s, the request's
#    deadline) (ldlm/ldlm_lib.c target_bulk_io); when it fails or times
#    out the server drops the reply and the client resends the write
#    after its request's timeout (target/tgt_handler.c tgt_brw_write,
#    "client will retry"): slow, never lost;
#  - an AST the server sends the client (blocking, completion, glimpse)
#    waits at_est2timeout(max(estimate, at_min)) = 1.25 at_min + 5 s
#    (ptlrpc/client.c ptlrpc_at_set_req_timeout, include/lustre_import.h);
#    one that times out or fails evicts the client (ldlm/ldlm_lockd.c
#    ldlm_handle_ast_error), whose pending writes then end in EIO.  With
#    the default at_min of 5 s (obdclass/class_obd.c) that is 11 s, inside
#    LNet's 30 s: the likely road to the eviction seen once in four runs
#    (the lock callback timer, >= 100 s, and the ping evictor, 6 pings of
#    25 s, are far outside it).
# So the server raises at_min to AT_MIN once its targets are up: its ASTs
# wait 1.25 * 40 + 5 = 55 s, its early replies give a request at least
# 40 s (ptlrpc/service.c ptlrpc_at_send_early_reply), the lock callback
# timer stays max(1.5 at_min, ldlm_enqueue_min 100 s) (ldlm_bl_timeout).
# The client's own timeouts stay short: one that expires makes it
# reconnect and resend, which loses nothing and keeps the failover quick.
LNET_TIMEOUT=30
SOCKLND_ZC_MIN=1073741824
AT_MIN=40
tap "LNet configured with an NI on each rail (configure_lnet)" \
	timed configure-lnet configure_lnet eth0 eth1
c_two() { [ "$(upstream-lnetctl net show | grep -c 'nid: 10\.[23]\.0\.')" = 2 ]; }
tap "LNet lists two NIs on net tcp" c_two
tap "the Lustre modules load" timed modprobe-lustre load_lustre

if [ "$role" = server ]; then
	# the control port: one line in, "ok" or the failure out
	cat >/tmp/rails-ctl <<-'CTL'
		#!/bin/sh
		. /lib/lustre-fs/fixture.sh
		read -r cmd
		echo "$cmd" >>/tmp/ctl.log
		case $cmd in
		rule) udsp_rail1 >/tmp/ctl.out 2>&1 ;;
		tbf) lnetctl tbf rule --service ost_io 'start cli nid={10.2.0.2@tcp 10.3.0.2@tcp} rate=2' >/tmp/ctl.out 2>&1 &&
			wait_for 60 lnetd_applied >>/tmp/ctl.out 2>&1 &&
			lctl get_param -n ost.OSS.ost_io.nrs_tbf_rule >/tmp/tbf-rules 2>&1 &&
			grep -q '^cli nid={10.2.0.2@tcp 10.3.0.2@tcp} 2, ref' /tmp/tbf-rules ;;
		untbf) lctl get_param -n ost.OSS.ost_io.nrs_tbf_rule >/tmp/tbf-after 2>&1
			lnetctl tbf del --service ost_io >/tmp/ctl.out 2>&1 ;;
		down) ip link set eth1 down >/tmp/ctl.out 2>&1 ;;
		done) touch /tmp/client-done ;;
		*) false ;;
		esac
		if [ $? = 0 ]; then echo ok; else echo "failed: $cmd"; tr '\n' ' ' </tmp/ctl.out; echo; fi
	CTL
	chmod 755 /tmp/rails-ctl
	nc -ll -p 7000 -e /tmp/rails-ctl &
	ctl=$!
	# listening before the targets mount: the client cannot ask before it
	# has mounted them
	tap "MGS+MDT0000 and OST0000 mount on osd-wbcfs" mount_servers 10.2.0.1@tcp
	c_at_min() {
		lctl set_param at_min=$AT_MIN >/dev/null && [ "$(lctl get_param -n at_min)" = $AT_MIN ] &&
			echo "# server: $(lctl get_param at_min at_max at_extra bulk_timeout timeout 2>/dev/null | tr '\n' ' ')"
	}
	tap "the server's adaptive timeouts start at $AT_MIN s (at_min): its ASTs outwait LNet's $LNET_TIMEOUT s" c_at_min
	echo "# T server-mounted $(now_ms) ms of uptime"
	if wait_for 1200 test -e /tmp/client-done; then
		echo "# T client-done $(now_ms) ms of uptime"
	else
		echo "# the client did not say done within 1200 s"
	fi
	sed 's/^/# control: /' /tmp/ctl.log 2>/dev/null
	echo "# server: the kernel logged $(dmesg | grep -c -i 'evict') lines of eviction, $(dmesg | grep -c 'Bulk IO write error') write bulks dropped for a resend"
	# Lustre lists every rule in every CPT of ost_io; the class of a client's
	# NID (its bucket) is in the CPT its requests reached: after its writes,
	# the rule's "ref N" (classes on it) there, 0 in the others
	awk '/^regular_requests:/ { r = 1; next } /^high/ { r = 0 } r && /^CPT / { n++ }
		r && /^cli / { refs = refs " " $NF; if ($NF + 0 >= 1) m++ }
		END { printf "# server: ost_io lists the client'"'"'s rule in its %d CPTs, with a class on it in %d of them (classes per CPT:%s)\n", n, m, refs }' /tmp/tbf-after 2>/dev/null
	upstream-lnetctl net show -v 2 2>/dev/null | grep -E 'nid:|status:|health value|fatal' | tr -s ' ' | paste -sd ' ' | sed 's/^/# server: /'
	grep -E 'eth1|10\.3\.0|pending|NI ' "$LNETD_LOG" | tail -n 8 | sed 's/^/# server lnetd: /'
	kill "$ctl" 2>/dev/null
	c_ctl() { [ "$(cat /tmp/ctl.log 2>/dev/null | tr '\n' ' ')" = "rule tbf untbf down done " ]; }
	tap "the client asked for the rule, the TBF rule and its end, the link down, and said done" c_ctl
	exit $fails
fi

# --- the client -----------------------------------------------------------
# lnet_state: what lnet.ko says of its NIs and the server's peer NIs
# (status, health), and what lnetd logged of the rails.
lnet_state() {
	upstream-lnetctl net show -v 2 2>/dev/null | grep -E 'nid:|status:|health value|fatal' | tr -s ' ' | paste -sd ' '
	upstream-lnetctl peer show -v 2 2>/dev/null | grep -E 'nid:|state:|health value' | tr -s ' ' | paste -sd ' '
	grep -E 'eth1|10\.3\.0|pending|NI ' "$LNETD_LOG" | tail -n 8
}
# ask WORD: the server does WORD and answers "ok".
ask() {
	_a=$(echo "$1" | nc -w 30 10.2.0.1 7000)
	echo "# server: $_a"
	[ "$_a" = ok ]
}

tap "the server answers on rail 0 (lnetctl ping 10.2.0.1@tcp)" eventually 300 lnetctl ping 10.2.0.1@tcp
tap "the server answers on rail 1 (lnetctl ping 10.3.0.1@tcp)" eventually 60 lnetctl ping 10.3.0.1@tcp
t0=$(now_ms)
tap "the client mounts the server's file system" eventually 300 mount_client 10.2.0.1@tcp
echo "# T mount-client $(($(now_ms) - t0)) ms (retried until the server's targets were up)"
echo "# T boot-to-mounted $(now_ms) ms of uptime"
upstream-lnetctl peer show 2>/dev/null | grep -E 'primary nid|nid: ' | sed 's/^/# peer: /'

# counted DD_ARGS...: dd to the file system with ARGS, conv=fsync; sets
# sent0 / sent1 (MiB*1024: KiB each rail's interface sent during it).
counted() {
	_a0=$(tx_bytes eth0) _b0=$(tx_bytes eth1)
	_t0=$(now_ms)
	dd "$@" conv=fsync 2>/tmp/dd.err || {
		cat /tmp/dd.err
		return 1
	}
	sent0=$((($(tx_bytes eth0) - _a0) / 1024)) sent1=$((($(tx_bytes eth1) - _b0) / 1024))
	echo "# dd $*: $(($(now_ms) - _t0)) ms; rail 0 sent $sent0 KiB, rail 1 $sent1 KiB: $(share1) % on rail 1"
}
share1() { awk -v a="$sent0" -v b="$sent1" 'BEGIN { printf "%.1f", a + b ? 100 * b / (a + b) : 0 }'; }

lfs setstripe -c 1 -i 0 /mnt/lustre/rails 2>/dev/null
c_both() {
	counted if=/dev/zero of=/mnt/lustre/rails bs=1M count=16 &&
		awk -v a="$sent0" -v b="$sent1" 'BEGIN { exit !(a + b >= 16384 && a >= (a + b) / 20 && b >= (a + b) / 20) }'
}
tap "no rule: a 16 MiB dd's bytes go over both rails (each at least 5 %)" c_both

tap "this node's lnetd prefers rail 1 (lnetctl udsp add --src, --dst)" udsp_rail1
tap "the server's lnetd prefers rail 1 too" ask rule
c_one() {
	counted if=/dev/zero of=/mnt/lustre/rails bs=1M count=16 &&
		awk -v a="$sent0" -v b="$sent1" 'BEGIN { exit !(a + b >= 16384 && b >= 0.95 * (a + b)) }'
}
tap "with the rules: at least 95 % of a 16 MiB dd's bytes on rail 1" c_one

# A TBF rule on the server's ost_io for this client, by the server's lnetd:
# a nid rule's rate is written undivided, since a remote client's requests
# reach one CPT of the server's (two: run.sh rails).  20 direct writes then
# take at least what one CPT's bucket lets through, (20 - 3) / 2 s: a bound
# no load can break, which requests reaching both CPTs would (twice the rate).
cs() { awk '{ printf "%d", $1 * 100 }' /proc/uptime; }
c_tbf() {
	lfs setstripe -c 1 -i 0 /mnt/lustre/tbf 2>/dev/null
	dd if=/dev/zero of=/mnt/lustre/tbf bs=4k count=4 oflag=direct 2>/dev/null || return 1
	_t0=$(cs)
	dd if=/dev/zero of=/mnt/lustre/tbf bs=4k count=20 oflag=direct conv=notrunc 2>/dev/null || return 1
	_c=$(($(cs) - _t0))
	awk -v c="$_c" 'BEGIN {
		printf "# 20 direct writes under the server'"'"'s nid rule of 2/s: %.2f s (one CPT: 8.5 s at least), %.1f RPC/s\n", c / 100, (c > 0 ? 2000 / c : 0)
		exit !(c >= 850)
	}'
}
tap "the server's lnetd holds a nid rule of 2/s for this client on ost_io" ask tbf
tap "the client's writes are held to 2/s in all: the rule's rate, undivided, in one CPT" c_tbf
tap "the server's lnetd deletes the rule" ask untbf

# rail 1 down mid-dd: the dd reads a FIFO fed 8 MiB, then (rail 1 carrying
# them) the link goes down on both nodes, then the other 16 MiB are fed.
dd if=/dev/urandom of=/tmp/ref bs=1M count=24 2>/dev/null
lfs setstripe -c 1 -i 0 /mnt/lustre/failover 2>/dev/null
mkfifo /tmp/feed
# asts: the lock callbacks (blocking, completion, glimpse) the client has
# had from the servers, the ones that may evict it when lost
asts() { lctl get_param -n ldlm.services.ldlm_cbd.stats 2>/dev/null | awk '$1 ~ /^ldlm_(bl|cp|gl)_callback$/ { printf "%s %s ", $1, $2 }'; }
echo "# client: lock callbacks before the failover: $(asts)"
b0=$(tx_bytes eth1) a0=$(tx_bytes eth0)
dd if=/tmp/feed of=/mnt/lustre/failover bs=1M iflag=fullblock conv=fsync 2>/tmp/dd-fo.err &
ddpid=$!
exec 3>/tmp/feed
dd if=/tmp/ref bs=1M count=8 2>/dev/null >&3
c_flowing() { [ $(($(tx_bytes eth1) - b0)) -ge $((4 * 1048576)) ]; }
tap "the dd under way: 4 MiB of it on rail 1" wait_for 120 c_flowing
c_down() { kill -0 "$ddpid" && ip link set eth1 down && ask down; }
tap "rail 1's link goes down on both nodes while the dd runs" c_down
sleep 2
lnet_state | sed 's/^/# down: /'
b1=$(tx_bytes eth1) a1=$(tx_bytes eth0)
t0=$(now_ms)
dd if=/tmp/ref bs=1M skip=8 2>/dev/null >&3
exec 3>&-
c_done() { wait "$ddpid" || { cat /tmp/dd-fo.err; return 1; }; }
tap "the dd completes" c_done
echo "# T failover-dd $(($(now_ms) - t0)) ms after the link went down; rail 0 sent $((($(tx_bytes eth0) - a1) / 1024)) KiB then, rail 1 $((($(tx_bytes eth1) - b1) / 1024)) KiB (before: rail 1 $(((b1 - b0) / 1024)) KiB, rail 0 $(((a1 - a0) / 1024)) KiB)"
c_same() {
	lctl set_param -n ldlm.namespaces.*osc*.lru_size=clear >/dev/null &&
		[ "$(md5sum </mnt/lustre/failover)" = "$(md5sum </tmp/ref)" ]
}
tap "nothing lost: the 24 MiB read back identical" c_same
echo "# client: lock callbacks after: $(asts)"
lnet_state | sed 's/^/# after: /'
rm -f /tmp/ref
tap "the client unmounts" umount /mnt/lustre
tap "the server heard the client out" ask done
exit $fails
