#!/usr/bin/env bash
# same_plan.sh MODEL WORKDIR: compiles MODEL with --backends xnnpack, with no
# options (planned for this machine) and by lavapipe's costs with Vulkan as a
# candidate; prints the xnnpack set's summary ("N ops (vulkan 0, xnnpack K,
# portable P), M partitions") when the other two plans are the same, else
# says how they differ and exits 1.
set -u
model=$1 work=$2
summary() { grep -o '[0-9]* ops (.*), [0-9]* partitions'; }
xnnpack=$(duet compile "$model" -o "$work/x.duet" --backends xnnpack 2>&1 | summary)
default=$(duet compile "$model" -o "$work/d.duet" 2>&1 | summary)
lavapipe=$(duet compile "$model" -o "$work/l.duet" --target-profile lavapipe \
  --backends vulkan,xnnpack --placement cost 2>&1 | summary)
if [ "$default" != "$xnnpack" ] || [ "$lavapipe" != "$xnnpack" ]; then
  echo "$model: xnnpack set: $xnnpack; default plan: $default; by lavapipe's costs: $lavapipe"
  exit 1
fi
echo "$xnnpack"
