# SPDX-License-Identifier: GPL-2.0
# tests/vm/lustre-fs/fixture.sh - a whole Lustre file system in the guest,
# sourced by tests/vm/lustre-fs/init (busybox sh).  Facts from
# ../shared/lustre/FULL.md: servers on the in-memory OSD osd-wbcfs (no
# mkfs: mount.lustre with OSD_WBC_* in the environment), a client in the
# servers' guest reaches them over 0@lo, jobid_var starts disabled, the
# NRS files are in debugfs, and drop_caches must never run (it frees
# wbcfs's objects: the client then retries its writes forever).
#
# Every step prints "# T <step> <ms>": wall time inside the guest.

FS_NAME=lustre
LMODS="obdclass ptlrpc fld fid ec lmv osc lov mdc mgc lustre lfsck lquota osd_wbcfs mgs mdd mdt lod ofd osp"

# now_ms: the guest's uptime in milliseconds.
now_ms() {
	awk '{ printf "%d", $1 * 1000 }' /proc/uptime
}

# timed STEP COMMAND...: run COMMAND, print its wall time as "# T STEP ms".
timed() {
	_step=$1
	shift
	_t0=$(now_ms)
	"$@"
	_rc=$?
	echo "# T $_step $(($(now_ms) - _t0)) ms (rc $_rc)"
	return $_rc
}

# tap DESCRIPTION COMMAND...: one TAP line for COMMAND, counted in $fails
# when it fails; its "# " lines are shown when it passes, its output (40
# lines, as comments) when it fails, and then tap_on_fail's (a script that
# has more to show, guest-lnetd.sh's lnetd log, defines its own).
tap_on_fail() { :; }
tap() {
	_d=$1
	shift
	if "$@" >/tmp/t.out 2>&1; then
		grep '^# ' /tmp/t.out
		echo "ok - $_d"
	else
		echo "not ok - $_d"
		sed 's/^\([^#]\)/# \1/' /tmp/t.out | head -n 40
		tap_on_fail
		fails=$((fails + 1))
	fi
}

# ------------------------------------------------------------------------------
# lnetd --engine=lustre owns the guest's LNet and the TBF policies of its
# Lustre services, as on an admin's node: a private system bus, lnetd's
# store in /var/lib/lnetd, every change through lnetd's lnetctl (D-Bus);
# upstream's lnetctl is upstream-lnetctl and only reads back.
# ------------------------------------------------------------------------------
DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/lnetd-fs-bus
export DBUS_SYSTEM_BUS_ADDRESS
LNETD_LOG=/tmp/lnetd.log

# wait_for SECONDS COMMAND...: COMMAND succeeds within SECONDS (polled every
# 0.2 s); the verdict is whether it came, never how soon.
wait_for() {
	_wend=$(($(now_ms) + $1 * 1000))
	shift
	until "$@" >/tmp/wait.out 2>&1; do
		[ "$(now_ms)" -lt "$_wend" ] || {
			cat /tmp/wait.out
			return 1
		}
		sleep 0.2
	done
}

# lnetd_start: the bus (once) and lnetd --engine=lustre, answering.  The
# bounds are for a hang: under load (two rails guests beside CPU burners,
# /init at 50 s of uptime) the bus took more than 30 s to listen.
lnetd_start() {
	if [ ! -S /run/lnetd-fs-bus ]; then
		mkdir -p /run /var/lib/lnetd
		dbus-daemon --config-file=/etc/lnetd-fs/bus.conf --address="$DBUS_SYSTEM_BUS_ADDRESS" \
			--nofork >/tmp/bus.log 2>&1 &
		wait_for 300 test -S /run/lnetd-fs-bus || {
			echo "# the bus does not listen; its log:"
			sed 's/^/#   /' /tmp/bus.log
			return 1
		}
	fi
	lnetd --engine=lustre --state-dir=/var/lib/lnetd >>"$LNETD_LOG" 2>&1 &
	LNETD_PID=$!
	echo "$LNETD_PID" >/run/lnetd.pid
	wait_for 300 lnetctl status
}

# lnetd_stop: lnetd gone (SIGTERM), what it configured left in place.
lnetd_stop() {
	_pid=$(cat /run/lnetd.pid 2>/dev/null)
	[ -n "$_pid" ] || return 1
	kill "$_pid" && while kill -0 "$_pid" 2>/dev/null; do sleep 0.1; done
	rm -f /run/lnetd.pid
}

# lnetd_applied: lnetd's Status lists nothing pending.
lnetd_applied() {
	lnetctl status >/tmp/status.out 2>&1 && grep -q 'pending: \[\]' /tmp/status.out || {
		cat /tmp/status.out
		return 1
	}
}

# udsp_rail1: (rails.sh, both nodes) this node's lnetd prefers rail 1, its local NIs and the
# peers' (lnetd applies the rules to lnet.ko; upstream's lnetctl lists them).
udsp_rail1() {
	lnetctl udsp add --src '10.3.0.[1-2]@tcp' --priority 0 &&
		lnetctl udsp add --dst '10.3.0.[1-2]@tcp' --priority 0 &&
		wait_for 60 lnetd_applied &&
		upstream-lnetctl udsp show >/tmp/udsp.out 2>&1 &&
		[ "$(grep -c '10\.3\.0\.\[1-2\]@tcp' /tmp/udsp.out)" -ge 2 ] || {
		cat /tmp/udsp.out
		return 1
	}
}

# ------------------------------------------------------------------------------
# configure_lnet NID_IFACES...: LNet is configured here and only here, by
# lnetd's lustre engine as an admin would have it: lnet.ko loaded (with
# LUSTRE_FS_CPTS partitions), lnetd started, `lnetctl lnet configure` and
# one `lnetctl net add` per interface of the LNet net "tcp" (e.g. "d0" or
# "eth0 eth1"), then lnetd says it applied them and upstream's lnetctl lists
# them.  LNET_TIMEOUT, if set: the transaction timeout (below);
# SOCKLND_ZC_MIN, if set: the smallest message socklnd sends zero-copy.
# ------------------------------------------------------------------------------
configure_lnet() {
	if [ -n "${LUSTRE_FS_CPTS:-}" ]; then
		# the CPU partitions, fixed when they load (2.17 has the parameter
		# in both modules)
		modprobe libcfs cpu_npartitions="$LUSTRE_FS_CPTS" &&
			modprobe lnet cpu_npartitions="$LUSTRE_FS_CPTS" || return 1
	fi
	modprobe lnet || return 1
	# SOCKLND_ZC_MIN, if set: socklnd's zc_min_payload (rails.sh says why)
	if [ -n "${SOCKLND_ZC_MIN:-}" ]; then
		modprobe ksocklnd zc_min_payload="$SOCKLND_ZC_MIN" || return 1
	fi
	lnetd_start || {
		tail -n 20 "$LNETD_LOG"
		return 1
	}
	lnetctl lnet configure --timeout 120 || return 1
	# LNET_TIMEOUT: LNet's transaction_timeout, which the NIs' LND timeout
	# then follows (a third of it with the default two resends)
	if [ -n "${LNET_TIMEOUT:-}" ]; then
		lnetctl set transaction_timeout "$LNET_TIMEOUT" || return 1
	fi
	for _if in "$@"; do
		lnetctl net add --net tcp --if "$_if" ${LNET_TIMEOUT:+--lnd-timeout 0} || return 1
	done
	wait_for 120 lnetd_applied || return 1
	upstream-lnetctl net show >/tmp/ulnet.out 2>&1
	for _if in "$@"; do
		_ip=$(ip -4 -o addr show dev "$_if" | awk '{ sub(/\/.*/, "", $4); print $4; exit }')
		grep -q "nid: $_ip@tcp" /tmp/ulnet.out || {
			echo "# upstream's lnetctl does not list $_ip@tcp:"
			sed 's/^/#   /' /tmp/ulnet.out
			return 1
		}
	done
}

# load_lustre: every module the servers and the client need (lnet before).
load_lustre() {
	for _m in $LMODS; do
		modprobe "$_m" || {
			echo "# modprobe $_m failed"
			return 1
		}
	done
}

# mount_target TYPE INDEX MGSNID DIR [PRIMARY_MDT]: one target on wbcfs.
mount_target() {
	mkdir -p "$4"
	OSD_WBC_TGT_TYPE=$1 OSD_WBC_INDEX=$2 OSD_WBC_PRIMARY_MDT=${5:-0} OSD_WBC_FSNAME=$FS_NAME \
		OSD_WBC_MGS_NID=$3 mount.lustre lustre-wbcfs "$4" >/tmp/mount.out 2>&1 || {
		sed 's/^/# /' /tmp/mount.out
		return 1
	}
}

# mount_servers MGSNID: MGS+MDT0000 and OST0000.
mount_servers() {
	timed mount-mgs-mdt mount_target MDT 0 "$1" /mnt/mdt0 1 &&
		timed mount-ost0 mount_target OST 0 "$1" /mnt/ost0
}

# mount_client MGSNID: the client at /mnt/lustre.
mount_client() {
	mkdir -p /mnt/lustre
	mount.lustre "$1:/$FS_NAME" /mnt/lustre >/tmp/mount.out 2>&1 || {
		sed 's/^/# /' /tmp/mount.out
		return 1
	}
}

# io_roundtrip MIB: write MIB MiB of random data, drop the client's cached
# pages by cancelling its OSC locks (never drop_caches), read back, compare.
io_roundtrip() {
	dd if=/dev/urandom of=/tmp/ref bs=1M count="$1" 2>/dev/null &&
		dd if=/tmp/ref of=/mnt/lustre/roundtrip bs=1M 2>/dev/null &&
		sync &&
		lctl set_param -n ldlm.namespaces.*osc*.lru_size=clear >/dev/null &&
		[ "$(md5sum </mnt/lustre/roundtrip)" = "$(md5sum </tmp/ref)" ]
	_rc=$?
	rm -f /tmp/ref
	return $_rc
}

# ost_writes: the ost_write RPCs ost_io has handled so far (its stats).
ost_writes() {
	lctl get_param -n ost.OSS.ost_io.stats 2>/dev/null |
		awk '$1 == "ost_write" { n = $2 } END { print n + 0 }'
}

# ost_reads: the same for ost_read.
ost_reads() {
	lctl get_param -n ost.OSS.ost_io.stats 2>/dev/null |
		awk '$1 == "ost_read" { n = $2 } END { print n + 0 }'
}

# guest_setup: what every guest mounts and loads before the file system.
guest_setup() {
	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	mount -t devtmpfs devtmpfs /dev
	mount -t tmpfs tmpfs /tmp
	mount -t debugfs debugfs /sys/kernel/debug # the NRS files
	ln -sf /proc/mounts /etc/mtab
}
