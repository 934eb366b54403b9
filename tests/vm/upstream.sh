#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/vm/upstream.sh VERSION [KVER] - print the folder holding upstream
# Lustre's build for VERSION (2.15.8, 2.16.1, 2.17.57, or "full" for the
# whole Lustre 2.17.57), building it first when it is not there.
#
# The builds live outside any clone, in a cache keyed by their inputs:
#   ROOT/<version>-<kver>-<hash>        (LNet only: ../shared/lustre/build.sh)
#   ROOT/full-2.17.57-<kver>-<hash>     (whole Lustre: build-full.sh)
# where <hash> is the first 12 hex digits of the sha256 of the build script
# followed by the tarball (`cat build.sh tarball | sha256sum`): the same
# inputs find the same folder, a changed script or tarball builds anew.
# ROOT is $LNETD_UPSTREAM_CACHE, else /var/cache/lnetd-upstream when it holds
# the build or can be written, else ${XDG_CACHE_HOME:-$HOME/.cache}/lnetd-upstream.
# The scripts and tarballs are in $LNETD_LUSTRE_DIR, else the folder of
# $LNETD_UPSTREAM_BUILD (build.sh), else ../shared/lustre beside the clone.
# KVER defaults to $LNETD_VM_KVER, else the newest installed
# /usr/src/linux-headers-*-amd64 (as tests/vm/run.sh picks it).
# A build takes 3 to 35 minutes (README.md of ../shared/lustre); its log is
# ROOT/<key>.log.  Builds of one key are serialised (flock on ROOT/<key>.lock).  Exit status 0 with the folder on stdout, else 1 and why
# on stderr.
# `upstream.sh --where` only prints the folder of the scripts and tarballs
# (status 1 when there is none).
set -eu
version=${1:?usage: upstream.sh VERSION [KVER] | upstream.sh --where}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
if [ -n "${LNETD_LUSTRE_DIR:-}" ]; then
	shared=$LNETD_LUSTRE_DIR
elif [ -n "${LNETD_UPSTREAM_BUILD:-}" ]; then
	shared=$(dirname "$LNETD_UPSTREAM_BUILD")
else
	shared=$top/../shared/lustre
	# a worktree of the clone sits one folder deeper than the clone
	[ -d "$shared" ] || shared=$top/../../shared/lustre
fi
if [ "$version" = --where ]; then
	[ -r "$shared/build.sh" ] || exit 1
	(cd "$shared" && pwd)
	exit 0
fi
kver=${2:-${LNETD_VM_KVER:-}}
if [ -z "$kver" ]; then
	kver=$(printf '%s\n' /usr/src/linux-headers-*-amd64 | sed 's|.*/linux-headers-||' |
		sort -V | tail -n 1)
fi
case $kver in "" | "*-amd64") echo "upstream.sh: no kernel headers to build for" >&2 && exit 1 ;; esac

script=$shared/build.sh
case $version in
2.17.57) tarball=$shared/lustre-release-c881f8eb.tar.xz stamp=$kver prefix=2.17.57 ;;
2.15.8 | 2.16.1)
	tarball=$shared/lustre-release-v${version//./_}.tar.xz stamp="$kver $version" prefix=$version
	;;
full)
	script=$shared/build-full.sh tarball=$shared/lustre-release-c881f8eb.tar.xz stamp=$kver
	prefix=full-2.17.57
	;;
*) echo "upstream.sh: unknown VERSION '$version' (2.15.8, 2.16.1, 2.17.57, full)" >&2 && exit 1 ;;
esac
for f in "$script" "$tarball"; do
	[ -r "$f" ] || { echo "upstream.sh: $f not found (set LNETD_LUSTRE_DIR)" >&2 && exit 1; }
done
hash=$(cat "$script" "$tarball" | sha256sum | cut -c1-12)
key=$prefix-$kver-$hash

built() { [ -f "$1/$key/.built" ] && [ "$(cat "$1/$key/.built")" = "$stamp" ]; }

if [ -n "${LNETD_UPSTREAM_CACHE:-}" ]; then
	root=$LNETD_UPSTREAM_CACHE
elif built /var/cache/lnetd-upstream; then
	root=/var/cache/lnetd-upstream
elif mkdir -p /var/cache/lnetd-upstream 2>/dev/null && [ -w /var/cache/lnetd-upstream ]; then
	root=/var/cache/lnetd-upstream
else
	root=${XDG_CACHE_HOME:-$HOME/.cache}/lnetd-upstream
fi
# One build per key at a time: scripts/test starts the builds early, in the
# background, and a tier that needs one meanwhile waits here for it.
if ! built "$root"; then
	mkdir -p "$root"
	exec 9>"$root/$key.lock"
	flock 9
fi
if ! built "$root"; then
	echo "upstream.sh: building $key in $root (log: $root/$key.log)" >&2
	if [ "$version" = full ]; then
		bash "$script" "$root/$key" "$kver" >"$root/$key.log" 2>&1
	else
		bash "$script" "$root/$key" "$kver" "$version" >"$root/$key.log" 2>&1
	fi || { echo "upstream.sh: the build failed: $root/$key.log" >&2 && exit 1; }
	built "$root" || { echo "upstream.sh: $root/$key has no .built stamp" >&2 && exit 1; }
fi
echo "$root/$key"
