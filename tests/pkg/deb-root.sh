#!/bin/sh
# tests/pkg/deb-root.sh ROOT DEBS LOG - tests/pkg/deb.sh's installs, in ROOT (a
# Debian 12 that mmdebstrap made; run as its customize hook, on the host,
# with ROOT's /proc, /sys and /dev mounted), from the packages in the
# folder DEBS: lnetd.deb, lnetd-next.deb (the same at a later version),
# lnetk-dkms.deb and two stand-ins of Lustre's packages that deb.sh made:
# lustre-utils.deb (Lustre's /usr/sbin/lnetctl, its manual page and its
# lnet.service, the shape of upstream's) and lustre-ko.deb (an lnet.ko
# only).  Prints TAP lines without numbers ("ok - ..."); deb.sh numbers
# them.  Every step's output is in LOG.
#
#   1. Without Lustre: lnetd.service is the one enabled, nothing of
#      Lustre's appears; reinstalling keeps it; once the administrator
#      switches to lnetd-userspace.service an upgrade keeps that; purge
#      leaves no file, link, state or diversion.
#   2. Beside Lustre's utils and unit: lnetd-lustre.service is the one
#      enabled, Lustre's lnetctl and its page are diverted to
#      lnetctl.lustre, lnet.service with lnetd's drop-in only runs
#      `lnetctl lnet configure` after lnetd-lustre.service; purge gives
#      Lustre everything back as it was.
#   3. Beside an lnet.ko alone: lnetd-lustre.service too.
#   4. lnetk-dkms registers with DKMS and goes again.
set -u
R=$1
D=$2
log=$3
: >"$log"
ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; }
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }
# check DESCRIPTION COMMAND...: a TAP line from the command's status; its
# output, on failure, as diagnostics
check() {
	_d=$1
	shift
	if "$@" >"$R/tmp/check.out" 2>&1; then ok "$_d"; else
		not_ok "$_d"
		diag "$(cat "$R/tmp/check.out")"
	fi
}
# in_root COMMAND...: COMMAND in ROOT, its output in the log
in_root() {
	echo "## $*" >>"$log"
	chroot "$R" env DEBIAN_FRONTEND=noninteractive PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@" \
		>>"$log" 2>&1
}
out_root() { chroot "$R" env PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@" 2>&1; }

cp "$D"/*.deb "$R/tmp/"
sys=$R/etc/systemd/system
units="lnetd.service lnetd-lustre.service lnetd-userspace.service"

# only_enabled UNIT: UNIT is the one of the three enabled (its link in
# multi-user.target.wants and the alias dbus-org.lnetd1.service pointing at
# it), the other two have no link
only_enabled() {
	_bad=0
	for _u in $units; do
		if [ "$_u" = "$1" ]; then
			[ -L "$sys/multi-user.target.wants/$_u" ] ||
				{ echo "no $_u in multi-user.target.wants" && _bad=1; }
		else
			[ ! -e "$sys/multi-user.target.wants/$_u" ] && [ ! -L "$sys/multi-user.target.wants/$_u" ] ||
				{ echo "$_u is in multi-user.target.wants too" && _bad=1; }
		fi
	done
	_a=$(readlink "$sys/dbus-org.lnetd1.service")
	[ "${_a##*/}" = "$1" ] || { echo "the alias points at '$_a'" && _bad=1; }
	systemctl --root="$R" is-enabled "$1" | grep -qx enabled ||
		{ echo "systemctl is-enabled $1: $(systemctl --root="$R" is-enabled "$1")" && _bad=1; }
	[ $_bad = 0 ] || ls -lR "$sys"
	return $_bad
}
# nothing_of_lnetd: no lnetd file, unit link, deb-systemd-helper state or diversion
nothing_of_lnetd() {
	_left=$(
		find "$R/etc/systemd" "$R/var/lib/systemd" "$R/lib/systemd" "$R/usr/sbin" \
			"$R/usr/share" "$R/var/lib/lnetd" -name '*lnetd*' 2>/dev/null
		out_root dpkg-divert --list lnetd
	)
	[ -z "$_left" ] || {
		echo "left: $_left"
		return 1
	}
}
# lnet_service KEY: the values lnet.service's KEY= takes, its drop-ins
# applied (an empty assignment starts the list again), one a line
lnet_service() {
	systemd-analyze --root="$R" cat-config systemd/system/lnet.service |
		awk -v k="$1" 'index($0, k "=") == 1 {
			v = substr($0, length(k) + 2)
			if (v == "") n = 0; else l[++n] = v
		} END { for (i = 1; i <= n; i++) print l[i] }'
}

# --- 1. without Lustre --------------------------------------------------------
in_root apt-get install -y -q --no-install-recommends /tmp/lnetd.deb
check "without Lustre: apt installs lnetd with its dependencies" test $? = 0
check "lnetd.service is the one enabled" only_enabled lnetd.service
check "its lnetctl is /usr/sbin/lnetctl" sh -c 'chroot "$1" /usr/sbin/lnetctl --version | grep -q lnetctl' - "$R"
check "nothing of Lustre's appears (no lnetctl.lustre, no lnet.service)" sh -c \
	'! ls -d "$1"/usr/sbin/lnetctl.lustre "$1"/usr/share/man/man8/lnetctl.lustre.8.gz \
		"$1"/lib/systemd/system/lnet.service 2>/dev/null | grep .' - "$R"
in_root dpkg -i /tmp/lnetd.deb
check "reinstalling the same version works" test $? = 0
check "and keeps lnetd.service the one enabled" only_enabled lnetd.service
# The administrator's choice (lnetd(8), ENGINES AND UNITS), offline.
systemctl --root="$R" disable lnetd.service >>"$log" 2>&1 &&
	systemctl --root="$R" enable lnetd-userspace.service >>"$log" 2>&1
check "the administrator switches to lnetd-userspace.service" only_enabled lnetd-userspace.service
in_root dpkg -i /tmp/lnetd-next.deb
check "an upgrade to a later version works" sh -c 'test $1 = 0 &&
	chroot "$2" dpkg-query -W -f="\${Version}" lnetd | grep -q "+upgrade1$"' - $? "$R"
check "and keeps the administrator's lnetd-userspace.service, only" \
	only_enabled lnetd-userspace.service
in_root apt-get purge -y -q lnetd
check "apt purges lnetd" test $? = 0
check "leaving no file, unit link, helper state or diversion of lnetd's" nothing_of_lnetd
check "and no /usr/sbin/lnetctl, as before" test ! -e "$R/usr/sbin/lnetctl"

# --- 2. beside Lustre's utils and unit ----------------------------------------------
in_root dpkg -i /tmp/lustre-utils.deb
check "Lustre's stand-in installs (lnetctl, lnetctl(8), lnet.service)" test $? = 0
lustre_sums=$(cd "$R" && md5sum usr/sbin/lnetctl usr/share/man/man8/lnetctl.8.gz \
	lib/systemd/system/lnet.service)
lustre_start=$(lnet_service ExecStart)
check "its lnet.service runs modprobe, lnet configure and import" \
	test "$(echo "$lustre_start" | wc -l)" = 3
in_root apt-get install -y -q --no-install-recommends /tmp/lnetd.deb
check "beside Lustre: apt installs lnetd" test $? = 0
check "Lustre's lnetctl is kept as lnetctl.lustre" \
	sh -c 'chroot "$1" /usr/sbin/lnetctl.lustre | grep -qx "lustre lnetctl"' - "$R"
check "and its manual page as lnetctl.lustre.8.gz" \
	sh -c 'zcat "$1"/usr/share/man/man8/lnetctl.lustre.8.gz | grep -q "Lustre stand-in"' - "$R"
check "lnetd's lnetctl is /usr/sbin/lnetctl" \
	sh -c 'chroot "$1" /usr/sbin/lnetctl --version | grep -q lnetctl' - "$R"
check "and its page lnetctl.8.gz" \
	sh -c '! zcat "$1"/usr/share/man/man8/lnetctl.8.gz | grep -q "Lustre stand-in"' - "$R"
check "dpkg-divert lists both diversions" \
	test "$(out_root dpkg-divert --list lnetd | grep -c 'lnetctl.*lnetctl.lustre')" = 2
check "lnetd-lustre.service is the one enabled" only_enabled lnetd-lustre.service
check "lnet.service.d/lnetd.conf is installed" \
	test -f "$R/lib/systemd/system/lnet.service.d/lnetd.conf"
check "lnet.service now runs only lnetd's lnetctl lnet configure" \
	test "$(lnet_service ExecStart)" = "/usr/sbin/lnetctl lnet configure"
# The enabled unit by the alias it holds: naming lnetd-lustre.service would
# stop an lnetd.service the admin chose (they conflict).
check "after the enabled lnetd (its alias)" \
	sh -c 'echo "$1" | tr " " "\n" | grep -qx dbus-org.lnetd1.service' - "$(lnet_service After)"
check "which it wants" \
	sh -c 'echo "$1" | tr " " "\n" | grep -qx dbus-org.lnetd1.service' - "$(lnet_service Wants)"
check "the alias is lnetd-lustre.service here" \
	test "$(readlink "$R/etc/systemd/system/dbus-org.lnetd1.service")" = /lib/systemd/system/lnetd-lustre.service
check "and it no longer unloads LNet on stop (no ExecStop)" test -z "$(lnet_service ExecStop)"
check "dpkg --verify finds Lustre's files unchanged" out_root dpkg --verify lustre-client-utils
in_root apt-get purge -y -q lnetd
check "apt purges lnetd beside Lustre" test $? = 0
check "Lustre's lnetctl is back at /usr/sbin/lnetctl" \
	sh -c 'chroot "$1" /usr/sbin/lnetctl | grep -qx "lustre lnetctl"' - "$R"
check "Lustre's files are as they were" \
	test "$(cd "$R" && md5sum usr/sbin/lnetctl usr/share/man/man8/lnetctl.8.gz \
		lib/systemd/system/lnet.service)" = "$lustre_sums"
check "no lnetctl.lustre is left" sh -c '! ls "$1"/usr/sbin/lnetctl.lustre* \
	"$1"/usr/share/man/man8/lnetctl.lustre* 2>/dev/null | grep .' - "$R"
check "nor any file, unit link, helper state or diversion of lnetd's" nothing_of_lnetd
check "the drop-in is gone" test ! -e "$R/lib/systemd/system/lnet.service.d/lnetd.conf"
check "lnet.service runs what it ran before" test "$(lnet_service ExecStart)" = "$lustre_start"
in_root apt-get purge -y -q lustre-client-utils

# --- 3. beside an lnet.ko alone ----------------------------------------------------
in_root dpkg -i /tmp/lustre-ko.deb &&
	in_root apt-get install -y -q --no-install-recommends /tmp/lnetd.deb
check "beside an lnet.ko alone (no lnet.service), lnetd installs" test $? = 0
check "with lnetd-lustre.service the one enabled" only_enabled lnetd-lustre.service
in_root apt-get purge -y -q lnetd lustre-modules-standin
rc=$?
check "and both purge, leaving nothing of lnetd's" eval 'test $rc = 0 && nothing_of_lnetd'

# --- 4. lnetk-dkms --------------------------------------------------------------------
# (no kernel headers here, so DKMS builds nothing)
in_root apt-get install -y -q /tmp/lnetk-dkms.deb
check "lnetk-dkms installs" test $? = 0
check "and registers lnetk with DKMS" sh -c 'chroot "$1" dkms status | grep -q "^lnetk"' - "$R"
in_root apt-get purge -y -q lnetk-dkms
check "and purges" test $? = 0
check "leaving nothing with DKMS or in /usr/src" sh -c \
	'! chroot "$1" dkms status 2>/dev/null | grep -q "^lnetk" && ! ls -d "$1"/usr/src/lnetk-* 2>/dev/null' \
	- "$R"
echo "ok - the installs ran to their end"
exit 0
