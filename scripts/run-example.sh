#!/usr/bin/env bash
# `make run`: duet's main job on the bundled example. Compiles torchvision's
# MobileNetV3-Small (.pt2 exported with torch.export) for this machine (the
# default: placement by cost over the backends it can run, docs/cli.md), runs
# it on the stored input, compares with the eager PyTorch output stored beside
# it, and times it beside the program that puts everything on Vulkan first.
set -euo pipefail
build=${1:-build}
duet="$build/bin/duet"
model=examples/mobilenet_v3_small
out="$build/examples"
mkdir -p "$out"

echo "== duet compile $model.pt2"
"$duet" compile "$model.pt2" -o "$out/mobilenet_v3_small.duet" --report "$out/report.json"
echo "== partitions"
python3 - "$out/report.json" <<'PY'
import collections, json, sys
report = json.load(open(sys.argv[1]))
ops = collections.Counter(op["backend"] for op in report["ops"])
print("ops by backend: " + ", ".join(f"{b} {n}" for b, n in sorted(ops.items())))
for p in report.get("partitions", []):
    print(f"  partition {p['id']} [{p['backend']}]: {len(p['nodes'])} ops")
PY
echo "== duet run (compared with the eager PyTorch output)"
"$duet" run "$out/mobilenet_v3_small.duet" --input "$model.input0.npy" \
  --expect "$model.output0.npy" --output "$out/output0.npy"

echo "== duet bench (the default program)"
"$duet" bench "$out/mobilenet_v3_small.duet" --iterations 50

# Priority placement with Vulkan first, for comparison: on a machine without
# a GPU the Vulkan device is Mesa's lavapipe, a CPU emulation, which is why
# the default above left Vulkan out.
echo "== the same with --backends vulkan,xnnpack (Vulkan first, by priority)"
"$duet" compile "$model.pt2" -o "$out/mobilenet_v3_small.vulkan.duet" --backends vulkan,xnnpack --quiet
"$duet" run "$out/mobilenet_v3_small.vulkan.duet" --input "$model.input0.npy" \
  --expect "$model.output0.npy"
"$duet" bench "$out/mobilenet_v3_small.vulkan.duet" --iterations 3 --warmup 1
