// upsample.comp - nearest or (FLAG1) bilinear 2-D upsampling of
// [N, C, H, W], with PyTorch's source coordinates: farg[0].xy are the
// source-per-destination ratios (h, w) the compiler computed as PyTorch
// does; FLAG0: bilinear with aligned corners.
#version 450
#include "tensor.glsl"

TENSOR_INPUT(src, 1, 2, IN0_PACKING)

int nearestSource(int i, int inSize, int outSize, float ratio) {
  if (outSize == inSize)
    return i;
  if (outSize == 2 * inSize)
    return i / 2;
  float s = floor(float(i) * ratio);
  return s >= float(inSize - 1) ? inSize - 1 : int(s);
}

// Output i blends source `first` (weight 1 - lambda) and first + step.
void linearSource(int i, int inSize, int outSize, float ratio, out int first,
                  out int step, out float lambda) {
  if (inSize == outSize) {
    first = i;
    step = 0;
    lambda = 0.0;
    return;
  }
  precise float source = FLAG0 != 0 ? ratio * float(i)
                                    : ratio * (float(i) + 0.5) - 0.5;
  if (FLAG0 == 0 && source < 0.0)
    source = 0.0;
  float floored = floor(source);
  first = floored >= float(inSize - 1) ? inSize - 1 : int(floored);
  step = first < inSize - 1 ? 1 : 0;
  lambda = clamp(source - float(first), 0.0, 1.0);
}

bool element(int idx[8], out float value) {
  int inH = size(1, 6), inW = size(1, 7), outH = size(0, 6), outW = size(0, 7);
  int at[8] = idx;
  if (FLAG1 == 0) {
    at[6] = nearestSource(idx[6], inH, outH, P.farg[0].x);
    at[7] = nearestSource(idx[7], inW, outW, P.farg[0].y);
    value = src_load(at);
    return true;
  }
  int top, down, left, right;
  float h1, w1;
  linearSource(idx[6], inH, outH, P.farg[0].x, top, down, h1);
  linearSource(idx[7], inW, outW, P.farg[0].y, left, right, w1);
  float h0 = 1.0 - h1, w0 = 1.0 - w1;
  at[6] = top; at[7] = left;
  float tl = src_load(at);
  at[7] = left + right;
  float tr = src_load(at);
  at[6] = top + down;
  float br = src_load(at);
  at[7] = left;
  float bl = src_load(at);
  precise float blended = h0 * (w0 * tl + w1 * tr) + h1 * (w0 * bl + w1 * br);
  value = blended;
  return true;
}

#include "main.glsl"
