#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernel/stage.sh SRCDIR DSTDIR
#
# Mirror the module's sources (SRCDIR is the kernel/ folder of the source
# tree; the engine is its sibling, ../engine, and lands in DSTDIR/engine so
# that "engine/model.h" resolves there as it does in the tree) into DSTDIR
# as symlinks, so that Kbuild, which writes its objects
# next to the sources it builds (M=), builds in DSTDIR and leaves the source
# tree clean.  Safe to run again: new files are linked, links to files that
# have gone are removed, objects already built are kept (Kbuild rebuilds
# what changed, following the links).
set -eu
src=$(cd "$1" && pwd)
engine=$(cd "$1/../engine" && pwd)
dst=$2

mkdir -p "$dst/engine" "$dst/uapi"
dst=$(cd "$dst" && pwd)
if [ "$src" = "$dst" ]; then
	exit 0
fi

# Drop links whose target has gone (an engine file removed or renamed).
find "$dst" -type l ! -exec test -e {} \; -exec rm -f {} +

for f in "$src"/Kbuild "$src"/Makefile "$src"/*.c "$src"/*.h \
	"$engine"/*.c "$engine"/*.h "$src"/uapi/*.h; do
	[ -e "$f" ] || continue
	case $f in
	"$engine"/*) rel=engine/${f#"$engine"/} ;;
	*) rel=${f#"$src"/} ;;
	esac
	[ -L "$dst/$rel" ] && [ "$(readlink "$dst/$rel")" = "$f" ] && continue
	ln -sfn "$f" "$dst/$rel"
done
