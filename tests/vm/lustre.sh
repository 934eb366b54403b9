#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/vm/lustre.sh WORK KVER VMLINUX BUSYBOX_TREE - the VM tier's "lustre"
# group, run by tests/vm/run.sh: the lnet.ko library (lnetd/backend/lustre/)
# against upstream Lustre's own lnet.ko, one guest per version.
#
# For each version in $LNETD_VM_LUSTRE_VERSIONS (default 2.15.8 2.16.1
# 2.17.57) it finds upstream's build with tests/vm/upstream.sh (building it
# when the cache has none), builds an initramfs (busybox, that version's
# modules with Debian's sunrpc.ko and dummy.ko, upstream's lnetctl and its
# libraries, a ksocklnd-config stub that exits 0, lustre-test, lustre-init
# as /init; lnetk.ko, veth.ko and iproute2's ip as /bin/ip2 for the lnetk
# node lustre-engine.sh pings) and boots it under qemu with two vCPUs.  Prints the guests'
# console lines: "LNETK-VM-BOOT: NAME" before each boot, then the guest's
# unnumbered TAP lines and its verdict marker; run.sh numbers them and
# fails a boot that printed no PASS verdict.  LNETD_VM_LUSTRE_PEERS sets the
# scale case's peer count (1000).
#
# Each guest also runs lnetd --engine=lustre on that lnet.ko
# (tests/vm/lustre-engine.sh; lnetd and lnetctl from LNETD_BUILDDIR, else
# the current directory).  LNETD_VM_LUSTRE_CASES=engine runs only those
# cases; =k1 runs bench K1 instead (bench/k1.sh; sizes in
# LNETD_VM_K1_PEERS, e.g. 10000,50000).
set -u
work=$1 kver=$2 vmlinux=$3 base=$4
here=$(cd "$(dirname "$0")" && pwd)
top=${LNETD_TOP_SRCDIR:-$(cd "$here/../.." && pwd)}
versions=${LNETD_VM_LUSTRE_VERSIONS:-2.15.8 2.16.1 2.17.57}

# A step that failed: a failing line for each guest that will not boot.
fail_all() {
	echo "not ok - lustre: $1"
	[ -n "${2:-}" ] && [ -f "$2" ] && tail -n 30 "$2" | sed 's/^/# /'
	for v in $versions; do
		echo "LNETK-VM-BOOT: lustre-$v"
		echo "LNETK-VM-VERDICT: FAIL (not booted)"
	done
	exit 1
}

copy_with_libs() {
	install -D -m 755 "$1" "$2/bin/${1##*/}" || return 1
	for lib in $(ldd "$1" 2>/dev/null | grep -o '/[^ ]*'); do
		[ -e "$2$lib" ] || install -D -m 755 "$(readlink -f "$lib")" "$2$lib" || return 1
	done
}

# --- the guest program: the library, the engine, the cases ------------------
prog=$work/lustre-test
# the library without its TBF layer (lu-tbf*.c: lnetd's, with _GNU_SOURCE)
lusrcs=""
for f in "$top"/lnetd/backend/lustre/lu-*.c; do
	case $f in */lu-tbf*) ;; *) lusrcs="$lusrcs $f" ;; esac
done
srcs="$here/lustre-test.c $here/lustre-cases.c $lusrcs
	$(ls "$top"/engine/*.c)"
stale=no
[ -x "$prog" ] || stale=yes
for f in $srcs $here/lustre-test.h $(ls "$top"/lnetd/backend/lustre/*.h "$top"/engine/*.h); do
	[ "$f" -nt "$prog" ] && stale=yes
done
if [ "$stale" = yes ]; then
	# shellcheck disable=SC2086
	gcc -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
		-Wformat=2 -Wshadow -Werror -I"$top" -pthread -o "$prog" $srcs \
		>"$work/lustre-test.log" 2>&1 || fail_all "build lustre-test" "$work/lustre-test.log"
fi

# --- lnetd --engine=lustre in the guest (lustre-engine.sh): lnetd and lnetctl
# from the build (LNETD_BUILDDIR, else the current directory), a private bus
build=${LNETD_BUILDDIR:-$(pwd)}
dbus_daemon=$(command -v dbus-daemon || true)
lnetd_skip=""
if [ ! -x "$build/lnetd/lnetd" ] || [ ! -x "$build/lnetctl/lnetctl" ]; then
	lnetd_skip="lnetd is not built (set LNETD_BUILDDIR)"
elif [ -z "$dbus_daemon" ] || [ ! -r /usr/share/dbus-1/session.conf ]; then
	lnetd_skip="dbus-daemon not found (apt-get install dbus-daemon)"
fi
lnetd_tree() {
	if [ -n "$lnetd_skip" ]; then
		echo "$lnetd_skip" >"$1/lnetd-skip"
		return 0
	fi
	copy_with_libs "$build/lnetd/lnetd" "$1" && copy_with_libs "$build/lnetctl/lnetctl" "$1" &&
		copy_with_libs "$dbus_daemon" "$1" &&
		install -m 755 "$here/lustre-engine.sh" "$1/bin/lustre-engine.sh" &&
		install -m 755 "$top/bench/k1.sh" "$1/bin/k1.sh" &&
		mkdir -p "$1/etc/lnetd-vm" "$1/var/lib/dbus" &&
		sed 's|<policy context="default">|&<allow user="*"/>|' \
			/usr/share/dbus-1/session.conf >"$1/etc/lnetd-vm/bus.conf" &&
		echo 'root:x:0:0:root:/root:/bin/sh' >"$1/etc/passwd" &&
		echo 'root:x:0:' >"$1/etc/group" &&
		echo 0123456789abcdef0123456789abcdef >"$1/etc/machine-id"
}

# --- lnetk beside lnet.ko (lustre-engine.sh: a ping and a discovery between
# lnet.ko, configured by lnetd, and an lnetk node in a child namespace over a
# veth pair): the VM tier's own lnetk.ko when it is newer than every source of
# the module, else one built here; iproute2's ip as /bin/ip2 (busybox's has no
# netns).  Without them that case is skipped, saying why.
lnetk_ko=$work/kmod/lnetk.ko
if [ ! -f "$lnetk_ko" ] ||
	[ -n "$(find "$top/kernel" "$top/engine" -name '*.[ch]' -newer "$lnetk_ko" | head -n 1)" ]; then
	lnetk_ko=$work/kmod-lustre/lnetk.ko
	"$top/kernel/stage.sh" "$top/kernel" "$work/kmod-lustre" &&
		make -s -C "/usr/src/linux-headers-$kver" M="$work/kmod-lustre" -j"$(nproc)" modules \
			>"$work/kmod-lustre.log" 2>&1 || lnetk_ko=""
fi
veth=$(find "/lib/modules/$kver/kernel/drivers/net" -name 'veth.ko*' | head -n 1)
iproute_ip=$(command -v ip || echo /usr/sbin/ip)
lnetk_tree() {
	if [ -z "$lnetk_ko" ] || [ -z "$veth" ] || [ ! -x "$iproute_ip" ]; then
		echo "no lnetk.ko for $kver (see $work/kmod-lustre.log), veth.ko or iproute2's ip" \
			>"$1/lnetk-skip"
		return 0
	fi
	install -D -m 644 "$lnetk_ko" "$1/lib/modules/$kver/extra/lnetk.ko" &&
		install -D -m 644 "$veth" "$1/lib/modules/$kver/kernel/drivers/net/${veth##*/}" &&
		copy_with_libs "$iproute_ip" "$1" && mv "$1/bin/ip" "$1/bin/ip2" &&
		ln -s busybox "$1/bin/ip" # busybox's ip stays /bin/ip (lustre-init's)
}

sunrpc=$(find "/lib/modules/$kver/kernel/net/sunrpc" -maxdepth 1 -name 'sunrpc.ko*' | head -n 1)
dummy=$(find "/lib/modules/$kver/kernel/drivers/net" -name 'dummy.ko*' | head -n 1)
[ -n "$sunrpc" ] && [ -n "$dummy" ] || fail_all "Debian's sunrpc.ko and dummy.ko for $kver"
qemu=$(command -v qemu-system-x86_64)

for v in $versions; do
	up=$("$here/upstream.sh" "$v" "$kver" 2>"$work/upstream-$v.log") ||
		fail_all "upstream Lustre $v for $kver (tests/vm/upstream.sh)" "$work/upstream-$v.log"
	root=$work/lustre-root-$v
	rm -rf "$root"
	modes=auto
	case $v in 2.15.*) ;; *) modes="auto ioctl" ;; esac
	{
		cp -a "$base" "$root" &&
			mkdir -p "$root/lib/modules/$kver/extra/upstream" "$root/opt/upstream/bin" \
				"$root/opt/upstream/lib" "$root/etc/lustre" "$root/usr/sbin" &&
			cp "$up"/modules/*.ko "$root/lib/modules/$kver/extra/upstream/" &&
			install -D -m 644 "$sunrpc" "$root/lib/modules/$kver/kernel/net/sunrpc/${sunrpc##*/}" &&
			install -D -m 644 "$dummy" \
				"$root/lib/modules/$kver/kernel/drivers/net/${dummy##*/}" &&
			install -m 755 "$up/bin/lnetctl" "$root/opt/upstream/bin/lnetctl" &&
			cp -a "$up"/lib/liblnetconfig.so* "$root/opt/upstream/lib/" &&
			for lib in $(LD_LIBRARY_PATH=$up/lib ldd "$up/bin/lnetctl" | grep -o '/[^ ]*'); do
				case $lib in "$up"/*) continue ;; esac
				[ -e "$root$lib" ] ||
					install -D -m 755 "$(readlink -f "$lib")" "$root$lib" || exit 1
			done &&
			printf '#!/bin/sh\nLD_LIBRARY_PATH=/opt/upstream/lib exec /opt/upstream/bin/lnetctl "$@"\n' \
				>"$root/bin/upstream-lnetctl" && chmod 755 "$root/bin/upstream-lnetctl" &&
			rm -f "$root/usr/sbin" && mkdir -p "$root/usr/sbin" &&
			printf '#!/bin/sh\nexit 0\n' >"$root/usr/sbin/ksocklnd-config" &&
			chmod 755 "$root/usr/sbin/ksocklnd-config" &&
			echo "$v" >"$root/etc/lustre/version" && echo "$modes" >"$root/etc/lustre/modes" &&
			lnetk_tree "$root" &&
			"$root/bin/busybox" depmod -b "$root" "$kver" &&
			copy_with_libs "$prog" "$root" && lnetd_tree "$root" &&
			install -m 755 "$here/lustre-init" "$root/init" &&
			(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$work/lustre-$v.cpio.gz"
	} >"$work/lustre-root-$v.log" 2>&1 ||
		fail_all "the initramfs of $v in $root" "$work/lustre-root-$v.log"
done

append='console=ttyS0 quiet panic=-1 no_timer_check'
[ -n "${LNETD_VM_LUSTRE_CASES:-}" ] && append="$append LNETD_VM_LUSTRE_CASES=${LNETD_VM_LUSTRE_CASES//[^a-z0-9]/}"
[ -n "${LNETD_VM_K1_PEERS:-}" ] && append="$append LNETD_VM_K1_PEERS=${LNETD_VM_K1_PEERS//[^0-9,]/}"
[ -n "${LNETD_VM_LUSTRE_PEERS:-}" ] && append="$append LNETD_VM_LUSTRE_PEERS=${LNETD_VM_LUSTRE_PEERS//[^0-9]/}"
accel="-accel tcg"
[ "${LNETD_VM_KVM:-0}" = 1 ] && accel="-accel kvm -cpu host"
for v in $versions; do
	echo "LNETK-VM-BOOT: lustre-$v"
	start=$(date +%s.%N)
	# shellcheck disable=SC2086
	timeout 1200 "$qemu" $accel -smp 2 -m 1024 -nodefaults -no-user-config -display none \
		-serial stdio -no-reboot -kernel "$vmlinux" -initrd "$work/lustre-$v.cpio.gz" \
		-append "$append" </dev/null 2>&1
	st=$?
	echo "# lustre guest $v: boot and cases $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s, qemu exit status $st"
done
