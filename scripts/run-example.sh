#!/usr/bin/env bash
# `make run`: duet's main job on the bundled example. Compiles torchvision's
# MobileNetV3-Small (.pt2 exported with torch.export) with the default backends,
# runs it on the stored input, and compares with the eager PyTorch output stored
# beside it.
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

# On a machine without a GPU the Vulkan device is Mesa's lavapipe (a CPU
# emulation), so the same model is also shown on the XNNPACK CPU delegate.
echo "== the same on the XNNPACK CPU delegate (--backends xnnpack)"
"$duet" compile "$model.pt2" -o "$out/mobilenet_v3_small.xnnpack.duet" --backends xnnpack --quiet
"$duet" run "$out/mobilenet_v3_small.xnnpack.duet" --input "$model.input0.npy" \
  --expect "$model.output0.npy"
"$duet" bench "$out/mobilenet_v3_small.xnnpack.duet" --iterations 50
