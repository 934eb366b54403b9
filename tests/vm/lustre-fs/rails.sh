# SPDX-License-Identifier: GPL-2.0
# tests/vm/lustre-fs/rails.sh server|client - two guests joined by two
# rails (run.sh rails: two -netdev socket links on 127.0.0.1), the plumbing
# for UDSP on Lustre's traffic: a node's own NIDs go over the loopback LND,
# so rails need a client in another guest.
#
#   rail 0: eth0, 10.2.0.0/24      rail 1: eth1, 10.3.0.0/24
#   server .1: MGS+MDT0000 and OST0000 on osd-wbcfs, LNet NIs on both rails
#   client .2: LNet NIs on both rails, the file system mounted, a dd
#
# The client prints the bytes each rail carried during the dd (the
# interfaces' counters, /proc/net/dev, and LNet's per-NI statistics);
# where the bytes go is a figure, not a verdict (today upstream's
# Multi-Rail picks; lnetd's UDSP rules will).  The server stays up until
# the client has come and gone (the MDT's export count), then powers off.
# Exit status: the number of failed TAP lines.
. /lib/lustre-fs/fixture.sh
role=$1
fails=0
me=1
[ "$role" = client ] && me=2

tap() {
	_d=$1
	shift
	if "$@" >/tmp/t.out 2>&1; then
		grep '^# ' /tmp/t.out
		echo "ok - $_d"
	else
		echo "not ok - $_d"
		sed 's/^\([^#]\)/# \1/' /tmp/t.out | head -n 30
		fails=$((fails + 1))
	fi
}

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
rx_bytes() { awk -v i="$1:" '$1 == i { print $2 }' /proc/net/dev; }

# ni_sent NID: LNet's send_count of the local NI NID.
ni_sent() {
	lnetctl net show -v 2>/dev/null | awk -v nid="$1" '
		$0 ~ "nid: " nid "$" { on = 1; next }
		/nid: / { on = 0 }
		on && /send_count:/ { print $2; exit }'
}

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
tap "LNet configured with an NI on each rail (configure_lnet)" \
	timed configure-lnet configure_lnet eth0 eth1
c_two() { [ "$(lnetctl net show | grep -c 'nid: 10\.[23]\.0\.')" = 2 ]; }
tap "LNet lists two NIs on net tcp" c_two
tap "the Lustre modules load" timed modprobe-lustre load_lustre

# mdt_exports: the MDT's exports (its own targets', and each client's).
mdt_exports() { lctl get_param -n 'mdt.*.num_exports' 2>/dev/null | head -n 1; }

if [ "$role" = server ]; then
	tap "MGS+MDT0000 and OST0000 mount on osd-wbcfs" mount_servers 10.2.0.1@tcp
	echo "# T server-mounted $(now_ms) ms of uptime"
	# up until the client has come and gone: the MDT's exports grow (the
	# client's, perhaps the OST's own late), then one goes (the host stops
	# us at its limit)
	base=$(mdt_exports)
	max=$base
	more() { [ "$(mdt_exports)" -gt "$base" ]; }
	fewer() {
		_n=$(mdt_exports)
		[ "$_n" -gt "$max" ] && max=$_n
		[ "$_n" -lt "$max" ]
	}
	if eventually 600 more; then
		echo "# T client-connected $(now_ms) ms of uptime ($base exports before, $(mdt_exports) now)"
		eventually 600 fewer && echo "# T client-gone $(now_ms) ms of uptime"
	else
		echo "# no client came within 600 s"
	fi
	exit $fails
fi

# The client.
tap "the server answers on rail 0 (lnetctl ping 10.2.0.1@tcp)" eventually 300 lnetctl ping 10.2.0.1@tcp
tap "the server answers on rail 1 (lnetctl ping 10.3.0.1@tcp)" eventually 60 lnetctl ping 10.3.0.1@tcp
t0=$(now_ms)
tap "the client mounts the server's file system" eventually 300 mount_client 10.2.0.1@tcp
echo "# T mount-client $(($(now_ms) - t0)) ms (retried until the server's targets were up)"
echo "# T boot-to-mounted $(now_ms) ms of uptime"
lnetctl peer show 2>/dev/null | grep -E 'primary nid|nid: ' | sed 's/^/# peer: /'

lfs setstripe -c 1 -i 0 /mnt/lustre/rails 2>/dev/null
for i in eth0 eth1; do
	eval "tx0_$i=$(tx_bytes $i) rx0_$i=$(rx_bytes $i) ni0_$i=$(ni_sent 10.$(( ${i#eth} + 2 )).0.2@tcp)"
done
t0=$(now_ms)
tap "a 64 MiB dd from the client completes" sh -c 'dd if=/dev/zero of=/mnt/lustre/rails bs=1M count=64 2>&1 && sync'
ms=$(($(now_ms) - t0))
echo "# T dd-64MiB $ms ms: $(awk -v ms="$ms" 'BEGIN { printf "%.1f", 64 * 1000 / ms }') MiB/s"
total=0
for i in eth0 eth1; do
	eval "tx=\$((\$(tx_bytes $i) - tx0_$i)) rx=\$((\$(rx_bytes $i) - rx0_$i))"
	eval "ni=\$((\$(ni_sent 10.$(( ${i#eth} + 2 )).0.2@tcp) - ni0_$i))"
	eval "tx_$i=$tx"
	total=$((total + tx))
	echo "# rail $i: sent $(awk -v b="$tx" 'BEGIN { printf "%.1f", b / 1048576 }') MiB, received $(awk -v b="$rx" 'BEGIN { printf "%.1f", b / 1048576 }') MiB; LNet messages sent by its NI: $ni"
done
echo "# rails: $(awk -v a="$tx_eth0" -v t="$total" 'BEGIN { printf "%.1f", t ? 100 * a / t : 0 }') % of the dd's bytes on rail 0, $(awk -v a="$tx_eth1" -v t="$total" 'BEGIN { printf "%.1f", t ? 100 * a / t : 0 }') % on rail 1"
c_bytes() { [ $((total)) -ge $((64 * 1048576)) ]; }
tap "the rails' counters account for the 64 MiB sent" c_bytes
tap "32 MiB written from the client read back identical" timed io-roundtrip io_roundtrip 32
tap "the client unmounts" umount /mnt/lustre
exit $fails
