// RUN: duet-opt --duet-partition="backends=vulkan report=-" %s -o /dev/null | FileCheck %s --check-prefix=GENERIC
// RUN: duet-opt --duet-partition="backends=vulkan target-profile=lavapipe report=-" %s -o /dev/null | FileCheck %s --check-prefix=LAVAPIPE
// RUN: duet-opt --duet-partition="backends=vulkan target-profile=nvidia-desktop report=-" %s -o /dev/null | FileCheck %s --check-prefix=NVIDIA
// RUN: duet-opt --duet-partition="backends=vulkan target-profile=vulkan-core-minimum report=-" %s -o /dev/null | FileCheck %s --check-prefix=MINIMUM
// RUN: duet-opt --duet-partition="backends=vulkan target-profile=%S/Inputs/phone.json report=-" %s -o /dev/null | FileCheck %s --check-prefix=FILE
// RUN: duet-opt --duet-partition="backends=vulkan target-profile=nvidia-desktop texture-limits=2048,2048,2048 report=-" %s -o /dev/null | FileCheck %s --check-prefix=OVERRIDE

// The limits come from a device profile (generic by default), a profile
// file, or texture-limits, which replaces the profile's image limit but keeps
// its buffer limit. The report says which.

// GENERIC: "max_image_extent": [
// GENERIC-NEXT: 2048,
// GENERIC: "max_storage_buffer_range": 134217728,
// GENERIC-NEXT: "origin": "profile generic (built-in)"
// GENERIC: "storage": "buffer"

// LAVAPIPE: "max_image_extent": [
// LAVAPIPE-NEXT: 4096,
// LAVAPIPE: "origin": "profile lavapipe (built-in)"
// LAVAPIPE: "packing": "width_packed"

// NVIDIA: "max_image_extent": [
// NVIDIA-NEXT: 16384,
// NVIDIA: "max_storage_buffer_range": 4294967295,
// NVIDIA: "packing": "width_packed"

// MINIMUM: "max_image_extent": [
// MINIMUM-NEXT: 256,
// MINIMUM: "storage": "buffer"

// FILE: "max_image_extent": [
// FILE-NEXT: 8192,
// FILE: "max_storage_buffer_range": 268435456,
// FILE-NEXT: "origin": "profile phone ({{.*}}Inputs/phone.json)"
// FILE: "packing": "width_packed"

// OVERRIDE: "max_image_extent": [
// OVERRIDE-NEXT: 2048,
// OVERRIDE: "max_storage_buffer_range": 4294967295,
// OVERRIDE-NEXT: "origin": "texture-limits option; profile nvidia-desktop (built-in) for buffers"
// OVERRIDE: "storage": "buffer"
func.func @head(%x: tensor<1x84x8400xf32>) -> tensor<1x84x8400xf32> {
  %0 = aten.sigmoid %x : tensor<1x84x8400xf32> loc("scores")
  return %0 : tensor<1x84x8400xf32>
}
