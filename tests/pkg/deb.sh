#!/bin/sh
# The Debian package, as a packager builds it: dpkg-buildpackage -us -uc as
# a normal user (nobody, when the test runs as root) from a clean copy of
# the tree, lintian with no error, and what the packages hold: lnetd the
# daemon, lnetctl in /usr/sbin, the unit, D-Bus and polkit files, the man
# pages and completion, the diversion of Lustre's lnetctl; lnetk-dkms the
# DKMS tree, all of it at configure.ac's version.  The unit tier is not run
# again inside (nocheck).  TAP; skips when the packaging tools are missing.
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

# Installed and removed on a Debian 12 of its own (mmdebstrap, from Debian's
# archive; root only), over a stand-in for Lustre's /usr/sbin/lnetctl: the
# stand-in is diverted while lnetd is installed and back afterwards, and
# purging leaves no file of ours.  lnetk-dkms registers with DKMS (no
# kernel headers there, so nothing is built) and goes again.
if [ "$(id -u)" != 0 ] || ! command -v mmdebstrap >/dev/null 2>&1; then
	echo "ok $((n + 1)) # SKIP install and remove in a chroot: needs root and mmdebstrap"
	n=$((n + 1))
	echo "1..$n"
	exit 0
fi
mirror=${LNETD_DEBIAN_MIRROR:-http://deb.debian.org/debian}
cp "$deb" "$T/lnetd.deb"
cp "$dkms" "$T/lnetk-dkms.deb"
cat >"$T/inside.sh" <<'INSIDE'
set -u
r=/tmp/result
: >$r
printf '#!/bin/sh\necho lustre-lnetctl\n' >/usr/sbin/lnetctl && chmod 755 /usr/sbin/lnetctl
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q /tmp/lnetd.deb >/tmp/install.log 2>&1 && echo install-ok >>$r
/usr/sbin/lnetctl --version 2>/dev/null | grep -q lnetctl && echo ours-first >>$r
/usr/sbin/lnetctl.lustre 2>/dev/null | grep -q lustre-lnetctl && echo lustre-kept >>$r
dpkg-divert --list lnetd | grep -q /usr/sbin/lnetctl && echo diverted >>$r
apt-get purge -y -q lnetd >/tmp/purge.log 2>&1 && echo purge-ok >>$r
[ ! -e /usr/sbin/lnetd ] && [ -z "$(dpkg-divert --list lnetd)" ] && echo gone >>$r
/usr/sbin/lnetctl 2>/dev/null | grep -q lustre-lnetctl && echo lustre-back >>$r
apt-get install -y -q /tmp/lnetk-dkms.deb >/tmp/dkms-install.log 2>&1 && echo dkms-install-ok >>$r
dkms status >/tmp/dkms-status.log 2>&1
grep -q '^lnetk' /tmp/dkms-status.log && echo dkms-added >>$r
apt-get purge -y -q lnetk-dkms >/tmp/dkms-purge.log 2>&1 && echo dkms-purge-ok >>$r
[ -z "$(dkms status 2>/dev/null | grep '^lnetk')" ] && [ ! -d /usr/src/lnetk-* ] && echo dkms-gone >>$r
echo "RESULT: $(tr '\n' ' ' <$r)"
for f in /tmp/*.log; do echo "== $f"; tail -n 25 "$f"; done
INSIDE
mmdebstrap --variant=apt bookworm "$T/root" "$mirror" \
	--customize-hook='copy-in '"$T"'/lnetd.deb '"$T"'/lnetk-dkms.deb '"$T"'/inside.sh /tmp' \
	--customize-hook='chroot "$1" sh /tmp/inside.sh' >"$T/chroot.log" 2>&1
res=$(sed -n 's/^RESULT: //p' "$T/chroot.log")
has_step() {
	case " $res " in *" $1 "*) return 0 ;; esac
	diag "$(sed -n '/^RESULT: /,$p' "$T/chroot.log")"
	return 1
}
check "in a Debian 12 chroot, apt installs lnetd with its dependencies" has_step install-ok
check "its lnetctl comes first at /usr/sbin/lnetctl" has_step ours-first
check "Lustre's stand-in is kept as lnetctl.lustre" has_step lustre-kept
check "dpkg-divert lists the diversion" has_step diverted
check "apt purges lnetd" has_step purge-ok
check "leaving no lnetd and no diversion" has_step gone
check "and Lustre's lnetctl back in place" has_step lustre-back
check "lnetk-dkms installs" has_step dkms-install-ok
check "and registers lnetk with DKMS" has_step dkms-added
check "and purges" has_step dkms-purge-ok
check "leaving nothing with DKMS or in /usr/src" has_step dkms-gone
echo "1..$n"
