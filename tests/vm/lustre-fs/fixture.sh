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

# ------------------------------------------------------------------------------
# configure_lnet NID_IFACES...: THE HOOK.  LNet is configured here and only
# here.  Today upstream's lnetctl does it; lnetd's lustre engine will take
# this function over (start lnetd with the lustre engine, `lnetctl net add`
# through it, wait until lnetd reports the NIs applied).  Arguments: the
# interfaces of the one LNet net "tcp", e.g. "d0" or "eth0 eth1".
# ------------------------------------------------------------------------------
configure_lnet() {
	if [ -n "${LUSTRE_FS_CPTS:-}" ]; then
		# the CPU partitions, fixed when they load (2.17 has the parameter
		# in both modules)
		modprobe libcfs cpu_npartitions="$LUSTRE_FS_CPTS" &&
			modprobe lnet cpu_npartitions="$LUSTRE_FS_CPTS" || return 1
	fi
	modprobe lnet || return 1
	lnetctl lnet configure || return 1
	for _if in "$@"; do
		lnetctl net add --net tcp --if "$_if" 2>&1 | grep -v 'ksocklnd-config: not found'
	done
	lnetctl net show | grep -q 'net type: tcp'
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
