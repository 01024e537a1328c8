#!/bin/bash
# The Vulkan table of docs/performance.md, on the GPU machine, in one device run.
# Here first: bench/gpu_pack.sh build .gpupack, and the Vulkan loader debs in .gl
# (../.library/device/README.md). Then the device tool's run, carrying .gl and
# .gpupack, with the command:
#
#   bash bench/gpu_machine.sh .gpupack [MODEL,...] [--fp16]
#
# It unpacks the loader and the pack, exports every model of bench/gpu_bench.py at
# its published size, compiles it there with the packed duet, checks it against
# eager, times it against PyTorch CUDA eager and CUDA-graph replay, and writes the
# log and the per-dispatch profiles to $OUT (gpu_bench.txt, profiles.tar.xz).
set -uo pipefail
pack=$1
models=${2:-}
extra=${3:-}
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
rm -rf /tmp/duet-pack && mkdir -p /tmp/duet-pack /tmp/duet-programs /tmp/duet-profiles
xz -dc "$pack/pack.tar.xz" | tar xf - -C /tmp/duet-pack
export LD_LIBRARY_PATH=/tmp/duet-pack/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
/tmp/duet-pack/bin/duet --version
PYTHONUNBUFFERED=1 python3 bench/gpu_bench.py --export --duet /tmp/duet-pack/bin/duet \
    --duet-run /tmp/duet-pack/bin/duet-run --programs /tmp/duet-programs \
    --profile /tmp/duet-profiles ${models:+--models "$models"} $extra 2>&1 | tee "$OUT/gpu_bench.txt"
rc=$?
tar cf - -C /tmp duet-profiles | xz -T0 >"$OUT/profiles.tar.xz"
exit $rc
