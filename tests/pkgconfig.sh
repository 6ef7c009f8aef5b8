#!/bin/sh
# pkgconfig.sh PREFIX_PKGCONFIG_DIR LIBDIR SRCDIR: build examples/quickstart.c
# against the installed library through pkg-config (GSL's pkgconfig.test) and
# run it. `make installcheck` (and so `make distcheck`) runs it.
set -e
pcdir=$1 libdir=$2 srcdir=$3
CC=${CC:-cc}
PKG_CONFIG_PATH=$pcdir
export PKG_CONFIG_PATH
cflags=$(pkg-config --cflags adelim)
libs=$(pkg-config --libs adelim)
tmp=${TMPDIR:-/tmp}/adelim-pc.$$
# shellcheck disable=SC2086 # flags are lists of words
$CC $cflags -o "$tmp" "$srcdir/examples/quickstart.c" $libs
out=$(LD_LIBRARY_PATH=$libdir "$tmp")
rm -f "$tmp"
expected=$(cat "$srcdir/examples/quickstart.out")
if [ "$out" != "$expected" ]; then
  echo "pkgconfig: quickstart printed '$out', expected '$expected'" >&2
  exit 1
fi
echo "pkgconfig: quickstart built with pkg-config against the installed library: ok"
