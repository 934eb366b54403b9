#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/vm/run.sh [WORKDIR] - the VM tier: the real lnetk module in qemu.
#
# Builds the module against the installed Debian kernel headers, the guest
# test programs against the host's libraries, an initramfs (static busybox,
# the module, the programs and their shared libraries, tests/vm/init), then
# boots the matching Debian kernel once under qemu and runs every guest case
# in that boot, then one guest per upstream Lustre version (lustre, below).
# Prints TAP: the guests' lines, numbered here, one line per guest for its
# verdict marker, and the plan.  Skips (1..0 # SKIP) when
# qemu or the kernel packages are missing; a failure to build is a failure.
#
# Where things are, first match wins:
#   source tree  $LNETD_TOP_SRCDIR, else two folders above this script
#   work dir     $1, else $LNETD_VM_WORKDIR, else tests/vm/work under the
#                current directory when it is an out-of-tree build folder
#                (make check runs tests from the top build folder), else
#                ${TMPDIR:-/tmp}/lnetd-vm-<uid>.  The source tree is never
#                written.
#   kernel       $LNETD_VM_KVER (e.g. 6.1.0-56-amd64), else the newest
#                /usr/src/linux-headers-*-amd64 with its /boot/vmlinuz-*
#   accelerator  TCG; KVM only with LNETD_VM_KVM=1 (see TESTING.md)
#   slack        LNETD_VM_SLACK (3): the guest's hang limits are each part's
#                usual time times this (a loaded host slows TCG several-fold)
#   valgrind     LNETD_VM_VALGRIND=1 runs lnetd under memcheck in the guest
#                (slow: the scale case is left out)
#   only         LNETD_VM_ONLY="fuzz refuse" runs only those guest groups
#                (genl-test's names; "rmmod", "lnetd", "dp", "interop", "caps"
#                (caps.sh) and "lnetsvc" (lnet-service.sh) for the steps after
#                them); the others print nothing.  "lustre" is the
#                lustre guests' group (below): LNETD_VM_ONLY=lustre boots only
#                them, without the lnetk guest
#   upstream     upstream Lustre's LNet for the interop group (figures of
#                the same file imported by it and by lnetd): $LNETD_VM_UPSTREAM,
#                else tests/vm/upstream.sh's cache outside the clone
#                (/var/cache/lnetd-upstream, keyed by build.sh and the
#                tarball; built there once when missing); the guest's
#                /bin/upstream-lnet load|unload and upstream-lnetctl
#                (upstream_lnet_tree below).  LNETD_VM_INTEROP_PEERS=2000,10000
#                adds the 10,000-peer figures (upstream takes 21-45 s there);
#                LNETD_VM_PERF=1 puts the host's perf in the guest to profile
#                lnetd's import and udsp add (interop-import.sh)
#   lustre       one more guest per upstream version (2.15.8, 2.16.1, 2.17.57,
#                or $LNETD_VM_LUSTRE_VERSIONS), each with that version's own
#                lnet.ko driven by lnetd's lnet.ko library and read back by
#                upstream's lnetctl (tests/vm/lustre.sh, lustre-init,
#                lustre-test.c); LNETD_VM_LUSTRE_PEERS sets the peers of its
#                scale case (1000).  Skipped without ../shared/lustre
#   fuzz         LNETK_FUZZ_SEED, _ITERS, _SECONDS, _ROUNDS reach the fuzz
#                group (cases-fuzz.c) through the kernel command line; e.g.
#                LNETD_VM_ONLY=fuzz LNETK_FUZZ_SECONDS=1800 for a long run
#   lnetd        $LNETD_BUILDDIR/lnetd/lnetd (and lnetctl/lnetctl), else the
#                current directory's when it is a build folder (make check);
#                without it (or dbus-daemon, or libsystemd's headers) the
#                lnetd cases are skipped, the module-only ones still run
#
# The work dir caches the uncompressed kernel and the busybox tree; the
# module and programs are rebuilt only when their sources change.
set -u
LC_ALL=C
export LC_ALL

skip() {
	echo "1..0 # SKIP $*"
	exit 0
}

# A step that could not be done: one failing case, the log as diagnostics.
fail() {
	echo "1..1"
	echo "not ok 1 - $1"
	[ -n "${2:-}" ] && [ -f "$2" ] && tail -n 40 "$2" | sed 's/^/# /'
	exit 1
}

# wanted_here NAME: whether LNETD_VM_ONLY (if set) leaves the guest group NAME in.
wanted_here() {
	[ -z "${LNETD_VM_ONLY:-}" ] && return 0
	case " $(echo "$LNETD_VM_ONLY" | tr ',' ' ') " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

here=$(cd "$(dirname "$0")" && pwd)
top=${LNETD_TOP_SRCDIR:-$(cd "$here/../.." && pwd)}
if [ -n "${1:-}" ]; then
	work=$1
elif [ -n "${LNETD_VM_WORKDIR:-}" ]; then
	work=$LNETD_VM_WORKDIR
elif [ -f config.status ] && [ "$(pwd -P)" != "$(cd "$top" && pwd -P)" ]; then
	work=$(pwd)/tests/vm/work # make check, in an out-of-tree build folder
else
	work=${TMPDIR:-/tmp}/lnetd-vm-$(id -u)
fi

# --- what we need -----------------------------------------------------------
qemu=$(command -v qemu-system-x86_64) ||
	skip "qemu-system-x86_64 not found (apt-get install qemu-system-x86)"
for tool in cpio gzip xz gcc pkg-config; do
	command -v $tool >/dev/null || skip "$tool not found"
done
busybox=/bin/busybox
[ -x "$busybox" ] || skip "busybox not found (apt-get install busybox-static)"
pkg-config --exists libnl-genl-3.0 ||
	skip "libnl-genl-3.0 not found (apt-get install libnl-genl-3-dev)"

if [ -n "${LNETD_VM_KVER:-}" ]; then
	kver=$LNETD_VM_KVER
else
	kver=""
	for d in $(printf '%s\n' /usr/src/linux-headers-*-amd64 | sort -rV); do
		v=${d#/usr/src/linux-headers-}
		if [ -r "/boot/vmlinuz-$v" ]; then
			kver=$v
			break
		fi
	done
	[ -n "$kver" ] ||
		skip "no kernel with headers (apt-get install linux-image-amd64 linux-headers-amd64)"
fi
kdir=/usr/src/linux-headers-$kver
vmlinuz=/boot/vmlinuz-$kver
[ -d "$kdir" ] || skip "$kdir not found"
[ -r "$vmlinuz" ] || skip "$vmlinuz not readable"

mkdir -p "$work" || fail "create the work dir $work"
work=$(cd "$work" && pwd)

# Which boots: the lnetk guest (every group but "lustre") and the lustre
# guests (tests/vm/lustre.sh, one per upstream version).
main=yes
lustre=yes
if [ -n "${LNETD_VM_ONLY:-}" ]; then
	main=no
	lustre=no
	for g in $(echo "$LNETD_VM_ONLY" | tr ',' ' '); do
		case $g in lustre) lustre=yes ;; *) main=yes ;; esac
	done
fi
lustre_skip=""
if [ "$lustre" = yes ] && ! "$here/upstream.sh" --where >/dev/null 2>&1; then
	lustre_skip="no ../shared/lustre to build upstream's lnet.ko from (set LNETD_LUSTRE_DIR)"
fi

# --- the kernel: the xz stream inside the bzImage, for qemu's PVH entry ------
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


# --- the initramfs ----------------------------------------------------------
# copy_with_libs FILE ROOT: FILE and the shared libraries it loads, at the
# same paths under ROOT (nothing for a static binary).
copy_with_libs() {
	install -D -m 755 "$1" "$2/bin/${1##*/}" || return 1
	for lib in $(ldd "$1" 2>/dev/null | grep -o '/[^ ]*'); do
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

# lnet_tree ROOT: lnetd, lnetctl (else busctl), a private bus's dbus-daemon
# and its configuration (the stock session policy, as tests/integration/lib.sh
# has it: its eavesdrop rules let method replies through), the dummy driver,
# and lnetd-test.

# --- the lnetk guest: its module, programs and initramfs ----------------------
main_prepare() {
	# --- the module -------------------------------------------------------------
	"$top/kernel/stage.sh" "$top/kernel" "$work/kmod" &&
		make -s -C "$kdir" M="$work/kmod" LNETK_DEBUG=y -j"$(nproc)" modules >"$work/kmod.log" 2>&1 ||
		fail "build lnetk.ko against $kdir" "$work/kmod.log"

	# A request source in a module of its own, on lnetk's exported symbols.
	mkdir -p "$work/nrs-src" &&
		ln -sfn "$here/nrs-src/Kbuild" "$work/nrs-src/Kbuild" &&
		ln -sfn "$here/nrs-src/lnetk_nrs_src.c" "$work/nrs-src/lnetk_nrs_src.c" &&
		make -s -C "$kdir" M="$work/nrs-src" LNETK_SRC="$top" \
			KBUILD_EXTRA_SYMBOLS="$work/kmod/Module.symvers" modules >"$work/nrs-src.log" 2>&1 ||
		fail "build lnetk_nrs_src.ko against $kdir" "$work/nrs-src.log"
	# A user of the in-kernel LNet API (lnetk_api.h), for the data-path group.
	mkdir -p "$work/api-src" &&
		ln -sfn "$here/api-src/Kbuild" "$work/api-src/Kbuild" &&
		ln -sfn "$here/api-src/lnetk_api_test.c" "$work/api-src/lnetk_api_test.c" &&
		make -s -C "$kdir" M="$work/api-src" LNETK_SRC="$top" \
			KBUILD_EXTRA_SYMBOLS="$work/kmod/Module.symvers" modules >"$work/api-src.log" 2>&1 ||
		fail "build lnetk_api_test.ko against $kdir" "$work/api-src.log"

	# --- the guest programs -----------------------------------------------------
	# Built here, not by automake: they run only in the guest, so they must not
	# carry the sanitizers of a --enable-sanitizers build, and the tier has to
	# run by hand too.  One program, genl-test, with a subcommand per group of
	# cases; it links lnetk-client (the binding lnetd uses), the scenario
	# parser the unit tier shares, and the engine with its scenario backend, to
	# compare the module's explanations with the engine's.
	prog=$work/genl-test
	srcs="$here/genl-test.c $here/vm-util.c $here/cases-api.c $here/cases-api-objs.c $here/cases-refuse.c
		$here/cases-perm.c $here/cases-scale.c $here/cases-explain.c $here/cases-tbf.c
		$here/cases-source.c $here/cases-lock.c $here/cases-fuzz.c $here/fuzz-spec.c
		$here/fuzz-gen.c $here/fuzz-check.c $here/fuzz-taken.c
		$here/scn-kernel.c
		$(ls "$top"/liblnetk/*.c) $top/tests/lib/scenario.c $top/tests/unit/scn-engine.c
		$(ls "$top"/engine/*.c)"
	deps="$srcs $here/vm.h $here/fuzz.h $here/scn-kernel.h $(ls "$top"/liblnetk/*.h)
		$top/tests/lib/scenario.h $top/tests/unit/scn-engine.h $top/kernel/uapi/lnetk.h
		$(ls "$top"/engine/*.h)"
	stale=no
	[ -x "$prog" ] || stale=yes
	for f in $deps; do
		[ "$f" -nt "$prog" ] && stale=yes
	done
	if [ "$stale" = yes ]; then
		# shellcheck disable=SC2046,SC2086
		gcc -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
			-Wformat=2 -Wshadow -Wmissing-prototypes -Wstrict-prototypes -Werror \
			-I"$top" \
			$(pkg-config --cflags libnl-genl-3.0) \
			-o "$prog" $srcs $(pkg-config --libs libnl-genl-3.0) \
			>"$work/genl-test.log" 2>&1 ||
			fail "build genl-test" "$work/genl-test.log"
	fi

	# The lnetd cases: lnetd and lnetctl come from the build (make check builds
	# them first); lnetd-test drives them over D-Bus and reads the module with
	# lnetk-client.
	build=${LNETD_BUILDDIR:-$(pwd)}
	lnetd_bin=$build/lnetd/lnetd
	lnetctl_bin=$build/lnetctl/lnetctl
	dbus_daemon=$(command -v dbus-daemon || true)
	iproute_ip=$(command -v ip || echo /usr/sbin/ip)
	lprog=$work/lnetd-test
	lnetd_skip=""
	if [ ! -x "$lnetd_bin" ]; then
		lnetd_skip="lnetd is not built (set LNETD_BUILDDIR)"
	elif [ -z "$dbus_daemon" ] || [ ! -r /usr/share/dbus-1/session.conf ]; then
		lnetd_skip="dbus-daemon not found (apt-get install dbus-daemon)"
	elif ! pkg-config --exists libsystemd; then
		lnetd_skip="libsystemd not found (apt-get install libsystemd-dev)"
	elif [ ! -x "$lnetctl_bin" ] && ! command -v busctl >/dev/null; then
		lnetd_skip="neither lnetctl nor busctl to configure lnetd with"
	fi
	if [ -z "$lnetd_skip" ]; then
		lsrcs="$here/lnetd-test.c $here/lnetd-text.c $here/lnetd-cases.c $here/lnetd-cases-scale.c
			$here/vm-util.c $here/cases-scale.c $(ls "$top"/liblnetk/*.c)"
		stale=no
		[ -x "$lprog" ] || stale=yes
		for f in $lsrcs $here/vm.h $here/lnetd-test.h $(ls "$top"/liblnetk/*.h) $top/kernel/uapi/lnetk.h; do
			[ "$f" -nt "$lprog" ] && stale=yes
		done
		if [ "$stale" = yes ]; then
			# shellcheck disable=SC2046,SC2086
			gcc -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
				-Wformat=2 -Wshadow -Wmissing-prototypes -Wstrict-prototypes -Werror \
				-I"$top" \
				$(pkg-config --cflags libnl-genl-3.0 libsystemd) \
				-o "$lprog" $lsrcs $(pkg-config --libs libnl-genl-3.0 libsystemd) \
				>"$work/lnetd-test.log" 2>&1 ||
				fail "build lnetd-test" "$work/lnetd-test.log"
		fi
	fi

	# The big configuration (64 NIs, 50,000 peers, 1,000 rules) for the restore
	# at lnetd's start: a store filled here by the lnetd under test, from one
	# Apply (a few seconds natively; most of a minute under TCG, all of it in
	# SQLite).  It needs a bus and the right to change lnetd's configuration
	# (root); without them the guest skips that case.
	big=$work/lnetd-big
	if [ -z "$lnetd_skip" ] && { [ ! -s "$big/lnetd.db" ] || [ "$lnetd_bin" -nt "$big/lnetd.db" ] ||
		[ "$lprog" -nt "$big/lnetd.db" ]; }; then
		rm -rf "$big" "$work/fill.log"
		sed 's|<policy context="default">|&<allow user="*"/>|' \
			/usr/share/dbus-1/session.conf >"$work/bus.conf" &&
			timeout 300 "$lprog" fill "$work" "$lnetd_bin" "$dbus_daemon" >"$work/fill.out" 2>&1 ||
			rm -rf "$big"
	fi

	# --- upstream Lustre's LNet, for figures beside lnetd + lnetk ---------------
	# $LNETD_VM_UPSTREAM, else the cache of upstream builds outside the clone
	# (tests/vm/upstream.sh: keyed by build.sh and the tarball, built there
	# once when missing, about 3 minutes); without ../shared/lustre the
	# guest skips the interop group.
	upstream_skip=""
	if ! wanted_here interop && ! wanted_here dp && ! wanted_here caps &&
		! wanted_here lnetsvc; then
		upstream_skip="not asked for (LNETD_VM_ONLY)"
	elif [ -n "${LNETD_VM_UPSTREAM:-}" ]; then
		upstream=$LNETD_VM_UPSTREAM
	elif ! "$here/upstream.sh" --where >/dev/null 2>&1; then
		upstream_skip="no ../shared/lustre to build upstream LNet with"
	else
		upstream=$("$here/upstream.sh" 2.17.57 "$kver" 2>"$work/upstream.log") ||
			fail "build upstream LNet with tests/vm/upstream.sh" "$work/upstream.log"
	fi


	lnetd_tree() {
		copy_with_libs "$lnetd_bin" "$1" && copy_with_libs "$dbus_daemon" "$1" &&
			copy_with_libs "$lprog" "$1" || return 1
		if [ -x "$lnetctl_bin" ]; then
			copy_with_libs "$lnetctl_bin" "$1" || return 1
		else
			copy_with_libs "$(command -v busctl)" "$1" || return 1
		fi
		dummy=$(find "/lib/modules/$kver/kernel/drivers/net" -name 'dummy.ko*' | head -n 1)
		veth=$(find "/lib/modules/$kver/kernel/drivers/net" -name 'veth.ko*' | head -n 1)
		# the data path's group (dp.sh): veth rails between namespaces, made
		# with iproute2's ip (busybox's has no netns), as /bin/ip2
		[ -n "$veth" ] && [ -x "$iproute_ip" ] &&
			install -D -m 644 "$veth" "$1/lib/modules/$kver/kernel/drivers/net/${veth##*/}" &&
			copy_with_libs "$iproute_ip" "$1" && mv "$1/bin/ip" "$1/bin/ip2" &&
			install -m 755 "$here/dp.sh" "$1/bin/dp.sh" || return 1
		# the capability runs (caps.sh): util-linux's setpriv as setpriv2 (busybox's
		# sh would run its own applet, which has no --bounding-set), iproute2's ss,
		# the units as built
		copy_with_libs "$(command -v setpriv)" "$1" && mv "$1/bin/setpriv" "$1/bin/setpriv2" &&
			copy_with_libs "$(command -v ss)" "$1" &&
			install -D -m 755 "$here/caps.sh" "$1/opt/lnetd/tests/vm/caps.sh" &&
			install -D -m 644 "$top/tests/lib/caps.sh" "$1/opt/lnetd/tests/lib/caps.sh" || return 1
		for u in lnetd.service lnetd-lustre.service lnetd-userspace.service \
			lnet.service.d/lnetd.conf; do
			install -D -m 644 "$build/systemd/$u" "$1/opt/lnetd/systemd/$u" || return 1
		done
		# what Lustre's lnet.service runs (lnet-service.sh): its unit from the
		# 2.17.57 tarball, with the paths a Lustre package gives it
		install -D -m 755 "$here/lnet-service.sh" "$1/opt/lnetd/tests/vm/lnet-service.sh" ||
			return 1
		lustre_src=$("$here/upstream.sh" --where 2>/dev/null)/lustre-release-c881f8eb.tar.xz
		if [ -r "$lustre_src" ]; then
			tar -xJOf "$lustre_src" --wildcards '*/lustre/scripts/systemd/lnet.service.in' |
				sed -e 's|@sbindir@|/usr/sbin|g' -e 's|@sysconfdir@|/etc|g' \
					>"$1/opt/lnetd/systemd/lnet.service" || return 1
		fi
		# the data path's figures with lnetk nodes (LNETD_VM_ONLY=dpbench): bench/dp.sh,
		# the namespace helpers and the figure, trace and plot helpers it
		# sources, tcp-rr (make bench builds it) and iproute2's tc as /bin/tc2
		# (busybox's applet would answer to tc)
		install -D -m 755 "$top/bench/dp.sh" "$1/opt/lnetd/bench/dp.sh" &&
			install -D -m 755 "$top/bench/tbf-live.sh" "$1/opt/lnetd/bench/tbf-live.sh" &&
			install -D -m 755 "$top/bench/health.sh" "$1/opt/lnetd/bench/health.sh" &&
			for f in figure.sh trace.sh plot.sh; do
				install -D -m 644 "$top/bench/$f" "$1/opt/lnetd/bench/$f" || return 1
			done &&
			install -D -m 644 "$top/tests/integration/nodes.sh" \
				"$1/opt/lnetd/tests/integration/nodes.sh" &&
			install -D -m 644 "$top/tests/integration/tbf-live-lib.sh" \
				"$1/opt/lnetd/tests/integration/tbf-live-lib.sh" || return 1
		# tbf-live.sh's server is on a bridge
		for m in net/llc/llc net/802/stp net/bridge/bridge; do
			ko=$(find "/lib/modules/$kver/kernel/${m%/*}" -maxdepth 1 -name "${m##*/}.ko*" | head -n 1)
			[ -z "$ko" ] || install -D -m 644 "$ko" "$1/lib/modules/$kver/kernel/${m%/*}/${ko##*/}" ||
				return 1
		done
		if [ -x "$build/bench/tcp-rr" ]; then copy_with_libs "$build/bench/tcp-rr" "$1" || return 1; fi
		# D5's raw TCP (bench/dp.sh): iperf3, with libiperf and what it loads
		iperf=$(command -v iperf3 || true)
		if [ -n "$iperf" ]; then copy_with_libs "$iperf" "$1" || return 1; fi
		tc_bin=$(command -v tc || echo /usr/sbin/tc)
		tbf=$(find "/lib/modules/$kver/kernel/net/sched" -name 'sch_tbf.ko*' | head -n 1)
		if [ -x "$tc_bin" ] && [ -n "$tbf" ]; then
			copy_with_libs "$tc_bin" "$1" && mv "$1/bin/tc" "$1/bin/tc2" &&
				install -D -m 644 "$tbf" "$1/lib/modules/$kver/kernel/net/sched/${tbf##*/}" ||
				return 1
		fi
		[ -n "$dummy" ] &&
			install -D -m 644 "$dummy" "$1/lib/modules/$kver/kernel/drivers/net/${dummy##*/}" &&
			mkdir -p "$1/etc/lnetd-vm" "$1/var/lib/dbus" &&
			sed 's|<policy context="default">|&<allow user="*"/>|' \
				/usr/share/dbus-1/session.conf >"$1/etc/lnetd-vm/bus.conf" &&
			echo 'root:x:0:0:root:/root:/bin/sh' >"$1/etc/passwd" &&
			echo 'root:x:0:' >"$1/etc/group" &&
			echo 0123456789abcdef0123456789abcdef >"$1/etc/machine-id" || return 1
		if [ -s "$big/lnetd.db" ]; then
			mkdir -p "$1/data" && cp -a "$big" "$1/data/lnetd-big" || return 1
		fi
		if [ "${LNETD_VM_VALGRIND:-0}" = 1 ]; then
			vgl=/usr/libexec/valgrind
			[ -x /usr/bin/valgrind.bin ] || return 1
			copy_with_libs /usr/bin/valgrind.bin "$1" && mkdir -p "$1$vgl" &&
				cp "$vgl/memcheck-amd64-linux" "$vgl/vgpreload_core-amd64-linux.so" \
					"$vgl/vgpreload_memcheck-amd64-linux.so" "$vgl/default.supp" "$1$vgl/" &&
				touch "$1/lnetd-valgrind" || return 1
			# memcheck needs ld.so's symbols: its detached ones (libc6-dbg), by build id.
			id=$(readelf -n "$(readlink -f /lib64/ld-linux-x86-64.so.2)" |
				sed -n 's/.*Build ID: \(..\)\(.*\)/\1\/\2/p')
			[ -r "/usr/lib/debug/.build-id/$id.debug" ] ||
				{ echo "LNETD_VM_VALGRIND needs libc6-dbg" >&2 && return 1; }
			install -D -m 644 "/usr/lib/debug/.build-id/$id.debug" \
				"$1/usr/lib/debug/.build-id/$id.debug"
		fi
	}

	# upstream_lnet_tree ROOT: upstream's LNet in the guest, for any case that
	# wants it beside lnetk: its modules under /lib/modules/KVER/extra/upstream/
	# with Debian's sunrpc.ko (lnet.ko needs it; depmod, run below, finds them,
	# so `modprobe lnet` works), its lnetctl under /opt/upstream/ with
	# liblnetconfig and the host libraries it loads, run as upstream-lnetctl
	# (/bin/lnetctl stays lnetd's), and upstream-lnet load|unload.
	upstream_lnet_tree() {
		sunrpc=$(find "/lib/modules/$kver/kernel/net/sunrpc" -maxdepth 1 -name 'sunrpc.ko*' | head -n 1)
		[ -n "$sunrpc" ] &&
			install -D -m 644 "$sunrpc" "$1/lib/modules/$kver/kernel/net/sunrpc/${sunrpc##*/}" &&
			mkdir -p "$1/lib/modules/$kver/extra/upstream" "$1/opt/upstream/bin" \
				"$1/opt/upstream/lib" &&
			cp "$upstream"/modules/*.ko "$1/lib/modules/$kver/extra/upstream/" &&
			install -m 755 "$upstream/bin/lnetctl" "$1/opt/upstream/bin/lnetctl" &&
			cp -a "$upstream"/lib/liblnetconfig.so* "$1/opt/upstream/lib/" || return 1
		for lib in $(LD_LIBRARY_PATH=$upstream/lib ldd "$upstream/bin/lnetctl" | grep -o '/[^ ]*'); do
			case $lib in "$upstream"/*) continue ;; esac
			[ -e "$1$lib" ] || install -D -m 755 "$(readlink -f "$lib")" "$1$lib" || return 1
		done
		printf '#!/bin/sh\nLD_LIBRARY_PATH=/opt/upstream/lib exec /opt/upstream/bin/lnetctl "$@"\n' \
			>"$1/bin/upstream-lnetctl" && chmod 755 "$1/bin/upstream-lnetctl" &&
			install -m 755 "$here/upstream-lnet" "$1/bin/upstream-lnet"
	}

	root=$work/root
	rm -rf "$root"
	cp -a "$base" "$root" &&
		install -D -m 644 "$work/kmod/lnetk.ko" "$root/lib/modules/$kver/extra/lnetk.ko" &&
		install -D -m 644 "$work/nrs-src/lnetk_nrs_src.ko" \
			"$root/lib/modules/$kver/extra/lnetk_nrs_src.ko" &&
		install -D -m 644 "$work/api-src/lnetk_api_test.ko" \
			"$root/lib/modules/$kver/extra/lnetk_api_test.ko" &&
		{ [ -n "$lnetd_skip" ] || lnetd_tree "$root"; } &&
		{ [ -n "$upstream_skip" ] || upstream_lnet_tree "$root"; } &&
		"$busybox" depmod -b "$root" "$kver" &&
		copy_with_libs "$prog" "$root" &&
		install -D -m 644 "$top/tests/data/select-conformance.scn" \
			"$root/data/select-conformance.scn" &&
		install -m 755 "$here/init" "$root/init" &&
		{ [ -z "$lnetd_skip" ] || echo "$lnetd_skip" >"$root/lnetd-skip"; } &&
		{ [ -z "$upstream_skip" ] || echo "$upstream_skip" >"$root/upstream-skip"; } &&
		install -m 755 "$here/interop-import.sh" "$root/bin/interop-import.sh" &&
		{ [ -z "${LNETD_VM_PERF:-}" ] || copy_with_libs /usr/bin/perf "$root"; } &&
		(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$work/initramfs.cpio.gz" ||
		fail "build the initramfs in $root"

}
if [ "$main" = yes ]; then
	main_prepare
fi

# --- one boot, every case ---------------------------------------------------
accel="-accel tcg"
[ "${LNETD_VM_KVM:-0}" = 1 ] && accel="-accel kvm -cpu host"
# the guest's own limits are its parts' times LNETD_VM_SLACK (3; init)
slack=${LNETD_VM_SLACK:-3}
case $slack in '' | *[!0-9]*) slack=3 ;; esac
outer=$((900 * slack))
[ "${LNETD_VM_VALGRIND:-0}" = 1 ] && outer=$((2700 * slack))
# What the guest's /init reads from its environment, which the kernel
# fills from the words of its command line that it does not know.
# no_timer_check: the kernel's boot-time check that the IO-APIC timer ticks
# counts ticks against a busy loop; on a loaded host a TCG guest misses them
# and panics ("IO-APIC + timer doesn't work!", seen with a load of 14 on two
# cores).  The check is for broken chipsets, which qemu's is not.
append='console=ttyS0 quiet panic=-1 no_timer_check'
for v in LNETD_VM_ONLY LNETD_VM_SLACK LNETK_FUZZ_SEED LNETK_FUZZ_ITERS LNETK_FUZZ_SECONDS LNETK_FUZZ_ROUNDS \
	LNETD_VM_INTEROP_PEERS LNETD_VM_PERF; do
	val=$(printenv "$v" | tr -c 'A-Za-z0-9_\n-' ',' | tr -d '\n')
	[ -n "$val" ] && append="$append $v=$val"
done
outer=$((outer + ${LNETK_FUZZ_SECONDS:-0}))
case ${LNETD_VM_INTEROP_PEERS:-} in *0000*) outer=$((outer + 600)) ;; esac
start=$(date +%s.%N)
# 1 GiB: the scale cases hold two instances of 100,000 peer NIDs and a
# multi-megabyte batch.  The guest's groups time out on their own (init);
# this outer limit only catches a guest that hangs as a whole.  Each boot
# is announced (LNETK-VM-BOOT) so that the count below wants a PASS of each.
{
	if [ "$main" = yes ]; then
		echo "LNETK-VM-BOOT: lnetk"
		# shellcheck disable=SC2086
		timeout "$outer" "$qemu" $accel -m 1024 -nodefaults -no-user-config -display none \
			-serial stdio -no-reboot -kernel "$vmlinux" -initrd "$work/initramfs.cpio.gz" \
			-append "$append" </dev/null 2>&1
		echo "# lnetk guest: qemu exit status $?"
	fi
	if [ "$lustre" = yes ] && [ -n "$lustre_skip" ]; then
		echo "ok - the lustre guests # SKIP $lustre_skip"
	elif [ "$lustre" = yes ]; then
		bash "$here/lustre.sh" "$work" "$kver" "$vmlinux" "$base"
	fi
} | tee "$work/console.log" | awk -v start="$start" '
	{ sub(/\r$/, "") }
	/^(not )?ok([ \t]|$)/ {
		n++
		bad = /^not ok/
		fails += bad
		sub(/^(not )?ok[ \t]*[0-9]*[ \t]*/, "")
		print (bad ? "not ok " : "ok ") n ($0 == "" ? "" : " " $0)
		fflush()
		next
	}
	/^LNETK-VM-BOOT: / { check(); boot = substr($0, 16); boots++; verdict = ""; next }
	/^LNETK-VM-VERDICT: / { verdict = substr($0, 19); next }
	/^#/ { print; fflush(); next }
	/./ { print "# " $0; fflush() }
	function check() {
		if (boot == "")
			return
		n++
		if (verdict == "PASS") {
			print "ok " n " - the " boot " guest ran every case and printed its verdict"
		} else {
			if (verdict == "")
				verdict = "none: the guest crashed, panicked or timed out"
			print "not ok " n " - the " boot " guest ran every case and printed its verdict (" verdict ")"
			fails++
		}
		boot = ""
	}
	END {
		check()
		"date +%s.%N" | getline now
		printf "# boots and cases: %.1f s\n", now - start
		if (!n) {
			print "1..0 # SKIP no guest was asked for"
			exit 0
		}
		print "1.." n
		exit fails ? 1 : 0
	}'
