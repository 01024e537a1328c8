// pool.comp - 2-D pooling of [N, C, H, W] with PyTorch's windows and
// divisors. OP: vulkan.fbs's PoolKind.
// iarg[0]: kernel h, w, stride h, w; iarg[1]: padding h, w, dilation h, w;
// iarg[2]: count_include_pad, divisor_override (0: none).
#version 450
#include "tensor.glsl"

TENSOR_INPUT(src, 1, 2, IN0_PACKING)

bool element(int idx[8], out float value) {
  int inH = size(1, 6), inW = size(1, 7);
  int oh = idx[6], ow = idx[7];
  int at[8] = idx;
  ivec4 ks = P.iarg[0], pd = P.iarg[1];
  if (OP == POOL_KIND_MAX) {
    float best = uintBitsToFloat(0xff800000u);
    for (int i = 0; i < ks.x; ++i) {
      int ih = oh * ks.z - pd.x + i * pd.z;
      if (ih < 0 || ih >= inH)
        continue;
      for (int j = 0; j < ks.y; ++j) {
        int iw = ow * ks.w - pd.y + j * pd.w;
        if (iw < 0 || iw >= inW)
          continue;
        at[6] = ih;
        at[7] = iw;
        float x = src_load(at);
        if (x > best || isnan(x))
          best = x;
      }
    }
    value = best;
    return true;
  }
  int h0, h1, w0, w1, divisor;
  if (OP == POOL_KIND_ADAPTIVE_AVERAGE) {
    int outH = size(0, 6), outW = size(0, 7);
    h0 = oh * inH / outH;
    h1 = ((oh + 1) * inH + outH - 1) / outH;
    w0 = ow * inW / outW;
    w1 = ((ow + 1) * inW + outW - 1) / outW;
    divisor = (h1 - h0) * (w1 - w0);
  } else {
    h0 = oh * ks.z - pd.x;
    w0 = ow * ks.w - pd.y;
    h1 = min(h0 + ks.x, inH + pd.x);
    w1 = min(w0 + ks.y, inW + pd.y);
    int paddedArea = (h1 - h0) * (w1 - w0);
    h0 = max(h0, 0);
    w0 = max(w0, 0);
    h1 = min(h1, inH);
    w1 = min(w1, inW);
    if (h0 >= h1 || w0 >= w1) {
      value = 0.0;
      return true;
    }
    divisor = P.iarg[2].y != 0 ? P.iarg[2].y
              : P.iarg[2].x != 0 ? paddedArea
                                 : (h1 - h0) * (w1 - w0);
  }
  float sum = 0.0;
  for (int ih = h0; ih < h1; ++ih) {
    for (int iw = w0; iw < w1; ++iw) {
      at[6] = ih;
      at[7] = iw;
      sum += src_load(at);
    }
  }
  value = sum / float(divisor);
  return true;
}

#include "main.glsl"
