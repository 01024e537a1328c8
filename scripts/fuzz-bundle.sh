#!/usr/bin/env bash
# Packs the instrumented tree's fuzz targets for a fuzz campaign on another
# machine (the GPU machine's 16 cores, docs/reliability.md):
#   scripts/fuzz-bundle.sh BUILD_DIR OUT.tar.xz [TARGET ...]
# The archive holds bin/ (fuzz-import, fuzz-program, fuzz-npy) without debug
# sections, lib/ with every shared library they load apart from the C and
# C++ runtimes, which that machine has (XNNPACK, pthreadpool, cpuinfo, fmt,
# minizip, zlib), and fuzz-program's seed programs, compiled here
# (test/fuzz/make_seeds.py) because duet itself, linked to the shared MLIR
# and LLVM, is too large to carry. There, beside a copy of the source tree:
#   mkdir B && tar -xJf OUT.tar.xz -C B
#   LD_LIBRARY_PATH=$PWD/B/lib FUZZ_KEEP_SEEDS=1 FUZZ_TARGETS=fuzz-program \
#     FUZZ_ARGS="-fork=8 -ignore_crashes=0" scripts/fuzz.sh B SECONDS
# TARGETS (default: all three) keeps a bundle within what travels with the
# source tree: xz-compressed, fuzz-import is about 8 MB, fuzz-program 3 MB
# and its seeds 2 MB, fuzz-npy 0.6 MB, the libraries 0.5 MB.
# Seeds over FUZZ_BUNDLE_MAX_SEED_BYTES (default 1 MiB: the quantized
# MobileNetV2's four programs, 21 MB of the 24) are left out, and named: a
# mutation of a 9 MB input costs as much as hundreds of the others, and the
# smaller q_* programs reach the same int8 kernels.
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 BUILD_DIR OUT.tar.xz [TARGET ...]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
out=$(realpath -m "$2")
shift 2
binaries=("$@")
[ ${#binaries[@]} -gt 0 ] || binaries=(fuzz-import fuzz-program fuzz-npy)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib"

for binary in "${binaries[@]}"; do
  if [ ! -x "$build/bin/$binary" ]; then
    echo "fuzz-bundle.sh: $build/bin/$binary is missing; build it with scripts/sanitize-build.sh" >&2
    exit 1
  fi
  objcopy --strip-debug "$build/bin/$binary" "$stage/bin/$binary"
done

# The runtimes every Linux machine has; any other library is carried.
system='^(linux-vdso|ld-linux|libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt|libresolv)\.'
for binary in "${binaries[@]}"; do
  ldd "$build/bin/$binary" | awk '$3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
  if ! [[ $name =~ $system ]]; then
    cp -L "$path" "$stage/lib/$name"
  fi
done

root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$stage/fuzz"
if [[ " ${binaries[*]} " == *" fuzz-program "* ]]; then
  seeds=$stage/fuzz/fuzz-program/seeds
  mkdir -p "$seeds"
  python3 "$root/test/fuzz/make_seeds.py" fuzz-program "$seeds" --duet "$build/bin/duet"
  max=${FUZZ_BUNDLE_MAX_SEED_BYTES:-1048576}
  find "$seeds" -type f -size +"${max}"c -printf '%f (%s bytes)\n' | sort | while read -r line; do
    echo "fuzz-bundle.sh: left out the seed $line, over $max bytes"
  done
  find "$seeds" -type f -size +"${max}"c -delete
fi

tar -C "$stage" -cf - bin lib fuzz | xz -T0 -9e > "$out.tmp"
mv "$out.tmp" "$out"
echo "fuzz-bundle.sh: $out ($(du -h "$out" | cut -f1)): bin/ ${binaries[*]}; lib/ $(ls "$stage/lib" | tr '\n' ' ')"
