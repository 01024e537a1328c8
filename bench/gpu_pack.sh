#!/bin/bash
# Packs the compiler and the runtime-only tool of a build here, with every shared
# library they need that a bare Ubuntu machine may lack, into PACK/pack.tar.xz, for
# bench/gpu_machine.sh on the GPU machine (the device tool carries PACK there).
#
#   bench/gpu_pack.sh BUILD_DIR PACK      e.g. bench/gpu_pack.sh build .gpupack
#
# glibc, libstdc++ and libgcc are left to the machine (it is newer than Debian 12).
# Two libraries that libLLVM and libxml2 name but duet never calls are replaced by
# stubs so the pack fits the device tool's 64 MiB: libz3 (LLVM's static analyzer
# solver; its functions are bound lazily and never called) and libicuuc (libxml2's
# encoding converters, of which this stub defines the seven functions libxml2
# imports; duet reads no XML). The pack is about 40 MB.
set -euo pipefail
build=$1
pack=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/lib" "$pack"
cp "$build/bin/duet" "$build/bin/duet-run" "$work/bin/"
strip "$work/bin/duet" "$work/bin/duet-run"
skip='linux-vdso|ld-linux|libc\.so|libm\.so|libstdc\+\+|libgcc_s|libpthread\.so|libdl\.so|librt\.so|libz3\.so|libicu'
for lib in $( (ldd "$build/bin/duet"; ldd "$build/bin/duet-run") | awk '/=> \//{print $3}' | sort -u); do
    if ! basename "$lib" | grep -qE "$skip"; then cp -L "$lib" "$work/lib/"; fi
done
echo 'void duet_stub(void) {}' >"$work/z3.c"
cc -shared -fPIC -Wl,-soname,libz3.so.4 -o "$work/lib/libz3.so.4" "$work/z3.c"
icu=$(nm -D --undefined-only "$work/lib/libxml2.so.2" | awk '{print $2}' | grep -E '_[0-9]+(@|$)' \
      | sed 's/@.*//' | grep -iE '^u' | sort -u)
for sym in $icu; do echo "void $sym(void) {}"; done >"$work/icu.c"
soname=$(ldd "$build/bin/duet" | awk '/libicuuc/{print $1}')
cc -shared -fPIC -Wl,-soname,"$soname" -o "$work/lib/$soname" "$work/icu.c"
# The pack must load with the stubs: a missing symbol fails here, not on the GPU machine.
LD_LIBRARY_PATH="$work/lib" "$work/bin/duet" --version >/dev/null
tar cf - -C "$work" bin lib | xz -T0 -6 >"$pack/pack.tar.xz"
ls -l "$pack/pack.tar.xz"
