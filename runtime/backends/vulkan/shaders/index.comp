// index.comp - index_select and gather with an index the compiler knows:
// each output element copies the input element at its own index, except
// along one dim, where the index says which. The index is a weight of int32
// values that the load checked to lie inside the input.
//
// OP: vulkan.fbs's IndexKind (INDEX_KIND_SELECT reads the index at the
// output's index along the dim, INDEX_KIND_GATHER at the output's
// position). iarg[0].x: the indexed dim, counted in the 8 dims.
#version 450
#include "tensor.glsl"

TENSOR_INPUT(src, 1, 2, IN0_PACKING)

layout(std430, set = 0, binding = 5) readonly buffer IndexBlock {
  int v[];
} indices;

bool element(int idx[8], out float value) {
  int dim = P.iarg[0].x;
  int at[8] = idx;
  at[dim] = indices.v[OP == INDEX_KIND_SELECT ? idx[dim] : offsetOf(0, idx)];
  value = src_load(at);
  return true;
}

#include "main.glsl"
