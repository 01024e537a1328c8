// RUN: duet-opt --duet-partition="backends=xnnpack report=-" %s -o /dev/null | FileCheck %s

// A node name that is not UTF-8 (here the byte 0xFF) is written to the JSON
// report as U+FFFD instead of aborting the compiler.
// CHECK: "node": "bad�name"
func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = aten.relu %x : tensor<4x8xf32> loc("bad\FFname")
  return %0 : tensor<4x8xf32>
}
