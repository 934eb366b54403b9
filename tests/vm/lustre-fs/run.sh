#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/vm/lustre-fs/run.sh [fs|bench|rails] [WORKDIR] - a whole upstream
# Lustre file system in qemu (TCG): servers on the in-memory OSD
# osd-wbcfs, a client, and every guest's LNet configured by lnetd
# --engine=lustre (fixture.sh's configure_lnet: lnetctl lnet configure,
# lnetctl net add, over a private bus; upstream's lnetctl is in the guest
# as upstream-lnetctl, to read back).
#
#   fs     one guest of 1 GiB: MGS+MDT and an OST, a client over 0@lo, I/O
#          round trips, then guest-tbf.sh (lnetd's TBF layer, lu-tbf.h,
#          driving ost_io through the lutbf tool: rules, drift, refusals,
#          remount) and guest-lnetd.sh (the same as an admin does it:
#          lnetctl tbf through lnetd, asserted in Lustre's nrs_tbf_rule and
#          by the client's writes).  TAP.  make check (lu-tbf.am).
#   bench  the same guest, then bench-t3.sh: the T3 figures (achieved /
#          configured rates of ost_write under rules applied through the
#          library).  Figures, with TAP lines only for what is guaranteed.
#          make bench.
#   rails  two guests joined by two rails (-netdev socket on 127.0.0.1):
#          servers on one, a client on the other (rails.sh): the dd's bytes
#          on both rails without a UDSP rule, >= 95 % on the rail that
#          lnetd's rules prefer, and that rail's link taken down mid-dd
#          losing nothing.  TAP.  make check (run-rails.sh).
#
# Where things are:
#   Lustre     $LNETD_LUSTRE_FULL: a whole Lustre built by
#              ../shared/lustre/build-full.sh (modules/, bin/, lib/, plugin/,
#              PLUGINDIR, host-modules); else tests/vm/upstream.sh full
#              finds it in the cache outside the clone, or builds it there
#              (about 11 minutes on a quiet two-core machine).
#   work dir   as tests/vm/run.sh chooses it ($2, $LNETD_VM_WORKDIR, the
#              build dir's tests/vm/work, or /tmp/lnetd-vm-<uid>): the
#              uncompressed kernel and the busybox tree are shared with it
#              (same names), this script's own files go to lustre-fs/.
#   kernel     $LNETD_VM_KVER, else the one the Lustre build is for.
#   CPTs       $LUSTRE_FS_CPTS: libcfs's cpu_npartitions in the guest (fs
#              and rails default to 2, so that rates are divided for real,
#              bench to the kernel's choice, 1 on two vCPUs).
set -u
LC_ALL=C
export LC_ALL

mode=${1:-fs}
case $mode in
fs | bench | rails) ;;
*)
	echo "usage: $0 [fs|bench|rails] [WORKDIR]" >&2
	exit 2
	;;
esac

skip() {
	echo "1..0 # SKIP $*"
	exit 0
}

fail() {
	echo "1..1"
	echo "not ok 1 - $1"
	[ -n "${2:-}" ] && [ -f "$2" ] && tail -n 40 "$2" | sed 's/^/# /'
	exit 1
}

here=$(cd "$(dirname "$0")" && pwd)
top=${LNETD_TOP_SRCDIR:-$(cd "$here/../../.." && pwd)}
if [ -n "${2:-}" ]; then
	work=$2
elif [ -n "${LNETD_VM_WORKDIR:-}" ]; then
	work=$LNETD_VM_WORKDIR
elif [ -f config.status ] && [ "$(pwd -P)" != "$(cd "$top" && pwd -P)" ]; then
	work=$(pwd)/tests/vm/work
else
	work=${TMPDIR:-/tmp}/lnetd-vm-$(id -u)
fi

if [ -n "${LNETD_LUSTRE_FULL:-}" ]; then
	full=$LNETD_LUSTRE_FULL
elif "$here/../upstream.sh" --where >/dev/null 2>&1; then
	# found in, or built into, the cache outside the clone (tests/vm/upstream.sh)
	mkdir -p "$work" || fail "create $work"
	full=$("$here/../upstream.sh" full ${LNETD_VM_KVER:+"$LNETD_VM_KVER"} 2>"$work/upstream-full.log") ||
		fail "build the whole Lustre with tests/vm/upstream.sh full" "$work/upstream-full.log"
else
	skip "no ../shared/lustre to build the whole Lustre from (set LNETD_LUSTRE_FULL)"
fi
[ -f "$full/.built" ] && [ -d "$full/modules" ] ||
	skip "no whole Lustre build at $full (../shared/lustre/build-full.sh OUTDIR; set LNETD_LUSTRE_FULL)"
kver=${LNETD_VM_KVER:-$(cat "$full/.built")}
qemu=$(command -v qemu-system-x86_64) || skip "qemu-system-x86_64 not found"
for tool in cpio gzip xz gcc; do
	command -v $tool >/dev/null || skip "$tool not found"
done
busybox=/bin/busybox
[ -x "$busybox" ] || skip "busybox not found (apt-get install busybox-static)"
vmlinuz=/boot/vmlinuz-$kver
[ -r "$vmlinuz" ] || skip "$vmlinuz not readable"
[ "$(cat "$full/.built")" = "$kver" ] || skip "$full is built for $(cat "$full/.built"), not $kver"

mkdir -p "$work/lustre-fs" || fail "create $work/lustre-fs"
work=$(cd "$work" && pwd)
lw=$work/lustre-fs

# --- shared with tests/vm/run.sh: the same steps and cache names ------------
# (the uncompressed kernel for qemu's PVH entry, the busybox tree)
vmlinux=$work/vmlinux-$kver
if [ ! -s "$vmlinux" ] || [ "$vmlinuz" -nt "$vmlinux" ]; then
	rm -f "$vmlinux"
	for off in $(grep -obUaP '\xFD7zXZ\x00' "$vmlinuz" | cut -d: -f1); do
		if tail -c +$((off + 1)) "$vmlinuz" | xz -dc --single-stream >"$vmlinux.tmp" 2>/dev/null &&
			[ "$(head -c 4 "$vmlinux.tmp" | od -An -tx1 | tr -d ' ')" = 7f454c46 ]; then
			mv "$vmlinux.tmp" "$vmlinux"
			break
		fi
	done
	rm -f "$vmlinux.tmp"
	[ -s "$vmlinux" ] || fail "extract an uncompressed kernel from $vmlinuz"
fi

# copy_with_libs FILE ROOT [DEST]: FILE at ROOT/bin (or DEST) and the shared
# libraries it loads at their own paths under ROOT.
copy_with_libs() {
	install -D -m 755 "$1" "$2${3:-/bin/${1##*/}}" || return 1
	for lib in $(LD_LIBRARY_PATH=$full/lib ldd "$1" 2>/dev/null | grep -o '/[^ ]*'); do
		case $lib in "$full"/*) continue ;; esac # Lustre's own: /usr/lib below
		[ -e "$2$lib" ] || install -D -m 755 "$(readlink -f "$lib")" "$2$lib" || return 1
	done
}

base=$work/busybox-tree
if [ ! -f "$base/.done" ] || [ "$busybox" -nt "$base/.done" ]; then
	rm -rf "$base"
	mkdir -p "$base/proc" "$base/sys" "$base/dev" "$base/tmp" "$base/usr" &&
		copy_with_libs "$busybox" "$base" &&
		for a in $("$busybox" --list); do
			[ -e "$base/bin/$a" ] || ln -s busybox "$base/bin/$a"
		done &&
		ln -s bin "$base/sbin" && ln -s ../bin "$base/usr/bin" &&
		ln -s ../bin "$base/usr/sbin" && touch "$base/.done" ||
		fail "build the busybox tree in $base"
fi

# --- lutbf: lnetd's TBF layer, for the guest --------------------------------
# Built here with the engine it needs, without a sanitizer build's flags.
prog=$lw/lutbf
srcs="$here/lutbf.c $(ls "$top"/lnetd/backend/lustre/lu-tbf*.c) $top/lnetd/backend/lustre/lustre-tbf.c $(ls "$top"/engine/*.c)"
stale=no
[ -x "$prog" ] || stale=yes
for f in $srcs "$top"/lnetd/backend/lustre/lu-tbf.h "$top"/lnetd/backend/lustre/lustre-tbf.h "$top"/engine/*.h; do
	[ "$f" -nt "$prog" ] && stale=yes
done
if [ "$stale" = yes ]; then
	# shellcheck disable=SC2086
	gcc -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
		-Wformat=2 -Wshadow -Wmissing-prototypes -Wstrict-prototypes -Werror -D_GNU_SOURCE \
		-I"$top" -o "$prog.$$" $srcs >"$lw/lutbf.log.$$" 2>&1 ||
		fail "build lutbf" "$lw/lutbf.log.$$"
	# renamed into place: make check -j runs the fs and rails modes at once
	mv -f "$prog.$$" "$prog" && rm -f "$lw/lutbf.log.$$"
fi

# --- lnetd --engine=lustre, its lnetctl and a private bus, for every guest ----
# from the build (LNETD_BUILDDIR, else the current directory: make check runs
# from the top build dir).  Upstream's lnetctl goes in as upstream-lnetctl:
# it reads back what lnetd configured, and configures nothing.
build=${LNETD_BUILDDIR:-$(pwd)}
[ -x "$build/lnetd/lnetd" ] && [ -x "$build/lnetctl/lnetctl" ] ||
	skip "lnetd is not built in $build (run from the build dir, or set LNETD_BUILDDIR)"
dbus_daemon=$(command -v dbus-daemon) && [ -r /usr/share/dbus-1/session.conf ] ||
	skip "dbus-daemon not found (apt-get install dbus-daemon)"

# --- the initramfs: one for every mode --------------------------------------
# host_module NAME ROOT: a module of the guest's kernel and what it needs.
host_module() {
	for ko in $(modprobe --show-depends -S "$kver" "$1" 2>/dev/null | awk '$1 == "insmod" { print $2 }'); do
		install -D -m 644 "$ko" "$2$ko" || return 1
	done
}

# one tree and image per mode (make check -j runs fs and rails at once)
root=$lw/root-$mode
initrd=$lw/initramfs-$mode.cpio.gz
t0=$(date +%s.%N)
rm -rf "$root"
plugindir=$(cat "$full/PLUGINDIR" 2>/dev/null || echo /usr/lib/lustre)
cp -a "$base" "$root" &&
	mkdir -p "$root/lib/modules/$kver/extra/lustre" "$root/usr/lib/x86_64-linux-gnu" \
		"$root/etc" "$root$plugindir" "$root/lib/lustre-fs" "$root/mnt" &&
	cp "$full"/modules/*.ko "$root/lib/modules/$kver/extra/lustre/" &&
	for m in $(cat "$full/host-modules") dummy virtio_net virtio_pci; do
		host_module "$m" "$root" || exit 1
	done &&
	for b in lctl lfs mount.lustre; do
		copy_with_libs "$full/bin/$b" "$root" || exit 1
	done &&
	copy_with_libs "$full/bin/lnetctl" "$root" /bin/upstream-lnetctl &&
	copy_with_libs "$build/lnetd/lnetd" "$root" && copy_with_libs "$build/lnetctl/lnetctl" "$root" &&
	copy_with_libs "$dbus_daemon" "$root" &&
	mkdir -p "$root/etc/lnetd-fs" "$root/var/lib/dbus" &&
	sed 's|<policy context="default">|&<allow user="*"/>|' \
		/usr/share/dbus-1/session.conf >"$root/etc/lnetd-fs/bus.conf" &&
	echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd" &&
	echo 'root:x:0:' >"$root/etc/group" &&
	echo 0123456789abcdef0123456789abcdef >"$root/etc/machine-id" &&
	cp -a "$full"/lib/*.so* "$root/usr/lib/x86_64-linux-gnu/" &&
	install -m 755 "$full"/plugin/*.so "$root$plugindir/" &&
	"$busybox" depmod -b "$root" "$kver" &&
	copy_with_libs "$prog" "$root" &&
	install -m 755 "$here/init" "$root/init" &&
	install -m 644 "$here/fixture.sh" "$here/guest-tbf.sh" "$here/guest-lnetd.sh" \
		"$here/bench-t3.sh" "$here/rails.sh" "$root/lib/lustre-fs/" &&
	(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$initrd" ||
	fail "build the initramfs in $root"
echo "# initramfs: $(du -m "$initrd" | cut -f1) MiB, built in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"

# --- the guests -------------------------------------------------------------
accel="-accel tcg"
[ "${LNETD_VM_KVM:-0}" = 1 ] && accel="-accel kvm -cpu host"

# guest LOG SECONDS MODE [QEMU ARGS...]: boot one guest, its console in LOG;
# in the background (guest_pid) when GUEST_BG=1.
# no_timer_check: the kernel skips its early check that the IO-APIC timer
# ticks, which a TCG guest on a loaded host can fail ("Kernel panic - not
# syncing: IO-APIC + timer doesn't work!", seen at boot beside two CPU
# burners and another rails run).
guest() {
	_log=$1 _secs=$2 _mode=$3
	shift 3
	_append="console=ttyS0 quiet panic=-1 no_timer_check LUSTRE_FS_MODE=$_mode"
	[ -n "${cpts:-}" ] && _append="$_append LUSTRE_FS_CPTS=$cpts"
	# shellcheck disable=SC2086
	timeout "$_secs" "$qemu" $accel -smp 2 -m 1024 -nodefaults -no-user-config -display none \
		-serial stdio -no-reboot -kernel "$vmlinux" -initrd "$initrd" \
		-append "$_append" "$@" </dev/null >"$_log" 2>&1 &
	guest_pid=$!
	[ "${GUEST_BG:-0}" = 1 ] && return 0
	wait "$guest_pid"
}

# tap LOG...: the guests' TAP lines numbered, their "# " lines kept, a
# verdict line per log (a guest that crashed never prints its marker).
tap() {
	awk '
	BEGIN { for (i = 1; i < ARGC; i++) { f = ARGV[i]; sub(/.*\//, "", f); seen[f] = 1 } }
	{ sub(/\r$/, "") }
	FNR == 1 { file = FILENAME; sub(/.*\//, "", file) }
	/^(not )?ok([ \t]|$)/ {
		n++
		bad = /^not ok/
		fails += bad
		sub(/^(not )?ok[ \t]*[0-9]*[ \t]*(- )?/, "")
		print (bad ? "not ok " : "ok ") n " - " file ": " $0
		next
	}
	/^LUSTRE-FS-VERDICT: / { verdict[file] = substr($0, 20); next }
	/^#/ { print; next }
	END {
		for (f in seen) {
			n++
			if (verdict[f] == "PASS") {
				print "ok " n " - " f ": the guest ran to its end and printed its verdict"
			} else {
				print "not ok " n " - " f ": the guest printed its verdict (" (verdict[f] == "" ? "none: crashed, panicked or timed out" : verdict[f]) ")"
				fails++
			}
		}
		print "1.." n
		exit fails ? 1 : 0
	}' "$@"
}

start=$(date +%s.%N)
case $mode in
fs | bench)
	cpts=${LUSTRE_FS_CPTS:-}
	[ "$mode" = fs ] && cpts=${LUSTRE_FS_CPTS:-2}
	guest "$lw/$mode.log" 900 "$mode"
	echo "# qemu exit status $?, wall $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s (cpu_npartitions ${cpts:-default})"
	# the T3 figures (bench-t3.sh's "FIGURE" lines) for make bench's report
	if [ "$mode" = bench ] && [ -n "${BENCH_FIGURES:-}" ]; then
		tr -d '\r' <"$lw/$mode.log" | grep '^FIGURE	' >>"$BENCH_FIGURES"
	fi
	tap "$lw/$mode.log"
	;;
rails)
	cpts=${LUSTRE_FS_CPTS:-2}
	# two ports on 127.0.0.1 that nothing listens on now
	base_port=$((20000 + ($$ % 20000)))
	while ss -ltn 2>/dev/null | grep -q -E ":($base_port|$((base_port + 1))) "; do
		base_port=$((base_port + 2))
	done
	rails="-netdev socket,id=r0,listen=127.0.0.1:$base_port -device virtio-net-pci,netdev=r0,mac=52:54:00:4c:00:01
		-netdev socket,id=r1,listen=127.0.0.1:$((base_port + 1)) -device virtio-net-pci,netdev=r1,mac=52:54:00:4c:01:01"
	# 1500 s for each guest: a bound on a hang, never a verdict on speed (a
	# run beside two CPU burners, load 15 on two cores, took 785 s of uptime)
	# shellcheck disable=SC2086
	GUEST_BG=1 guest "$lw/rails-server.log" 1500 rails-server $rails
	server=$guest_pid
	for _ in $(seq 100); do
		ss -ltn 2>/dev/null | grep -q ":$((base_port + 1)) " && break
		sleep 0.1
	done
	rails="-netdev socket,id=r0,connect=127.0.0.1:$base_port -device virtio-net-pci,netdev=r0,mac=52:54:00:4c:00:02
		-netdev socket,id=r1,connect=127.0.0.1:$((base_port + 1)) -device virtio-net-pci,netdev=r1,mac=52:54:00:4c:01:02"
	# shellcheck disable=SC2086
	guest "$lw/rails-client.log" 1500 rails-client $rails
	echo "# client qemu exit status $?, wall $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s (cpu_npartitions ${cpts:-default})"
	# the server powers off once the client is gone; a server that did not
	# is stopped here
	for _ in $(seq 300); do
		kill -0 "$server" 2>/dev/null || break
		sleep 0.1
	done
	kill "$server" 2>/dev/null
	wait "$server" 2>/dev/null
	tap "$lw/rails-server.log" "$lw/rails-client.log"
	;;
esac
