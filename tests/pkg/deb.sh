#!/bin/sh
# The Debian package, as a packager builds it: dpkg-buildpackage -us -uc as
# a normal user (nobody, when the test runs as root) from a clean copy of
# the tree, lintian with no error, and what the packages hold: lnetd the
# daemon, lnetctl in /usr/sbin, the three units and the drop-in for
# Lustre's lnet.service, D-Bus and polkit files, the man pages and
# completion, the diversion of Lustre's lnetctl, one unit enabled; lnetk-dkms
# the DKMS tree, all of it at configure.ac's version.  Then, as root with
# mmdebstrap, installed, upgraded and purged in a Debian 12 chroot without
# Lustre and beside stand-ins of Lustre's packages (deb-root.sh).  The unit
# tier is not run again inside (nocheck).  TAP; skips when the packaging
# tools are missing.
set -u
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }
check() {
	d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}
skip() {
	echo "1..0 # SKIP $*"
	exit 0
}

for t in dpkg-buildpackage dpkg-checkbuilddeps dh dh_dkms lintian; do
	command -v "$t" >/dev/null 2>&1 || skip "$t is missing (apt-get install debhelper dh-dkms lintian)"
done
missing=$(cd "$top" && dpkg-checkbuilddeps -Pnocheck 2>&1) ||
	skip "build dependencies missing: ${missing##*:}"

T=$(mktemp -d "${TMPDIR:-/tmp}/lnetd-deb.XXXXXX")
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
mkdir "$T/src" "$T/home"

# The tree as a packager gets it: the files git tracks or would (as they are
# now), or the whole folder in a release tarball (make distcheck's, minus its builds).
if git -C "$top" rev-parse --show-toplevel >/dev/null 2>&1 &&
	[ "$(git -C "$top" rev-parse --show-toplevel)" = "$(cd "$top" && pwd -P)" ]; then
	(cd "$top" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 tar -cf - --no-recursion) | tar -xf - -C "$T/src"
else
	(cd "$top" && tar -cf - --exclude=./_build --exclude=./_inst --exclude=./build .) |
		tar -xf - -C "$T/src"
fi
# A release tarball's files may be read-only (make distcheck makes them so):
# the build writes beside them.
chmod -R u+w "$T/src"
version=$(sed -n 's/^AC_INIT(\[lnetd\], \[\([^]]*\)\].*/\1/p' "$T/src/configure.ac")

AS=
if [ "$(id -u)" = 0 ]; then
	chown -R 65534:65534 "$T"
	AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
# shellcheck disable=SC2086 # $AS is a command prefix or nothing
(cd "$T/src" && $AS env HOME="$T/home" DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
	dpkg-buildpackage -us -uc -Pnocheck) >"$T/build.log" 2>&1
rc=$?
check "dpkg-buildpackage -us -uc as uid $(id -u 65534 2>/dev/null || id -u) builds lnetd and lnetk-dkms" test "$rc" = 0
[ "$rc" = 0 ] || {
	diag "$(tail -n 30 "$T/build.log")"
	echo "1..$n"
	exit 0
}
deb=$T/lnetd_${version}_$(dpkg --print-architecture).deb
dkms=$T/lnetk-dkms_${version}_all.deb
check "the packages are at configure.ac's version ($version)" test -f "$deb" -a -f "$dkms"
check "debian/changelog says the same version" \
	test "$(cd "$T/src" && dpkg-parsechangelog -SVersion)" = "$version"

# shellcheck disable=SC2086
$AS env HOME="$T/home" lintian --fail-on error --tag-display-limit 0 "$T"/lnetd_*.changes \
	>"$T/lintian.log" 2>&1
rc=$?
check "lintian finds no error" test "$rc" = 0
diag "lintian:" "$(cat "$T/lintian.log")"

list=$(dpkg-deb -c "$deb" | awk '{ print $6 }')
has_file() {
	case $list in *"$1"*) return 0 ;; esac
	diag "missing from lnetd: $1"
	return 1
}
for f in ./usr/sbin/lnetd ./usr/sbin/lnetctl ./lib/systemd/system/lnetd.service \
	./lib/systemd/system/lnetd-lustre.service ./lib/systemd/system/lnetd-userspace.service \
	./lib/systemd/system/lnet.service.d/lnetd.conf \
	./usr/share/dbus-1/system.d/org.lnetd1.conf \
	./usr/share/dbus-1/system-services/org.lnetd1.service \
	./usr/share/dbus-1/interfaces/org.lnetd1.Manager.xml \
	./usr/share/polkit-1/actions/org.lnetd1.policy \
	./usr/share/man/man8/lnetd.8.gz ./usr/share/man/man8/lnetctl.8.gz \
	./usr/share/man/man5/lnet.conf.5.gz ./usr/share/bash-completion/completions/lnetctl \
	./usr/share/doc/lnetd/copyright; do
	check "lnetd holds $f" has_file "$f"
done
mkdir "$T/x" "$T/ctl"
dpkg-deb -x "$deb" "$T/x"
check "its lnetctl runs and says $version" \
	sh -c '"$1" --version | grep -qF "$2"' - "$T/x/usr/sbin/lnetctl" "$version"
zcat "$T/x/usr/share/man/man8/lnetd.8.gz" | grep -q "^\.TH LNETD 8 .* \"lnetd $version\"" &&
	ok "lnetd(8) carries the version" || not_ok "lnetd(8) carries the version"
dpkg-deb -e "$deb" "$T/ctl"
check "preinst diverts Lustre's lnetctl to lnetctl.lustre" grep -q \
	'dpkg-divert --package lnetd --rename --add.*--divert /usr/sbin/lnetctl.lustre /usr/sbin/lnetctl' \
	"$T/ctl/preinst"
check "and its manual page" grep -q 'divert $man/lnetctl.lustre.8.gz $man/lnetctl.8.gz' "$T/ctl/preinst"
check "postrm gives them back" grep -q 'dpkg-divert --package lnetd --rename --remove' "$T/ctl/postrm"
# The units conflict: dh_installsystemd enables none (--no-enable), the
# postinst one on the first installation, deb-systemd-helper's purge
# removes every link.
check "postinst enables one unit on the first installation only" grep -q \
	'! deb-systemd-helper debian-installed lnetd.service' "$T/ctl/postinst"
check "and none through dh_installsystemd's enable" \
	sh -c '! grep -q "was-enabled defaults to true" "$1"' - "$T/ctl/postinst"
check "postrm purges the three units' links" grep -q \
	"deb-systemd-helper purge.*'lnetd-lustre.service' 'lnetd-userspace.service' 'lnetd.service'" \
	"$T/ctl/postrm"

list=$(dpkg-deb -c "$dkms" | awk '{ print $6 }')
case $list in *"./usr/src/lnetk-$version/dkms.conf"*) ok "lnetk-dkms holds the DKMS tree" ;;
*) not_ok "lnetk-dkms holds the DKMS tree" ;; esac
dpkg-deb -x "$dkms" "$T/x"
check "its dkms.conf is at version $version" \
	grep -q "^PACKAGE_VERSION=\"$version\"" "$T/x/usr/src/lnetk-$version/dkms.conf"
check "with the engine beside the module" test -f "$T/x/usr/src/lnetk-$version/engine/model.c"
check "and the data path's glue" test -f "$T/x/usr/src/lnetk-$version/dp.c"
mkdir "$T/dctl"
dpkg-deb -e "$dkms" "$T/dctl"
check "lnetk-dkms's postinst adds the module to DKMS (dh_dkms)" grep -q "dkms" "$T/dctl/postinst"
check "and its prerm removes it" grep -q "dkms remove" "$T/dctl/prerm"

# Installed, upgraded and purged on a Debian 12 of its own (mmdebstrap, from
# Debian's archive; root only), without Lustre and beside stand-ins of
# Lustre's packages: tests/pkg/deb-root.sh says what it checks there.
if [ "$(id -u)" != 0 ] || ! command -v mmdebstrap >/dev/null 2>&1 ||
	! command -v systemctl >/dev/null 2>&1 || ! command -v systemd-analyze >/dev/null 2>&1; then
	echo "ok $((n + 1)) # SKIP install and purge in a chroot: needs root, mmdebstrap and systemd's tools"
	n=$((n + 1))
	echo "1..$n"
	exit 0
fi
mirror=${LNETD_DEBIAN_MIRROR:-http://deb.debian.org/debian}
mkdir "$T/debs"
cp "$deb" "$T/debs/lnetd.deb"
cp "$dkms" "$T/debs/lnetk-dkms.deb"
# The same lnetd at a later version, for the upgrade.
dpkg-deb -R "$deb" "$T/next" &&
	sed -i "s/^Version: .*/Version: $version+upgrade1/" "$T/next/DEBIAN/control" &&
	dpkg-deb --root-owner-group -b "$T/next" "$T/debs/lnetd-next.deb" >/dev/null
check "lnetd repacked at version $version+upgrade1, for the upgrade" test -f "$T/debs/lnetd-next.deb"

# standin NAME DIR: a package of DIR's files with their md5sums (for dpkg --verify)
standin() {
	(cd "$2" && find . -type f ! -path './DEBIAN/*' | sed 's|^\./||' | xargs md5sum) \
		>"$T/md5sums" && mv "$T/md5sums" "$2/DEBIAN/md5sums" &&
		dpkg-deb --root-owner-group -b "$2" "$T/debs/$1.deb" >/dev/null
}
# Lustre's utilities (lustre-client-utils): its lnetctl, lnetctl(8) and
# lnet.service, which loads lnet.ko, configures LNet and imports
# /etc/lnet.conf (the shape of upstream's lustre/scripts/systemd/lnet.service.in).
u=$T/lustre-utils
mkdir -p "$u/DEBIAN" "$u/usr/sbin" "$u/usr/share/man/man8" "$u/lib/systemd/system"
printf '%s\n' "Package: lustre-client-utils" "Version: 2.17.57~standin" "Architecture: all" \
	"Maintainer: lnetd tests <lnetd@lists.example.org>" \
	"Description: stand-in of Lustre's utilities for lnetd's package test" \
	" Its lnetctl, lnetctl(8) and lnet.service." >"$u/DEBIAN/control"
printf '%s\n' '#!/bin/sh' 'echo "lustre lnetctl"' >"$u/usr/sbin/lnetctl"
chmod 755 "$u/usr/sbin/lnetctl"
printf '%s\n' '.TH LNETCTL 8' '.SH NAME' 'lnetctl \- Lustre stand-in' | gzip -9n \
	>"$u/usr/share/man/man8/lnetctl.8.gz"
printf '%s\n' "[Unit]" "Description=LNet, as Lustre's unit starts it (stand-in)" \
	"Requires=network-online.target" "After=network-online.target" \
	"ConditionPathExists=!/proc/sys/lnet/" "" "[Service]" "Type=oneshot" "RemainAfterExit=true" \
	"ExecStart=/sbin/modprobe lnet" "ExecStart=/usr/sbin/lnetctl lnet configure" \
	"ExecStart=/usr/sbin/lnetctl import /etc/lnet.conf" "ExecStop=/usr/sbin/lustre_rmmod" "" \
	"[Install]" "WantedBy=multi-user.target" >"$u/lib/systemd/system/lnet.service"
# Lustre's modules alone: an lnet.ko, no unit.
k=$T/lustre-ko
mkdir -p "$k/DEBIAN" "$k/lib/modules/6.1.0-standin/updates/net/lustre"
printf '%s\n' "Package: lustre-modules-standin" "Version: 2.17.57~standin" "Architecture: all" \
	"Maintainer: lnetd tests <lnetd@lists.example.org>" \
	"Description: stand-in of Lustre's modules for lnetd's package test" \
	" An lnet.ko, no unit." >"$k/DEBIAN/control"
echo "not a module" >"$k/lib/modules/6.1.0-standin/updates/net/lustre/lnet.ko"
standin lustre-utils "$u" && standin lustre-ko "$k"
check "stand-ins of Lustre's utilities and modules are built" \
	test -f "$T/debs/lustre-utils.deb" -a -f "$T/debs/lustre-ko.deb"

# deb-root.sh runs as mmdebstrap's last hook, on the host, with the root's
# /proc, /sys and /dev mounted; its TAP lines are numbered here.
mmdebstrap --variant=apt bookworm "$T/root" "$mirror" \
	--customize-hook="sh '$top/tests/pkg/deb-root.sh' \"\$1\" '$T/debs' '$T/steps.log' \
		>'$T/root.tap' 2>&1" \
	>"$T/chroot.log" 2>&1
touch "$T/root.tap"
while IFS= read -r line; do
	case $line in
	"ok - "*) ok "${line#ok - }" ;;
	"not ok - "*) not_ok "${line#not ok - }" ;;
	"#"*) echo "$line" ;;
	*) diag "$line" ;;
	esac
done <"$T/root.tap"
check "the installs in the chroot ran to their end" \
	grep -q "^ok - the installs ran to their end" "$T/root.tap"
[ "$failed" = 0 ] || diag "mmdebstrap:" "$(tail -n 30 "$T/chroot.log")" \
	"the steps:" "$(tail -n 60 "$T/steps.log" 2>/dev/null)"
echo "1..$n"
