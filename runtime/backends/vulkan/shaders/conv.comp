// conv.comp - 1-D and 2-D convolution, grouped, dilated or transposed (so
// general, depthwise and pointwise alike), plus bias and a fused clamp.
// iarg[0]: stride h, w, padding h, w; iarg[1]: dilation h, w, groups,
// transposed; iarg[2]: kernel h, w, spatial dims (1 or 2).
// farg[0]: clamp min, max. FLAG0: a bias is bound (binding 6). FLAG1: the
// kernel (vulkan.fbs ConvKernel, chosen per dispatch by DispatchPlan):
// - CONV_KERNEL_ELEMENT (the `conv` family, either storage): each lane of an
//   output texel computed on its own, for every kind of convolution. The
//   weight is a buffer (binding 5) as the model holds it: [Cout, Cin/groups,
//   kh, kw], or [Cin, Cout/groups, kh, kw] when transposed; a 1-D
//   convolution has kh 1.
// The `conv_texel` family (-DTEXEL_KERNELS) holds the kernels that compute a
// whole output texel (four output channels) per invocation on textures that
// pack C: channels-packed [N, C, H, W] for a 2-D convolution, height-packed
// [N, C, L] for a 1-D one (its texel (l, c4, n) holds channels 4*c4..4*c4+3),
// reading each input texel of the window once for all four. Lavapipe loads a storage buffer one lane and one component at a
// time, a texel of an image in one gather, so their weight is a texture
// too (input slot 2, binding 3), packed at load with zeros past its end:
// - CONV_KERNEL_TEXEL: groups that fill whole texels (groups == 1
//   included); the weight as [Cout, Cin/groups, kh*kw] height-packed, so the
//   texel (tap, t, oc) holds input channels 4t..4t+3 of output channel oc;
// - CONV_KERNEL_DEPTHWISE_TEXEL: one channel per group; the weight as
//   [1, C, kh, kw] channels-packed, the texel (j, i, c4) holding tap (i, j)
//   of channels 4*c4..4*c4+3.
// A 1-D convolution is one of kh 1, its tensors' H a size-1 dim.
// iarg[3].x: the invocations that share each work item, splitting its
// (input texel, kernel row) pairs (CONV_KERNEL_TEXEL) or its kernel rows
// (CONV_KERNEL_DEPTHWISE_TEXEL) between them.
// -DTEXEL_KERNELS -DTILE_KERNEL=1 or 2 (the conv_tiled and conv_tiled_big
// families, for CONV_KERNEL_TEXEL in one group with enough output
// positions): the convolution as a product, run by tile.glsl's small or big
// tile: rows are a batch's output positions, columns its output channels,
// the depth the (input texel, kernel tap) pairs, whose input texels are
// fetched where the window puts them (an implicit GEMM; nothing is
// gathered first). The weight is the texel kernel's. Every texel kernel
// stores through epilogue.glsl after its clamp (an add and an activation
// the plan folded into the convolution), its addend input slot 3 (binding
// 4).
#version 450
#extension GL_EXT_control_flow_attributes : require
#define TILE_SPLIT 1
#if TILE_KERNEL == 2
// The big tile's invocations (tile.glsl): 128 keep enough of them per SM on
// an H200 for a product of a few hundred tiles (docs/vulkan.md).
#define BIG_THREADS 128
#define LOCAL_SIZE_X BIG_THREADS
#endif
#include "tensor.glsl"

TENSOR_INPUT(src, 1, 2, IN0_PACKING)
WEIGHT(bias, 6)

#ifndef TEXEL_KERNELS
WEIGHT(weight, 5)

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

#else
INPUT_IMAGE(packedWeight, 3);
// The epilogue's addend (epilogue.glsl), input slot 3.
INPUT_IMAGE(addend, 4);

#define DUET_OWN_MAIN
#define DUET_NO_ELEMENT
#include "main.glsl"
#include "epilogue.glsl"

// A 1-D convolution: its tensors are height-packed (DispatchPlan gives the
// texel kernels no other), a specialization constant, so every test of it
// is folded when the pipeline is made.
bool oneD() { return IN0_PACKING == LAYOUT_HEIGHT_PACKED; }

// The texel holding channels 4*c4..4*c4+3 at (h, w) of the image layer (2-D:
// the batch's first channel texel) or batch (1-D, where h is 0) `base`.
ivec3 texelAt(int base, int c4, int h, int w) {
  return oneD() ? ivec3(w, c4, base) : ivec3(w, h, base + c4);
}

#ifdef TILE_KERNEL
// The product tile.glsl computes, layer z being batch n: row m is output
// position (m / OW, m % OW), depth texel kt = t * taps + tap holds input
// channels 4t..4t+3 at kernel tap (tap / kw, tap % kw).
int channelDim() { return oneD() ? 6 : 5; }
int outH() { return oneD() ? 1 : size(0, 6); }
int inTexels() { return (size(1, channelDim()) + 3) / 4; }
int taps() { return P.iarg[2].x * P.iarg[2].y; }

ivec2 tileGrid() {
  return ivec2((size(0, channelDim()) + 3) / 4, outH() * size(0, 7));
}
int tileDepth() { return inTexels() * taps() * 4; }

MVEC4 tileLhs(int row, int kt, int z) {
  int outW = size(0, 7), kw = P.iarg[2].y;
  int t = kt / taps(), tap = kt % taps();
  int oh = row / outW, ow = row % outW;
  ivec4 sp = P.iarg[0], dg = P.iarg[1];
  int ih = oh * sp.x - sp.z + tap / kw * dg.x;
  int iw = ow * sp.y - sp.w + tap % kw * dg.y;
  int inH = oneD() ? 1 : size(1, 6), inW = size(1, 7);
  if (t >= inTexels() || oh >= outH() || ih < 0 || ih >= inH || iw < 0 ||
      iw >= inW)
    return MVEC4(0.0);
  int base = oneD() ? z : z * inTexels();
  vec4 x = inputTexel(src, texelAt(base, t, ih, iw));
  // The padding lanes of the last texel (the weight's are zero, but an
  // image's padding need not be).
  int channels = size(1, channelDim());
  if (t * 4 + 4 > channels)
    x = mix(vec4(0.0), x, lessThan(ivec4(t * 4) + ivec4(0, 1, 2, 3), ivec4(channels)));
  return MVEC4(x);
}

// Output channel n's weights for depth texel kt.
MVEC4 tileRhs(int n, int kt, int z) {
  int t = kt / taps(), tap = kt % taps();
  // Uniforms read before the test, as matmul.comp's hooks do.
  int channels = size(0, channelDim()), texels = inTexels();
  return n < channels && t < texels
             ? MVEC4(inputTexel(packedWeight, ivec3(tap, t, n)))
             : MVEC4(0.0);
}

bvec4 liveChannels(int x) {
  return lessThan(ivec4(x * 4) + ivec4(0, 1, 2, 3), ivec4(size(0, channelDim())));
}

vec4 tileBias(int x) {
  vec4 b = vec4(0.0);
  bvec4 live = liveChannels(x);
  if (FLAG0 != 0)
    for (int l = 0; l < 4; ++l)
      if (live[l])
        b[l] = bias.v[x * 4 + l];
  return b;
}

void tileStore(int x, int row, int z, vec4 value) {
  int outW = size(0, 7);
  int base = oneD() ? z : z * ((size(0, channelDim()) + 3) / 4);
  ivec3 texel = texelAt(base, x, row / outW, row % outW);
  vec4 result = min(max(value, vec4(P.farg[0].x)), vec4(P.farg[0].y));
  imageStore(outImg, texel,
             imageValue(mix(vec4(0.0), epilogue(result, texel),
                            liveChannels(x))));
}

#include "tile.glsl"

void main() { tileMain(); }
#else
// Output texels along x per invocation: each weight texel fetched serves
// all of them. DispatchPlan.h's kConvTexelBlock, which sizes the work.
#define TEXEL_BLOCK 4

#include "split.glsl"
#if SPLIT_SUMS != TEXEL_BLOCK
#error "split.glsl adds TEXEL_BLOCK sums per work item"
#endif

// Work item `item` of a convolution: output texels (ow0 + b) of row oh,
// channel texel oc4, batch n, for b < TEXEL_BLOCK, those inside the image;
// `slice` of `split` invocations computing it. Every invocation of the
// workgroup calls it (`inRange` false past the last item), for the barriers.
void convTexel(int item, int slice, int split, bool inRange) {
  int gx = P.t[0].geom.x, gy = P.t[0].geom.y;
  int blocks = (gx + TEXEL_BLOCK - 1) / TEXEL_BLOCK;
  int ow0 = (item % blocks) * TEXEL_BLOCK, y = (item / blocks) % gy;
  int z = item / (blocks * gy);
  int channelDim = oneD() ? 6 : 5;
  int inChannels = size(1, channelDim), outChannels = size(0, channelDim);
  int outTexels = (outChannels + 3) / 4;
  // 2-D: y is the row, z the batch's channel texels; 1-D: y is the
  // channel texel, z the batch.
  int oh = oneD() ? 0 : y;
  int n = oneD() ? z : z / outTexels, oc4 = oneD() ? y : z % outTexels;
  int inH = oneD() ? 1 : size(1, 6), inW = size(1, 7);
  int inBase = oneD() ? n : n * ((inChannels + 3) / 4);
  int outBase = oneD() ? n : n * outTexels;
  ivec4 sp = P.iarg[0], dg = P.iarg[1];
  int kh = P.iarg[2].x, kw = P.iarg[2].y;
  int inPerGroup = inChannels / dg.z, outPerGroup = outChannels / dg.z;
  ivec4 oc = ivec4(oc4 * 4) + ivec4(0, 1, 2, 3);
  bvec4 live = lessThan(oc, ivec4(outChannels));
  // Padding lanes read the last channel's weights; their sums are dropped.
  ivec4 ocRead = min(oc, ivec4(outChannels - 1));
  vec4 start = vec4(0.0);
  if (FLAG0 != 0 && slice == 0)
    for (int l = 0; l < 4; ++l)
      if (live[l])
        start[l] = bias.v[oc[l]];
  vec4 sum[TEXEL_BLOCK];
  for (int b = 0; b < TEXEL_BLOCK; ++b)
    sum[b] = start;

  if (!inRange) {
  } else if (FLAG1 == CONV_KERNEL_DEPTHWISE_TEXEL) {
    // The split shares the kernel rows. Each row goes four taps at a time,
    // every load of the four issued before their sums: a GPU then waits
    // for memory once per four taps, not once per tap, which decides a
    // deep small layer's time (few invocations, each a long chain).
    for (int i = slice; i < kh; i += split) {
      int ih = oh * sp.x - sp.z + i * dg.x;
      if (ih < 0 || ih >= inH)
        continue;
      for (int j0 = 0; j0 < kw; j0 += 4) {
        MVEC4 w[4];
        MVEC4 x[4][TEXEL_BLOCK];
        [[unroll]] for (int j = 0; j < 4; ++j) {
          w[j] = j0 + j < kw
                     ? MVEC4(inputTexel(packedWeight, ivec3(j0 + j, i, oc4)))
                     : MVEC4(0.0);
          [[unroll]] for (int b = 0; b < TEXEL_BLOCK; ++b) {
            int iw = (ow0 + b) * sp.y - sp.w + (j0 + j) * dg.y;
            x[j][b] = j0 + j < kw && iw >= 0 && iw < inW
                          ? MVEC4(inputTexel(src, texelAt(inBase, oc4, ih, iw)))
                          : MVEC4(0.0);
          }
        }
        [[unroll]] for (int b = 0; b < TEXEL_BLOCK; ++b)
          sum[b] += vec4(x[0][b] * w[0] + x[1][b] * w[1] + x[2][b] * w[2] +
                         x[3][b] * w[3]);
      }
    }
  } else {
    // The four output channels share a group: outPerGroup is a multiple of
    // four, or there is one group.
    int group = oc4 * 4 / outPerGroup;
    int first = group * inPerGroup / 4;
    int groupTexels = (inPerGroup + 3) / 4;
    // The split shares (input texel, kernel row) pairs, so a window of
    // many rows over few input channels (a patch embedding) splits too.
    for (int r = slice; r < groupTexels * kh; r += split) {
      int t = r / kh, i = r % kh;
      bvec4 icLive = lessThan(ivec4(t * 4) + ivec4(0, 1, 2, 3),
                              ivec4(inPerGroup));
      int ih = oh * sp.x - sp.z + i * dg.x;
      if (ih < 0 || ih >= inH)
        continue;
      for (int j = 0; j < kw; ++j) {
        int tap = i * kw + j;
        // Column l: output channel l's weights for input texel t.
        MMAT4 w = MMAT4(MVEC4(inputTexel(packedWeight, ivec3(tap, t, ocRead.x))),
                        MVEC4(inputTexel(packedWeight, ivec3(tap, t, ocRead.y))),
                        MVEC4(inputTexel(packedWeight, ivec3(tap, t, ocRead.z))),
                        MVEC4(inputTexel(packedWeight, ivec3(tap, t, ocRead.w))));
        for (int b = 0; b < TEXEL_BLOCK; ++b) {
          int iw = (ow0 + b) * sp.y - sp.w + j * dg.y;
          if (iw >= 0 && iw < inW)
            sum[b] += vec4(
                mix(MVEC4(0.0),
                    MVEC4(inputTexel(src, texelAt(inBase, first + t, ih, iw))),
                    icLive) *
                w);
        }
      }
    }
  }
  addSplits(sum, slice, split);
  if (!inRange || slice != 0)
    return;
  for (int b = 0; b < TEXEL_BLOCK; ++b) {
    if (ow0 + b >= gx)
      break;
    ivec3 texel = texelAt(outBase, oc4, oh, ow0 + b);
    vec4 result = min(max(sum[b], vec4(P.farg[0].x)), vec4(P.farg[0].y));
    imageStore(outImg, texel,
               imageValue(mix(vec4(0.0), epilogue(result, texel), live)));
  }
}

void main() {
  int split = max(P.iarg[3].x, 1);
  int invocation = workItem();
  int item = invocation / split;
  convTexel(item, invocation % split, split, item < P.work.x);
}
#endif
#endif
