// RUN: not duet-opt --duet-partition="target-profile=snapdragon" %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not duet-opt --duet-partition="target-profile=%S/Inputs/bad-syntax.json" %s 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not duet-opt --duet-partition="target-profile=%S/Inputs/bad-value.json" %s 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not duet-opt --duet-partition="target-profile=%S/Inputs/unknown-key.json" %s 2>&1 | FileCheck %s --check-prefix=KEY
// RUN: not duet-opt --duet-partition="target-profile=%S/Inputs/missing.json" %s 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not duet-opt --duet-partition="texture-limits=2048,2048" %s 2>&1 | FileCheck %s --check-prefix=LIMITS
// RUN: not duet-opt --duet-partition="texture-limits=2048,0,2048" %s 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not duet-opt --duet-partition="texture-limits=2048,wide,2048" %s 2>&1 | FileCheck %s --check-prefix=NUMBER
// RUN: not duet-opt --duet-partition="enable-bf16=maybe" %s 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: not duet-opt --duet-partition="backends=vulkan,metal" %s 2>&1 | FileCheck %s --check-prefix=BACKEND
// RUN: not duet-opt --duet-partition="backends=xnnpack,xnnpack" %s 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not duet-opt --duet-partition="report=%S/Inputs/no-such-dir/r.json" %s 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: not duet-opt --duet-partition="backends=xnnpack strict=true" %s 2>&1 | FileCheck %s --check-prefix=STRICT
// RUN: not duet-opt --duet-vulkan-layout="target-profile=snapdragon" %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// Every user-facing error of the partitioner names what is wrong and what to
// do instead.

// UNKNOWN: error: unknown device profile "snapdragon"; built-in profiles: adreno, generic, host-cpu, lavapipe, mali, nvidia-desktop, powervr-dxt-48-1536, vulkan-core-minimum; or give the path of a profile .json file
// SYNTAX: error: device profile {{.*}}bad-syntax.json: not valid JSON: [4:3, byte={{[0-9]+}}]: Expected , or } after object property
// VALUE: error: device profile {{.*}}bad-value.json: "maxImageDimension3D" must be a whole number from 1 to 4294967295
// KEY: error: device profile {{.*}}unknown-key.json: unknown key "maxImageDimension3d"; a profile has name, device, source, maxImageDimension3D, maxStorageBufferRange
// MISSING: error: cannot read device profile {{.*}}missing.json: No such file or directory
// LIMITS: error: texture-limits takes three numbers X,Y,Z, got 2
// ZERO: error: texture-limits must be three whole numbers from 1 to 4294967295, got 0
// NUMBER: error: texture-limits takes three numbers X,Y,Z, got '2048,wide,2048'
// FLAG: error: enable-bf16 takes true or false, got 'maybe'
// BACKEND: error: unknown backend "metal"; backends are vulkan and xnnpack, in priority order
// TWICE: error: backend "xnnpack" is listed twice
// REPORT: error: cannot write the partition report: cannot write '{{.*}}no-such-dir/r.json': its folder does not exist{{.*}}

// strict lists each op that fell to portable with its reasons.
// STRICT: error: strict: 1 op(s) fell to portable
// STRICT: note: tanh_1 (aten.tanh): xnnpack: no XNNPACK subgraph node for aten.tanh
func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = aten.relu %x : tensor<4x8xf32>
  %1 = aten.tanh %0 : tensor<4x8xf32> loc("tanh_1")
  return %1 : tensor<4x8xf32>
}
