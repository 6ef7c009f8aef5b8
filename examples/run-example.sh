#!/bin/sh
# run-example.sh NAME: run the example program examples/NAME and compare its
# output with the committed examples/NAME.out (CSparse's cs_demo.out), so the
# examples cannot rot. Run by examples/NAME.test from the top build directory
# under `make check`. The program runs in the build tree's examples/
# directory, so the tapes it writes land there, never in the (possibly
# read-only) source tree. Lines ending in "(varies with ...)" show numbers
# that depend on the machine (tape sizes depend on the zstd version, the
# rounding noise of finite differences on libm); they are not compared.
# Exit 0 pass, 1 fail, 77 skip.
#
# After an intended change of an example's output, regenerate its file with
#   (cd examples && ./NAME) > $srcdir/examples/NAME.out

LC_ALL=C
export LC_ALL
name=${1:?usage: run-example.sh NAME}
dir=${top_builddir:-.}/examples
expected=$(cd "${srcdir:-.}/examples" && pwd)/$name.out || exit 1

if [ ! -x "$dir/$name" ]; then
  echo "SKIP: $dir/$name is not built (run make check from the top build directory)"
  exit 77
fi
if [ ! -f "$expected" ]; then
  echo "FAIL: no expected output $expected"
  exit 1
fi
cd "$dir" || exit 1

rm -f "$name.stdout" "$name.want" "$name.got"
./"$name" >"$name.stdout"
status=$?
if [ "$status" -ne 0 ]; then
  cat "$name.stdout"
  echo "FAIL: examples/$name exited with status $status"
  exit 1
fi

# strip FILE: FILE without the lines that are not compared.
strip() {
  sed '/(varies with [^)]*)$/d' "$1"
}
strip "$expected" >"$name.want" && strip "$name.stdout" >"$name.got" || exit 1
if ! diff -u "$name.want" "$name.got"; then
  echo "FAIL: the output of examples/$name (+) differs from examples/$name.out (-)"
  exit 1
fi
rm -f "$name.want" "$name.got"
exit 0
