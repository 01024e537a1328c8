// conv.comp - 1-D and 2-D convolution, grouped, dilated or transposed (so
// general, depthwise and pointwise alike), plus bias and a fused clamp.
// The weight is read as the model holds it: [Cout, Cin/groups, kh, kw], or
// [Cin, Cout/groups, kh, kw] when transposed; a 1-D convolution has kh 1.
// iarg[0]: stride h, w, padding h, w; iarg[1]: dilation h, w, groups,
// transposed; iarg[2]: kernel h, w, spatial dims (1 or 2).
// farg[0]: clamp min, max. FLAG0: a bias is bound.
#version 450
#include "tensor.glsl"

TENSOR_INPUT(src, 1, 2, IN0_PACKING)
WEIGHT(weight, 5)
WEIGHT(bias, 6)

float sampleAt(bool twoD, int n, int c, int h, int w) {
  int at[8] = int[8](0, 0, 0, 0, 0, 0, 0, 0);
  if (twoD) {
    at[4] = n; at[5] = c; at[6] = h;
  } else {
    at[5] = n; at[6] = c;
  }
  at[7] = w;
  return src_load(at);
}

bool element(int idx[8], out float value) {
  bool twoD = P.iarg[2].z == 2;
  int n = twoD ? idx[4] : idx[5];
  int oc = twoD ? idx[5] : idx[6];
  int oh = twoD ? idx[6] : 0;
  int ow = idx[7];
  int inChannels = size(1, twoD ? 5 : 6);
  int inH = twoD ? size(1, 6) : 1, inW = size(1, 7);
  int outChannels = size(0, twoD ? 5 : 6);
  ivec4 sp = P.iarg[0], dg = P.iarg[1];
  int kh = P.iarg[2].x, kw = P.iarg[2].y;
  int groups = dg.z;
  int inPerGroup = inChannels / groups, outPerGroup = outChannels / groups;
  int group = oc / outPerGroup;
  float sum = FLAG0 != 0 ? bias.v[oc] : 0.0;
  for (int ic = 0; ic < inPerGroup; ++ic) {
    int c = group * inPerGroup + ic;
    for (int i = 0; i < kh; ++i) {
      int ih;
      if (dg.w == 0) {
        ih = oh * sp.x - sp.z + i * dg.x;
      } else {
        int t = oh + sp.z - i * dg.x;
        if (t < 0 || t % sp.x != 0)
          continue;
        ih = t / sp.x;
      }
      if (ih < 0 || ih >= inH)
        continue;
      for (int j = 0; j < kw; ++j) {
        int iw;
        if (dg.w == 0) {
          iw = ow * sp.y - sp.w + j * dg.y;
        } else {
          int t = ow + sp.w - j * dg.y;
          if (t < 0 || t % sp.y != 0)
            continue;
          iw = t / sp.y;
        }
        if (iw < 0 || iw >= inW)
          continue;
        int w = dg.w == 0
                    ? ((oc * inPerGroup + ic) * kh + i) * kw + j
                    : ((c * outPerGroup + oc % outPerGroup) * kh + i) * kw + j;
        sum += sampleAt(twoD, n, c, ih, iw) * weight.v[w];
      }
    }
  }
  value = min(max(sum, P.farg[0].x), P.farg[0].y);
  return true;
}

#include "main.glsl"
