#!/usr/bin/env python3
"""Export duet's statically int8-quantized test fixtures (q_*), in the form PT2E writes.

What it writes
  Into the fixture folder (default: test/models/), for each fixture NAME (all q_*), the
  same files as tools/export_fixtures.py: NAME.training.pt2 (torch.export.export),
  NAME.aten.pt2 (after run_decompositions()), NAME.inputK.npy, NAME.outputK.npy, and
  its entry in MANIFEST.json, merged into the manifest already there (entries of other
  names stay). Each entry has, beyond export_fixtures.py's fields:
    "generator"   "tools/export_quantized.py" (export_fixtures.py keeps such entries)
    "tolerance"   {"rtol", "atol", "why"}: what `duet run --expect` is given for every
                  output of the fixture (test/e2e/fixture_format.py passes it): one int8
                  step of the largest output scale, atol = scale + 1e-6, rtol 0
    "quantized"   the scheme, the calibration, and per output its scale, zero point,
                  the fraction of elements at qmin/qmax and the number of distinct levels
  and per flavour "qdq_check": the quantized_decomposed nodes counted in the saved
  archive, and what feeds every conv/linear (or, in ATEN, convolution/addmm/mm...):
  its activation must come from a dequantize_per_tensor, its weight from a
  dequantize_per_channel, through view-like ops only; "problems" lists what does not.
  With --float-twin, also q_mobilenet_v2_float: the BN-folded float MobileNetV2 the
  quantized one is made from, without q/dq (TRAINING only, ~14 MB), into --bench-out
  (default bench/models), merged into its MANIFEST.json.
  With --notes FILE, a JSON description of how the archives spell the quantized ops
  (one serialized node per quantized_decomposed target, its schema as registered, and
  how the int8 buffers are stored), for the importer's author.

The quantization (what convert_pt2e writes with XNNPACKQuantizer's static config, but
with a MinMax activation observer)
  activations  per-tensor affine int8: quantize_per_tensor.default(x, scale, zp, -128,
               127, torch.int8) straight followed by dequantize_per_tensor.default with the
               same arguments; one dequantize per user of the quantized value (as
               convert_pt2e's DuplicateDQPass leaves it). scale and zp come from a
               MinMaxObserver's formula on float calibration passes: min <= 0 <= max,
               scale = max((max - min) / 255, 2**-12), zp = clamp(-128 - round(min /
               scale), -128, 127), computed in float32.
  weights      conv/linear weights per-channel (axis 0) symmetric int8 in -127..127,
               scale_c = max(max|w_c| / 127, 2**-12), zero points 0 (int64): an int8
               buffer read through dequantize_per_channel.default(w, scales, zero_points,
               0, -127, 127, torch.int8), scales (float32) and zero points buffers too.
               The int8 values are quantize_per_channel's (fold_quantize).
  bias         float32, not quantized. BatchNorm is folded into its conv first
               (torch.nn.utils.fusion.fuse_conv_bn_eval).
  fusion       conv/linear followed by relu or hardtanh(0, 6): one q/dq after the
               activation. add: both inputs from dq, its output q/dq. max_pool2d,
               adaptive_avg_pool2d, flatten: the output re-quantized with the input's
               scale and zero point (shared qparams). The outputs of the network are
               dequantize(quantize(y)) except where a fixture says otherwise.
  Calibration runs the same modules in float (q/dq are identity then, weights float),
  on seeded random batches drawn like the test inputs but distinct from them, so a few
  elements of the test inputs saturate at qmin/qmax, as with real data.

How to run
  On the GPU machine (PyTorch 2.11, torchvision 0.26; the export runs on the CPU), from
  this folder or with it on the path (it imports export_fixtures.py's helpers):
      CUDA_VISIBLE_DEVICES= python3 tools/export_quantized.py [--out DIR] [--only A,B]
          [--float-twin [--bench-out DIR]] [--notes FILE]
  --dry-run builds, calibrates and runs every fixture in eager mode and prints its
  quantization without exporting anything (works with any PyTorch that has
  torch.library; the quantized_decomposed ops are defined here when PyTorch lacks them).
"""

import argparse
import copy
import importlib
import json
import os
import sys
import zipfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_fixtures as fx  # noqa: E402

SEED = fx.SEED
GENERATOR = "tools/export_quantized.py"
QMIN, QMAX = -128, 127          # activations
WQMIN, WQMAX = -127, 127        # weights (symmetric)
EPS = 2.0 ** -12                # XNNPACKQuantizer's observer eps
CALIBRATION_BATCHES = 4

# ---------------------------------------------------------------------------
# The quantized_decomposed ops.
# ---------------------------------------------------------------------------

OPS_SOURCE = None  # where torch.ops.quantized_decomposed came from (recorded)
QD = None          # torch.ops.quantized_decomposed once registered

# The schemas of the ops this script uses, as PyTorch's
# torch/ao/quantization/fx/_decomposed.py registers them. Only used when that module
# is missing (then the archives still name the same targets).
FALLBACK_SCHEMAS = {
    "quantize_per_tensor": "quantize_per_tensor(Tensor input, float scale, int zero_point, "
                           "int quant_min, int quant_max, ScalarType dtype) -> Tensor",
    "quantize_per_tensor.tensor": "quantize_per_tensor.tensor(Tensor input, Tensor scale, "
                                  "Tensor zero_point, int quant_min, int quant_max, "
                                  "ScalarType dtype) -> Tensor",
    "dequantize_per_tensor": "dequantize_per_tensor(Tensor input, float scale, int zero_point, "
                             "int quant_min, int quant_max, ScalarType dtype, *, "
                             "ScalarType? out_dtype=None) -> Tensor",
    "dequantize_per_tensor.tensor": "dequantize_per_tensor.tensor(Tensor input, Tensor scale, "
                                    "Tensor zero_point, int quant_min, int quant_max, "
                                    "ScalarType dtype, *, ScalarType? out_dtype=None) -> Tensor",
    "quantize_per_channel": "quantize_per_channel(Tensor input, Tensor scales, Tensor "
                            "zero_points, int axis, int quant_min, int quant_max, "
                            "ScalarType dtype) -> Tensor",
    "dequantize_per_channel": "dequantize_per_channel(Tensor input, Tensor scales, Tensor? "
                              "zero_points, int axis, int quant_min, int quant_max, "
                              "ScalarType dtype, *, ScalarType? out_dtype=None) -> Tensor",
    "choose_qparams.tensor": "choose_qparams.tensor(Tensor input, int quant_min, int "
                             "quant_max, float eps, ScalarType dtype) -> (Tensor, Tensor)",
}


def _axis_view(t, axis, dims):
    shape = [1] * dims
    shape[axis] = t.numel()
    return t.reshape(shape)


def _fallback_kernels():
    def quantize_per_tensor(x, scale, zero_point, qmin, qmax, dtype):
        return torch.clamp(torch.round(x * (1.0 / scale)) + zero_point, qmin, qmax).to(dtype)

    def dequantize_per_tensor(q, scale, zero_point, qmin, qmax, dtype, out_dtype=None):
        return (q.to(out_dtype or torch.float32) - zero_point) * scale

    def quantize_per_tensor_t(x, scale, zero_point, qmin, qmax, dtype):
        return quantize_per_tensor(x, scale.item(), zero_point.item(), qmin, qmax, dtype)

    def dequantize_per_tensor_t(q, scale, zero_point, qmin, qmax, dtype, out_dtype=None):
        return dequantize_per_tensor(q, scale.item(), zero_point.item(), qmin, qmax, dtype,
                                     out_dtype)

    def quantize_per_channel(x, scales, zero_points, axis, qmin, qmax, dtype):
        s = _axis_view(scales, axis, x.dim())
        z = _axis_view(zero_points, axis, x.dim())
        return torch.clamp(torch.round(x * (1.0 / s)) + z, qmin, qmax).to(dtype)

    def dequantize_per_channel(q, scales, zero_points, axis, qmin, qmax, dtype,
                               out_dtype=None):
        s = _axis_view(scales, axis, q.dim())
        y = q if zero_points is None else q - _axis_view(zero_points, axis, q.dim())
        return (y * s).to(out_dtype or torch.float32)

    def choose_qparams(x, qmin, qmax, eps, dtype):
        lo, hi = torch.aminmax(x)
        return activation_qparams_tensors(lo, hi, qmin, qmax, eps, torch.float64)

    return {
        "quantize_per_tensor": quantize_per_tensor,
        "quantize_per_tensor.tensor": quantize_per_tensor_t,
        "dequantize_per_tensor": dequantize_per_tensor,
        "dequantize_per_tensor.tensor": dequantize_per_tensor_t,
        "quantize_per_channel": quantize_per_channel,
        "dequantize_per_channel": dequantize_per_channel,
        "choose_qparams.tensor": choose_qparams,
    }


def _fallback_meta():
    def dq_like(x, *args, out_dtype=None):
        return torch.empty_like(x, dtype=out_dtype or torch.float32)

    def qparams(x, *args):
        return (torch.empty(1, dtype=torch.float64, device=x.device),
                torch.empty(1, dtype=torch.int64, device=x.device))

    def qpc(x, scales, zero_points, axis, qmin, qmax, dtype):
        return torch.empty_like(x, dtype=dtype)

    return {
        "quantize_per_tensor": lambda x, s, z, lo, hi, dtype: torch.empty_like(x, dtype=dtype),
        "quantize_per_tensor.tensor": lambda x, s, z, lo, hi, dtype:
            torch.empty_like(x, dtype=dtype),
        "dequantize_per_tensor": dq_like,
        "dequantize_per_tensor.tensor": dq_like,
        "quantize_per_channel": qpc,
        "dequantize_per_channel": dq_like,
        "choose_qparams.tensor": qparams,
    }


_FALLBACK_LIBRARY = []


def register_ops():
    """Makes torch.ops.quantized_decomposed usable: PyTorch's own registration
    (torch.ao.quantization.fx._decomposed) where it exists, else this file's."""
    global OPS_SOURCE, QD
    try:
        importlib.import_module("torch.ao.quantization.fx._decomposed")  # registers them
        OPS_SOURCE = "torch.ao.quantization.fx._decomposed"
    except Exception as error:  # recorded; the fallback below defines the ops
        OPS_SOURCE = f"import failed ({type(error).__name__}: {error})"
    missing = [name for name in FALLBACK_SCHEMAS if not _has_op(name)]
    if missing:
        if len(missing) != len(FALLBACK_SCHEMAS):
            sys.exit(f"quantized_decomposed is only partly registered: missing {missing}")
        library = torch.library.Library("quantized_decomposed", "DEF")
        _FALLBACK_LIBRARY.append(library)
        kernels, metas = _fallback_kernels(), _fallback_meta()
        for name, schema in FALLBACK_SCHEMAS.items():
            library.define(schema)
            library.impl(name, kernels[name], "CompositeExplicitAutograd")
            try:
                library.impl(name, metas[name], "Meta")
            except Exception:  # an old PyTorch without Python Meta kernels: eager only
                pass
        OPS_SOURCE += "; defined by tools/export_quantized.py (fallback)"
    QD = torch.ops.quantized_decomposed
    return OPS_SOURCE


def _has_op(name):
    packet, _, overload = name.partition(".")
    try:
        return hasattr(getattr(torch.ops.quantized_decomposed, packet), overload or "default")
    except (AttributeError, RuntimeError):
        return False


def op_schemas():
    """The registered schema of every op this script uses."""
    out = {}
    for name in FALLBACK_SCHEMAS:
        packet, _, overload = name.partition(".")
        op = getattr(getattr(QD, packet), overload or "default")
        out[f"torch.ops.quantized_decomposed.{packet}.{overload or 'default'}"] = str(op._schema)
    return out


# ---------------------------------------------------------------------------
# Observers, quantization points, quantized layers.
# ---------------------------------------------------------------------------


def activation_qparams_tensors(min_val, max_val, qmin, qmax, eps, scale_dtype=torch.float32):
    """MinMaxObserver's per-tensor affine qparams, in float32 as it computes them."""
    min_neg = torch.min(min_val, torch.zeros_like(min_val))
    max_pos = torch.max(max_val, torch.zeros_like(max_val))
    scale = (max_pos - min_neg) / float(qmax - qmin)
    scale = torch.max(scale, torch.tensor([eps], dtype=scale.dtype))
    zero_point = qmin - torch.round(min_neg / scale).to(torch.int)
    zero_point = torch.clamp(zero_point, qmin, qmax)
    return scale.reshape(1).to(scale_dtype), zero_point.reshape(1).to(torch.int64)


class Point:
    """One activation quantization point: the min/max its float values reached during
    calibration, then the scale (Python float) and zero point (int) convert_pt2e writes."""

    def __init__(self, name):
        self.name = name
        self.min_val = None
        self.max_val = None
        self.scale = None
        self.zero_point = None

    def observe(self, x):
        lo, hi = torch.aminmax(x.detach().float())
        self.min_val = lo if self.min_val is None else torch.min(lo, self.min_val)
        self.max_val = hi if self.max_val is None else torch.max(hi, self.max_val)

    def freeze(self):
        if self.min_val is None:
            raise RuntimeError(f"quantization point {self.name} saw no calibration data")
        scale, zero_point = activation_qparams_tensors(self.min_val, self.max_val, QMIN, QMAX,
                                                       EPS)
        self.scale = float(scale)
        self.zero_point = int(zero_point)

    def info(self):
        return {"scale": self.scale, "zero_point": self.zero_point,
                "observed_min": float(self.min_val), "observed_max": float(self.max_val)}


class QModule(nn.Module):
    """A model written the way convert_pt2e's graph reads: q(x, point) quantizes (a
    quantize_per_tensor node), dq(t, point) dequantizes (one per user). mode
    "calibrate": q observes and both are identity (float model); "float": both identity,
    nothing observed (the float twin); "quantized": the real ops."""

    def __init__(self):
        super().__init__()
        self.mode = "calibrate"
        self.points = []
        # One entry per forward() output: its Point, or None for a float output.
        self.output_points = []

    def point(self, name):
        p = Point(name)
        self.points.append(p)
        return p

    def q(self, x, p, observe=True):
        if self.mode == "calibrate":
            if observe:
                p.observe(x)
            return x
        if self.mode == "float":
            return x
        return QD.quantize_per_tensor.default(x, p.scale, p.zero_point, QMIN, QMAX, torch.int8)

    def dq(self, t, p):
        if self.mode != "quantized":
            return t
        return QD.dequantize_per_tensor.default(t, p.scale, p.zero_point, QMIN, QMAX, torch.int8)

    def q_shared(self, x, p):
        """Re-quantizes x with p's qparams (max_pool2d, avg pool, flatten outputs)."""
        return self.q(x, p, observe=False)

    def calibrate(self, batches):
        self.mode = "calibrate"
        with torch.no_grad():
            for batch in batches:
                self(*batch)
        for p in self.points:
            p.freeze()
        for m in self.modules():
            if isinstance(m, QWeighted):
                m.freeze()
        self.mode = "quantized"
        return self


class QWeighted(nn.Module):
    """A conv (1-D, 2-D, 3-D, grouped, depthwise) or linear whose weight is, once frozen,
    an int8 buffer read through dequantize_per_channel (axis 0); the bias stays a float
    parameter."""

    def __init__(self, layer):
        super().__init__()
        if isinstance(layer, nn.Linear):
            self.kind = "linear"
        elif isinstance(layer, (nn.Conv1d, nn.Conv2d, nn.Conv3d)):
            self.kind = {nn.Conv1d: "conv1d", nn.Conv2d: "conv2d", nn.Conv3d: "conv3d"}[type(layer)]
            assert layer.padding_mode == "zeros"
            self.stride, self.padding = layer.stride, layer.padding
            self.dilation, self.groups = layer.dilation, layer.groups
        else:
            raise TypeError(f"cannot quantize {type(layer).__name__}")
        self.weight = nn.Parameter(layer.weight.detach().clone())
        if layer.bias is not None:
            self.bias = nn.Parameter(layer.bias.detach().clone())
        else:
            self.bias = None
        self.frozen = False

    def freeze(self):
        q, scale, zero_point = quantize_weight(self.weight.detach())
        del self.weight
        self.register_buffer("weight", q)
        self.register_buffer("weight_scale", scale)
        self.register_buffer("weight_zero_point", zero_point)
        self.frozen = True

    def get_weight(self):
        if not self.frozen:
            return self.weight
        return QD.dequantize_per_channel.default(self.weight, self.weight_scale,
                                                 self.weight_zero_point, 0, WQMIN, WQMAX,
                                                 torch.int8)

    def forward(self, x):
        w = self.get_weight()
        if self.kind == "linear":
            return F.linear(x, w, self.bias)
        conv = {"conv1d": F.conv1d, "conv2d": F.conv2d, "conv3d": F.conv3d}[self.kind]
        return conv(x, w, self.bias, self.stride, self.padding, self.dilation, self.groups)


def quantize_weight(w):
    """A conv/linear weight quantized per channel (axis 0), symmetric int8 in
    [WQMIN, WQMAX]: (int8 values as quantize_per_channel gives them, float32 scales,
    int64 zero points, all 0). Also used by tools/quantize_archive.py."""
    reduce = tuple(range(1, w.dim()))
    lo = torch.amin(w, dim=reduce)
    hi = torch.amax(w, dim=reduce)
    # PerChannelMinMaxObserver, per_channel_symmetric: max(-min, max) / ((qmax-qmin)/2).
    max_pos = torch.max(-torch.min(lo, torch.zeros_like(lo)),
                        torch.max(hi, torch.zeros_like(hi)))
    scale = torch.max(max_pos / (float(WQMAX - WQMIN) / 2), torch.tensor([EPS]))
    scale = scale.to(torch.float32)
    zero_point = torch.zeros(w.shape[0], dtype=torch.int64)
    q = QD.quantize_per_channel.default(w, scale, zero_point, 0, WQMIN, WQMAX, torch.int8)
    return q, scale, zero_point


def folded(conv, bn):
    """conv with bn folded in (what prepare_pt2e does), BN statistics randomized first."""
    conv.eval()
    bn.eval()
    return torch.nn.utils.fusion.fuse_conv_bn_eval(conv, fx.randomize_batch_norm(bn))


# ---------------------------------------------------------------------------
# Fixtures. Each builder runs right after torch.manual_seed(SEED) and returns
# (description, calibrated QModule, example inputs, options); options["calibration"]
# says how the calibration batches were drawn, "flavours" which archives to keep (default
# both), "deflate" that they are written deflated (q_mobilenet_v2: the tree's size).
# ---------------------------------------------------------------------------


def calibration_batches(shapes, scale=1.0, count=CALIBRATION_BATCHES):
    """count seeded batches (their own generator: the global seed stays the builder's)."""
    generator = torch.Generator().manual_seed(SEED + 1)
    return [tuple(torch.randn(*s, generator=generator) * scale for s in shapes)
            for _ in range(count)]


def calibrated(model, shapes, scale=1.0):
    return model.calibrate(calibration_batches(shapes, scale))


CALIBRATION_TEXT = (f"{CALIBRATION_BATCHES} batches of torch.randn (generator seeded "
                    f"{SEED + 1}) of the input shapes, not the test inputs")


class QConvRelu(QModule):
    def __init__(self):
        super().__init__()
        self.conv1 = QWeighted(folded(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)))
        self.conv2 = QWeighted(nn.Conv2d(8, 12, 3, stride=2))
        self.conv3 = QWeighted(nn.Conv2d(12, 12, 1))
        self.p_in, self.p1, self.p2, self.p3 = (self.point(n) for n in ("x", "relu", "relu6",
                                                                           "pointwise"))
        self.output_points = [self.p3]

    def forward(self, x):
        t = self.q(x, self.p_in)
        t = self.q(F.relu(self.conv1(self.dq(t, self.p_in))), self.p1)
        t = self.q(F.relu6(self.conv2(self.dq(t, self.p1))), self.p2)
        t = self.q(self.conv3(self.dq(t, self.p2)), self.p3)
        return self.dq(t, self.p3)


def build_q_conv_relu():
    shapes = [(1, 3, 16, 16)]
    return ("int8 [1,3,16,16]: Conv2d(3->8, 3x3, pad 1) with a BatchNorm folded in + ReLU, "
            "Conv2d(8->12, 3x3, stride 2, no pad: 7x7) + ReLU6 (relu6.default), pointwise "
            "Conv2d(12->12, 1x1) without activation; one q/dq after each conv+activation, "
            "none between conv and activation",
            calibrated(QConvRelu(), shapes), (torch.randn(*shapes[0]),),
            {"calibration": CALIBRATION_TEXT})


class QDepthwise(QModule):
    def __init__(self):
        super().__init__()
        self.conv = QWeighted(nn.Conv2d(3, 12, 3, padding=1))
        self.dw = QWeighted(nn.Conv2d(12, 12, 3, padding=1, groups=12))
        self.dw2 = QWeighted(nn.Conv2d(12, 24, 3, stride=2, padding=1, groups=12))
        self.p_in, self.p1, self.p2, self.p3 = (self.point(n) for n in ("x", "conv", "dw",
                                                                           "dw2"))
        self.output_points = [self.p3]

    def forward(self, x):
        t = self.q(x, self.p_in)
        t = self.q(self.conv(self.dq(t, self.p_in)), self.p1)
        t = self.q(F.hardtanh(self.dw(self.dq(t, self.p1)), 0.0, 6.0), self.p2)
        t = self.q(self.dw2(self.dq(t, self.p2)), self.p3)
        return self.dq(t, self.p3)


def build_q_depthwise():
    shapes = [(1, 3, 15, 15)]
    return ("int8 [1,3,15,15]: Conv2d(3->12, 3x3, pad 1) without activation; depthwise "
            "Conv2d(12->12, groups 12, 3x3, stride 1, pad 1) + hardtanh(0, 6) "
            "(hardtanh.default, fused); depthwise Conv2d(12->24, groups 12: channel "
            "multiplier 2, 3x3, stride 2, pad 1: 8x8)",
            calibrated(QDepthwise(), shapes), (torch.randn(*shapes[0]),),
            {"calibration": CALIBRATION_TEXT})


class QLinear(QModule):
    def __init__(self):
        super().__init__()
        self.fc1 = QWeighted(nn.Linear(24, 40))
        self.fc2 = QWeighted(nn.Linear(24, 16))
        self.p_a, self.p_b = self.point("a"), self.point("b")
        self.p_fc1, self.p_fc2 = self.point("fc1_relu"), self.point("fc2")
        self.output_points = [self.p_fc1, self.p_fc2]

    def forward(self, a, b):
        ta = self.q(a, self.p_a)
        tb = self.q(b, self.p_b)
        t1 = self.q(F.relu(self.fc1(self.dq(ta, self.p_a))), self.p_fc1)
        t2 = self.q(self.fc2(self.dq(tb, self.p_b)), self.p_fc2)
        return self.dq(t1, self.p_fc1), self.dq(t2, self.p_fc2)


def build_q_linear():
    shapes = [(4, 24), (2, 5, 24)]
    return ("int8 linears: [4,24] -> Linear(24->40) + ReLU (fused, one q/dq); [2,5,24] -> "
            "Linear(24->16) (3-D input) without activation; two inputs, two outputs",
            calibrated(QLinear(), shapes), tuple(torch.randn(*s) for s in shapes),
            {"calibration": CALIBRATION_TEXT})


class QAddPool(QModule):
    def __init__(self):
        super().__init__()
        self.stem = QWeighted(nn.Conv2d(3, 8, 3, padding=1))
        self.branch_a = QWeighted(nn.Conv2d(8, 8, 3, padding=1))
        self.branch_b = QWeighted(nn.Conv2d(8, 8, 1))
        self.fc = QWeighted(nn.Linear(8, 10))
        self.p_in, self.p_stem = self.point("x"), self.point("stem_relu")
        self.p_a, self.p_b = self.point("branch_a_relu"), self.point("branch_b")
        self.p_add, self.p_fc = self.point("add"), self.point("fc")
        self.output_points = [self.p_fc]

    def forward(self, x):
        t = self.q(x, self.p_in)
        t = self.q(F.relu(self.stem(self.dq(t, self.p_in))), self.p_stem)
        ta = self.q(F.relu(self.branch_a(self.dq(t, self.p_stem))), self.p_a)
        tb = self.q(self.branch_b(self.dq(t, self.p_stem)), self.p_b)
        t = self.q(self.dq(ta, self.p_a) + self.dq(tb, self.p_b), self.p_add)
        t = self.q_shared(F.max_pool2d(self.dq(t, self.p_add), 2), self.p_add)
        t = self.q_shared(F.adaptive_avg_pool2d(self.dq(t, self.p_add), 1), self.p_add)
        t = self.q_shared(torch.flatten(self.dq(t, self.p_add), 1), self.p_add)
        t = self.q(self.fc(self.dq(t, self.p_add)), self.p_fc)
        return self.dq(t, self.p_fc)


def build_q_add_pool():
    shapes = [(1, 3, 12, 12)]
    return ("int8 [1,3,12,12]: Conv2d(3->8, 3x3)+ReLU stem whose quantized output feeds two "
            "branches (two dequantize nodes of one quantize), Conv2d(8->8, 3x3)+ReLU and "
            "Conv2d(8->8, 1x1), added (both add inputs from dq, the sum q/dq with its own "
            "qparams), max_pool2d(2), adaptive_avg_pool2d(1), flatten (each re-quantized "
            "with the add's scale and zero point), Linear(8->10)",
            calibrated(QAddPool(), shapes), (torch.randn(*shapes[0]),),
            {"calibration": CALIBRATION_TEXT})


class QConv3d(QModule):
    def __init__(self):
        super().__init__()
        self.conv = QWeighted(nn.Conv3d(2, 4, 3, padding=1))
        self.p_in, self.p_out = self.point("x"), self.point("conv3d_relu")
        self.output_points = [self.p_out]

    def forward(self, x):
        t = self.q(x, self.p_in)
        t = self.q(F.relu(self.conv(self.dq(t, self.p_in))), self.p_out)
        return self.dq(t, self.p_out)


def build_q_conv3d():
    shapes = [(1, 2, 4, 6, 6)]
    return ("int8 Conv3d(2->4, 3x3x3, pad 1) + ReLU on [1,2,4,6,6], weight per-channel "
            "int8 [4,2,3,3,3]: XNNPACK has no 3-D convolution, so the q/dq nodes around it "
            "must stay (computed in float from the dequantized values)",
            calibrated(QConv3d(), shapes), (torch.randn(*shapes[0]),),
            {"calibration": CALIBRATION_TEXT})


class QLinear8d(QModule):
    def __init__(self):
        super().__init__()
        self.fc = QWeighted(nn.Linear(8, 6))
        self.p_in, self.p_out = self.point("x"), self.point("fc")
        self.output_points = [self.p_out]

    def forward(self, x):
        t = self.q(x, self.p_in)
        t = self.q(self.fc(self.dq(t, self.p_in)), self.p_out)
        return self.dq(t, self.p_out)


def build_q_linear_8d():
    shapes = [(1, 2, 1, 2, 1, 2, 3, 8)]
    return ("int8 Linear(8->6) on an 8-D input [1,2,1,2,1,2,3,8]: XNNPACK allows at most "
            "6 dimensions, so the q/dq nodes must stay where the linear is not delegated",
            calibrated(QLinear8d(), shapes), (torch.randn(*shapes[0]),),
            {"calibration": CALIBRATION_TEXT})


class QConvFloatOut(QModule):
    def __init__(self):
        super().__init__()
        self.conv_float = QWeighted(nn.Conv2d(3, 6, 3, padding=1))
        self.conv_q = QWeighted(nn.Conv2d(3, 6, 3, padding=1))
        self.p_in, self.p_out = self.point("x"), self.point("conv_q_relu")
        self.output_points = [None, self.p_out]

    def forward(self, x):
        t = self.q(x, self.p_in)
        y = self.conv_float(self.dq(t, self.p_in))
        tq = self.q(F.relu(self.conv_q(self.dq(t, self.p_in))), self.p_out)
        return y, self.dq(tq, self.p_out)


def build_q_conv_float_out():
    shapes = [(1, 3, 10, 10)]
    return ("int8 input [1,3,10,10] quantized once, dequantized twice: output0 = "
            "Conv2d(3->6, 3x3, pad 1) of the dequantized input with an int8 per-channel "
            "weight and NO quantize after it (a float32 output); output1 = another such "
            "conv + ReLU, quantized and dequantized as usual",
            calibrated(QConvFloatOut(), shapes), (torch.randn(*shapes[0]),),
            {"calibration": CALIBRATION_TEXT})


class QTensorOverloads(QModule):
    """The .tensor overloads: scale and zero point are 0-d buffers (float32 / int64)."""

    def __init__(self):
        super().__init__()
        self.fc = QWeighted(nn.Linear(16, 12))
        self.p_in, self.p_out = self.point("x"), self.point("fc_relu")
        self.output_points = [self.p_out]

    def calibrate(self, batches):
        super().calibrate(batches)
        for name, p in (("x", self.p_in), ("out", self.p_out)):
            self.register_buffer(f"{name}_scale", torch.tensor(p.scale, dtype=torch.float32))
            self.register_buffer(f"{name}_zero_point",
                                 torch.tensor(p.zero_point, dtype=torch.int64))
            # The op computes with the buffer's value: float32-rounded (exact here,
            # since the observer's scale is a float32 already).
            assert float(getattr(self, f"{name}_scale")) == p.scale
        return self

    def qt(self, x, name):
        if self.mode != "quantized":
            return self.q(x, self.p_in if name == "x" else self.p_out)
        return QD.quantize_per_tensor.tensor(x, getattr(self, f"{name}_scale"),
                                             getattr(self, f"{name}_zero_point"),
                                             QMIN, QMAX, torch.int8)

    def dqt(self, t, name):
        if self.mode != "quantized":
            return t
        return QD.dequantize_per_tensor.tensor(t, getattr(self, f"{name}_scale"),
                                               getattr(self, f"{name}_zero_point"),
                                               QMIN, QMAX, torch.int8)

    def forward(self, x):
        t = self.qt(x, "x")
        t = self.qt(F.relu(self.fc(self.dqt(t, "x"))), "out")
        return self.dqt(t, "out")


def build_q_tensor_overloads():
    shapes = [(3, 16)]
    return ("quantize_per_tensor.tensor / dequantize_per_tensor.tensor (scale a 0-d float32 "
            "buffer, zero point a 0-d int64 buffer) around Linear(16->12)+ReLU on [3,16]; the "
            "weight through dequantize_per_channel as usual",
            calibrated(QTensorOverloads(), shapes), (torch.randn(*shapes[0]),),
            {"calibration": CALIBRATION_TEXT})


class QDynamicLinear(QModule):
    """Dynamic-range quantization as convert_pt2e writes it for XNNPACKQuantizer's
    dynamic config: qparams chosen per call from the input (choose_qparams.tensor),
    weight per-channel int8, output float."""

    def __init__(self):
        super().__init__()
        self.fc = QWeighted(nn.Linear(32, 20))
        self.output_points = [None]

    def forward(self, x):
        if self.mode == "quantized":
            scale, zero_point = QD.choose_qparams.tensor(x, QMIN, QMAX, EPS, torch.int8)
            t = QD.quantize_per_tensor.tensor(x, scale, zero_point, QMIN, QMAX, torch.int8)
            x = QD.dequantize_per_tensor.tensor(t, scale, zero_point, QMIN, QMAX, torch.int8)
        return self.fc(x)


def build_q_dynamic_linear():
    shapes = [(4, 32)]
    return (f"dynamic int8 Linear(32->20) on [4,32]: choose_qparams.tensor(x, -128, 127, "
            f"eps={EPS!r}, int8) -> (scale [1] float64, zero point [1] int64), "
            "quantize_per_tensor.tensor -> dequantize_per_tensor.tensor -> linear with a "
            "per-channel int8 weight through dequantize_per_channel; the output is float "
            "(not re-quantized)",
            calibrated(QDynamicLinear(), shapes), (torch.randn(*shapes[0]) * 2,),
            {"calibration": "none needed for the activation (dynamic); the weight is "
                            "quantized per channel"})


class QMobileNetV2(QModule):
    """torchvision's MobileNetV2 rebuilt from its BN-folded units: the same convs,
    activations (ReLU6(inplace=True) -> hardtanh_), residual adds, adaptive_avg_pool2d,
    flatten and classifier Linear; the eval-mode Dropout is gone."""

    def __init__(self, model):
        super().__init__()
        self.blocks = []   # (units, residual): units are (QWeighted, activation, Point)
        layers = nn.ModuleList()
        for index, feature in enumerate(model.features):
            units = []
            for conv, act in conv_units(feature):
                layers.append(QWeighted(conv))
                units.append((len(layers) - 1, act, self.point(f"features.{index}.{len(units)}")))
            residual = bool(getattr(feature, "use_res_connect", False))
            self.blocks.append((units, self.point(f"features.{index}.add") if residual else None))
        self.layers = layers
        self.activations = nn.ModuleList(
            [a for units, _ in self.blocks for _, a, _ in units if a is not None])
        linear = [m for m in model.classifier if isinstance(m, nn.Linear)]
        assert len(linear) == 1
        self.classifier = QWeighted(linear[0])
        self.p_in = self.point("x")
        self.p_out = self.point("classifier")
        self.output_points = [self.p_out]

    def forward(self, x):
        point = self.p_in
        t = self.q(x, point)
        for units, add_point in self.blocks:
            block_in, block_point = t, point
            for layer, act, unit_point in units:
                y = self.layers[layer](self.dq(t, point))
                if act is not None:
                    y = act(y)
                t, point = self.q(y, unit_point), unit_point
            if add_point is not None:
                s = self.dq(block_in, block_point) + self.dq(t, point)
                t, point = self.q(s, add_point), add_point
        t = self.q_shared(F.adaptive_avg_pool2d(self.dq(t, point), (1, 1)), point)
        t = self.q_shared(torch.flatten(self.dq(t, point), 1), point)
        t = self.q(self.classifier(self.dq(t, point)), self.p_out)
        return self.dq(t, self.p_out)


def conv_units(module):
    """(conv with its BatchNorm folded, activation module or None) for each conv of a
    MobileNetV2 feature (Conv2dNormActivation or InvertedResidual), in order."""
    units = []

    def walk(m):
        for child in m.children():
            if isinstance(child, nn.Sequential):
                walk(child)
            elif isinstance(child, nn.Conv2d):
                units.append([child, None, None])
            elif isinstance(child, nn.BatchNorm2d):
                assert units and units[-1][1] is None and units[-1][2] is None
                units[-1][1] = child
            elif isinstance(child, (nn.ReLU6, nn.ReLU, nn.Hardtanh)):
                assert units and units[-1][2] is None
                units[-1][2] = child
            else:
                raise TypeError(f"unexpected {type(child).__name__} in a MobileNetV2 feature")

    if isinstance(module, nn.Conv2d):
        units.append([module, None, None])
    else:
        walk(module)
    out = []
    for conv, bn, act in units:
        if bn is not None:
            conv = torch.nn.utils.fusion.fuse_conv_bn_eval(conv.eval(), bn.eval())
        out.append((conv, act))
    return out


def mobilenet_v2_float():
    """torchvision mobilenet_v2 exactly as export_fixtures.py's bench model
    (bench/models/mobilenet_v2.pt2): seed, random weights, calibrated BatchNorm."""
    import torchvision

    torch.manual_seed(SEED)
    model = fx.calibrate_batchnorm(torchvision.models.mobilenet_v2(weights=None))
    torch.manual_seed(SEED)
    x = torch.randn(1, 3, 224, 224)
    return model.eval(), x


MOBILENET_TEXT = ("torchvision mobilenet_v2(weights=None) after torch.manual_seed(0), BatchNorm "
                  "statistics calibrated as bench/models/mobilenet_v2 (16 random batches of 8), "
                  "eval; every BatchNorm folded into its conv; input torch.randn after "
                  "torch.manual_seed(0) (the bench model's input)")


def build_q_mobilenet_v2():
    model, x = mobilenet_v2_float()
    q = QMobileNetV2(model)
    float_twin = copy.deepcopy(q)
    float_twin.mode = "float"
    q.calibrate(calibration_batches([(1, 3, 224, 224)]))
    return ("int8 MobileNetV2: " + MOBILENET_TEXT + "; 52 convs (depthwise included, per-"
            "channel int8 weights), ReLU6 (nn.ReLU6(inplace=True): hardtanh_) fused into the "
            "q/dq after its conv, 10 residual adds (both inputs from dq, the sum q/dq), "
            "adaptive_avg_pool2d and flatten re-quantized with the last conv's qparams, "
            "Dropout gone (eval), classifier Linear(1280->1000), its output q/dq",
            q, (x,), {"calibration": CALIBRATION_TEXT, "strip_example_inputs": True,
                      "float_twin": float_twin, "flavours": ("aten",), "deflate": True})


FIXTURES = {
    "q_conv_relu": build_q_conv_relu,
    "q_depthwise": build_q_depthwise,
    "q_linear": build_q_linear,
    "q_add_pool": build_q_add_pool,
    "q_conv3d": build_q_conv3d,
    "q_linear_8d": build_q_linear_8d,
    "q_conv_float_out": build_q_conv_float_out,
    "q_tensor_overloads": build_q_tensor_overloads,
    "q_dynamic_linear": build_q_dynamic_linear,
    "q_mobilenet_v2": build_q_mobilenet_v2,
}


# ---------------------------------------------------------------------------
# Manifest fields: tolerance and quantization of the outputs.
# ---------------------------------------------------------------------------


def output_quantization(outputs, points):
    """Per output: its scale and zero point (or that it is float), the fractions of its
    elements at qmin and at qmax (after a ReLU, qmin is zero) and how many distinct int8
    levels it uses."""
    out = []
    for y, p in zip(outputs, points):
        if p is None:
            out.append({"float": True, "max_abs": float(y.abs().max())})
            continue
        levels = torch.round(y / p.scale) + p.zero_point
        out.append({"scale": p.scale, "zero_point": p.zero_point, "quant_min": QMIN,
                    "quant_max": QMAX, "dtype": "int8",
                    "at_quant_min": float((levels <= QMIN).float().mean()),
                    "at_quant_max": float((levels >= QMAX).float().mean()),
                    "levels": int(torch.unique(levels).numel()),
                    "max_abs": float(y.abs().max())})
    return out


def tolerance(points):
    scales = [p.scale for p in points if p is not None]
    if not scales:
        return {"rtol": 1e-4, "atol": 1e-5,
                "why": "no quantized output: duet run's float32 default, stated"}
    why = "one int8 step of the output's quantization"
    if len(scales) > 1:
        why = "one int8 step of the largest output scale"
    if None in points:
        why += ("; duet run takes one tolerance for all outputs, so the float output(s) "
                "are held to this bound too")
    return {"rtol": 0.0, "atol": max(scales) * 1.0 + 1e-6, "why": why}


# ---------------------------------------------------------------------------
# Reading the saved archive back: the q/dq structure around every conv/linear.
# ---------------------------------------------------------------------------

VIEW_LIKE = {"view", "_unsafe_view", "reshape", "permute", "t", "transpose", "expand",
             "clone", "contiguous", "unsqueeze", "squeeze", "alias", "flatten"}
# Compute op -> (activation input, weight input, bias input) by schema argument name.
COMPUTE = {
    "conv1d": ("input", "weight", "bias"), "conv2d": ("input", "weight", "bias"),
    "conv3d": ("input", "weight", "bias"), "convolution": ("input", "weight", "bias"),
    "linear": ("input", "weight", "bias"), "addmm": ("mat1", "mat2", "self"),
    "mm": ("self", "mat2", None), "matmul": ("self", "other", None),
    "bmm": ("self", "mat2", None),
}
QD_PREFIX = "torch.ops.quantized_decomposed."


def read_model(path):
    with zipfile.ZipFile(path) as archive:
        name = [n for n in archive.namelist() if n.endswith("/models/model.json")][0]
        return json.loads(archive.read(name))


def tensor_names(value):
    """Every tensor name an argument (serialized) refers to."""
    names = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "as_tensor" and isinstance(item, dict) and "name" in item:
                names.append(item["name"])
            elif key == "as_tensors" and isinstance(item, list):
                names += [t["name"] for t in item if isinstance(t, dict) and "name" in t]
            else:
                names += tensor_names(item)
    elif isinstance(value, list):
        for item in value:
            names += tensor_names(item)
    return names


def op_name(target):
    parts = target.split(".")
    return parts[3] if len(parts) >= 5 and parts[:2] == ["torch", "ops"] else target


def placeholder_kinds(model):
    kinds = {}
    for spec in model["graph_module"]["signature"]["input_specs"]:
        (kind, body), = spec.items()
        arg = body.get("arg", {})
        name = arg.get("name") or (arg.get("as_tensor") or {}).get("name")
        if name:
            kinds[name] = kind
    return kinds


def qdq_check(path):
    """Counts of the quantized_decomposed nodes, and what feeds each conv/linear."""
    model = read_model(path)
    nodes = model["graph_module"]["graph"]["nodes"]
    producer, users = {}, {}
    for node in nodes:
        for name in tensor_names(node["outputs"]):
            producer[name] = node
        for argument in node["inputs"]:
            for name in tensor_names(argument["arg"]):
                users.setdefault(name, []).append(node)
    kinds = placeholder_kinds(model)

    def source(name):
        hops = []
        while name in producer and op_name(producer[name]["target"]) in VIEW_LIKE:
            node = producer[name]
            hops.append(op_name(node["target"]))
            name = tensor_names(node["inputs"][0]["arg"])[0]
        if name not in producer:
            return kinds.get(name, "input"), hops
        target = producer[name]["target"]
        if target.startswith(QD_PREFIX):
            return target[len(QD_PREFIX):], hops
        return "op:" + op_name(target), hops

    counts, problems, compute = {}, [], []
    for node in nodes:
        target = node["target"]
        if target.startswith(QD_PREFIX):
            counts[target] = counts.get(target, 0) + 1
        name = op_name(target)
        if name.startswith("quantize_per_tensor"):
            for out in tensor_names(node["outputs"]):
                bad = [op_name(u["target"]) for u in users.get(out, [])
                       if not op_name(u["target"]).startswith("dequantize_per_tensor")]
                if bad:
                    problems.append(f"{node['name']}: quantized value used by {bad}")
        if name.startswith("dequantize_per_tensor"):
            src, _ = source(tensor_names(node["inputs"][0]["arg"])[0])
            if not src.startswith("quantize_per_tensor"):
                problems.append(f"{node['name']}: dequantizes {src}, not a quantize")
        if name not in COMPUTE:
            continue
        roles = dict(zip(("activation", "weight", "bias"), COMPUTE[name]))
        args = {a["name"]: tensor_names(a["arg"]) for a in node["inputs"]}
        seen = {}
        for role, arg_name in roles.items():
            if arg_name is None or not args.get(arg_name):
                continue
            src, hops = source(args[arg_name][0])
            seen[role] = src + ("" if not hops else " via " + ",".join(hops))
        compute.append({"node": node["name"], "op": name, **seen})
        act, weight = seen.get("activation", ""), seen.get("weight", "")
        if not act.startswith("dequantize_per_tensor"):
            problems.append(f"{node['name']} ({name}): activation from {act}")
        if not weight.startswith("dequantize_per_channel"):
            problems.append(f"{node['name']} ({name}): weight from {weight}")
        if "bias" in seen and not seen["bias"].startswith("parameter"):
            problems.append(f"{node['name']} ({name}): bias from {seen['bias']}")
    return {"counts": counts, "compute_nodes": len(compute), "problems": problems,
            "compute": compute if len(compute) <= 8 else compute[:4] + compute[-2:]}


def archive_notes(path, notes):
    """Adds to notes what the importer needs to know about one archive: one serialized
    node per quantized_decomposed target (first seen), and how int8 buffers are stored."""
    model = read_model(path)
    graph = model["graph_module"]["graph"]
    flavour = (model.get("verifiers") or ["?"])[0]
    nodes_seen = notes.setdefault("nodes", {}).setdefault(flavour, {})
    for node in graph["nodes"]:
        target = node["target"]
        if target.startswith(QD_PREFIX) and target not in nodes_seen:
            nodes_seen[target] = {
                "archive": os.path.basename(path),
                "inputs": node["inputs"], "outputs": node["outputs"],
                "output_meta": [graph["tensor_values"].get(n)
                                for n in tensor_names(node["outputs"])],
            }
    storage = notes.setdefault("storage", {})
    if flavour in storage:
        return
    with zipfile.ZipFile(path) as archive:
        entries = {i.filename.split("/", 1)[1]: i for i in archive.infolist()}
        configs = {}
        for key in ("data/weights/model_weights_config.json",
                    "data/constants/model_constants_config.json"):
            if key in entries:
                configs[key] = json.loads(archive.read(entries[key].filename))["config"]
        int8 = {}
        for key, config in configs.items():
            for name, item in config.items():
                meta = item.get("tensor_meta", {})
                if meta.get("dtype") != 7:  # not float32
                    folder = key.rsplit("/", 1)[0]
                    info = entries.get(f"{folder}/{item.get('path_name')}")
                    int8[name] = {"config": key, **item,
                                  "stored_bytes": info.file_size if info else None,
                                  "compress_type": info.compress_type if info else None}
        specs = [s for s in model["graph_module"]["signature"]["input_specs"]
                 if "buffer" in s or "tensor_constant" in s]
    storage[flavour] = {"archive": os.path.basename(path), "non_float32_tensors": int8,
                        "buffer_and_constant_input_specs": specs[:6],
                        "files": sorted(entries)}


# ---------------------------------------------------------------------------
# Export.
# ---------------------------------------------------------------------------


def export_one(name, builder, out_dir, notes):
    torch.manual_seed(SEED)
    description, model, args, options = builder()
    model = model.eval()
    with torch.no_grad():
        outputs = fx.as_tuple(model(*args))
    points = model.output_points
    assert len(points) == len(outputs), name

    training = torch.export.export(model, args)
    aten = training.run_decompositions()
    if options.get("strip_example_inputs"):
        # The .npy files hold the input; the archives' sample_inputs would repeat it.
        training.example_inputs = None
        aten.example_inputs = None

    entry = {"name": name, "generator": GENERATOR, "description": description,
             "inputs": [], "outputs": []}
    for kind, tensors in (("input", args), ("output", outputs)):
        for i, t in enumerate(tensors):
            file = f"{name}.{kind}{i}.npy"
            np.save(os.path.join(out_dir, file), fx.to_numpy(t))
            entry[kind + "s"].append({"file": file, **fx.tensor_info(t),
                                      "npy_dtype": str(fx.to_numpy(t).dtype)})
    entry["tolerance"] = tolerance(points)
    entry["quantized"] = {
        "activations": f"per-tensor affine int8 [{QMIN}, {QMAX}], MinMax observer, eps {EPS!r}",
        "weights": f"per-channel (axis 0) symmetric int8 [{WQMIN}, {WQMAX}], int8 buffers "
                   "through dequantize_per_channel; bias float32",
        "calibration": options.get("calibration"),
        "ops_registered_by": OPS_SOURCE,
        "activation_points": len(model.points),
        "quantized_weights": sum(isinstance(m, QWeighted) for m in model.modules()),
        "outputs": output_quantization(outputs, points),
        "inputs": [p.info() for p in model.points if p.name in ("x", "a", "b")],
    }
    entry["flavours"] = {}
    for flavour, ep in (("training", training), ("aten", aten)):
        if flavour not in options.get("flavours", ("training", "aten")):
            continue
        path = os.path.join(out_dir, f"{name}.{flavour}.pt2")
        info = fx.save_flavour(ep, path, args, outputs)
        info["qdq_check"] = qdq_check(path)
        info["quantized_decomposed_kept"] = any(op.startswith(QD_PREFIX) for op in info["ops"])
        archive_notes(path, notes)
        if options.get("deflate"):
            info["stored_bytes"] = info["bytes"]
            info["bytes"] = deflate_archive(path)
        entry["flavours"][flavour] = info
    twin = options.get("float_twin")
    return entry, (twin, args) if twin is not None else None


def deflate_archive(path):
    """Rewrites the archive with every entry deflated (torch.export.save stores them), the
    same entries, names, order and dates; returns its new size. For the fixtures too large
    to keep stored in the tree: duet's reader inflates them."""
    with zipfile.ZipFile(path) as z:
        entries = [(info, z.read(info.filename)) for info in z.infolist()]
    with zipfile.ZipFile(path, "w") as z:
        for old, data in entries:
            info = zipfile.ZipInfo(old.filename, date_time=old.date_time)
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data, compresslevel=9)
    return os.path.getsize(path)


def export_float_twin(twin, args, bench_dir):
    """q_mobilenet_v2_float: the BN-folded float model, TRAINING only (the ATEN op list
    read from a scratch save), as export_fixtures.py writes the bench models."""
    name = "q_mobilenet_v2_float"
    twin = twin.eval()
    with torch.no_grad():
        outputs = fx.as_tuple(twin(*args))
    training = torch.export.export(twin, args)
    training.example_inputs = None
    path = os.path.join(bench_dir, f"{name}.pt2")
    flavour = fx.save_flavour(training, path, args, outputs)
    scratch = os.path.join(bench_dir, f"{name}.aten.scratch.pt2")
    torch.export.save(training.run_decompositions(), scratch)
    aten_ops, _ = fx.archive_ops(scratch)
    os.remove(scratch)
    entry = {"name": name, "generator": GENERATOR,
             "description": "the float twin of test/models/q_mobilenet_v2: " + MOBILENET_TEXT
                            + "; no q/dq, float32 weights, Dropout gone (eval)",
             "inputs": [], "outputs": []}
    for kind, tensors in (("input", args), ("output", outputs)):
        for i, t in enumerate(tensors):
            file = f"{name}.{kind}{i}.npy"
            np.save(os.path.join(bench_dir, file), fx.to_numpy(t))
            entry[kind + "s"].append({"file": file, **fx.tensor_info(t), "npy_dtype": "float32"})
    entry["flavours"] = {"training": flavour,
                         "aten": {"file": None, "note": "not saved; op list only",
                                  "ops": aten_ops}}
    return entry


def merge_manifest(path, key, entries, header):
    """Replaces the entries of these names in path's list key (others stay, in order)."""
    manifest = dict(header)
    if os.path.exists(path):
        with open(path) as f:
            manifest = json.load(f)
    fresh = {e["name"]: e for e in entries}
    old = [fresh.pop(e["name"], e) for e in manifest.get(key, [])]
    manifest[key] = old + list(fresh.values())
    fx.write_json(path, manifest)


def dry_run(names):
    """Builds, calibrates and runs every fixture in eager mode; no export."""
    for name in names:
        torch.manual_seed(SEED)
        description, model, args, options = FIXTURES[name]()
        with torch.no_grad():
            outputs = fx.as_tuple(model.eval()(*args))
            model.mode = "float"
            floats = fx.as_tuple(model(*args))
            model.mode = "quantized"
            again = fx.as_tuple(model(*args))
        assert all(torch.equal(a, b) for a, b in zip(outputs, again)), name
        quant = output_quantization(outputs, model.output_points)
        print(f"{name}: {len(model.points)} points, "
              f"{sum(isinstance(m, QWeighted) for m in model.modules())} int8 weights, "
              f"{sum(b.numel() for b in model.buffers() if b.dtype == torch.int8)} int8 "
              f"weight bytes; tolerance {tolerance(model.output_points)}")
        for i, (y, f, q) in enumerate(zip(outputs, floats, quant)):
            print(f"    output{i} {list(y.shape)}: {q}; |quantized - float| max "
                  f"{float((y - f).abs().max()):.4g} (max|float| {float(f.abs().max()):.4g})")
        for p in model.points[:3]:
            print(f"    point {p.name}: {p.info()}")


def main():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.path.join(repo, "test", "models"),
                        help="folder of the fixtures and MANIFEST.json (default test/models)")
    parser.add_argument("--only", default="", help="comma-separated fixture names")
    parser.add_argument("--float-twin", action="store_true",
                        help="also write q_mobilenet_v2_float into --bench-out")
    parser.add_argument("--bench-out", default=os.path.join(repo, "bench", "models"),
                        help="folder of the float twin (default bench/models)")
    parser.add_argument("--notes", default="",
                        help="write how the archives spell the quantized ops to this JSON file")
    parser.add_argument("--dry-run", action="store_true",
                        help="build, calibrate and run in eager mode only; export nothing")
    options = parser.parse_args()

    torch.set_num_threads(min(8, os.cpu_count() or 1))
    print(f"torch {torch.__version__}: quantized_decomposed from {register_ops()}", flush=True)
    wanted = [n for n in filter(None, options.only.split(","))] or list(FIXTURES)
    unknown = set(wanted) - set(FIXTURES)
    if unknown:
        sys.exit(f"unknown fixture(s) {sorted(unknown)}; known: {sorted(FIXTURES)}")
    if options.dry_run:
        dry_run(wanted)
        return

    os.makedirs(options.out, exist_ok=True)
    notes = {"torch_version": torch.__version__, "ops_registered_by": OPS_SOURCE,
             "schemas": op_schemas()}
    entries, failures, twin_entry = [], [], None
    for name in wanted:
        try:
            entry, twin = export_one(name, FIXTURES[name], options.out, notes)
        except Exception as error:  # report every failing fixture, not just the first
            import traceback
            traceback.print_exc()
            failures.append(name)
            print(f"FAILED {name}: {type(error).__name__}: {error}", flush=True)
            continue
        entries.append(entry)
        print(f"{name}: tolerance atol {entry['tolerance']['atol']:.6g}; outputs "
              + "; ".join(json.dumps(o) for o in entry["quantized"]["outputs"]), flush=True)
        for flavour, info in entry["flavours"].items():
            check = info["qdq_check"]
            print(f"  {flavour}: {info['bytes']} bytes, diff {info['max_abs_diff_vs_eager']}, "
                  f"{check['compute_nodes']} conv/linear nodes, problems {check['problems']}\n"
                  f"    " + " ".join(op.replace("torch.ops.", "") for op in info["ops"]),
                  flush=True)
        if twin and options.float_twin:
            try:
                os.makedirs(options.bench_out, exist_ok=True)
                twin_entry = export_float_twin(*twin, options.bench_out)
                print(f"q_mobilenet_v2_float: {twin_entry['flavours']['training']['bytes']} "
                      "bytes", flush=True)
            except Exception as error:
                failures.append("q_mobilenet_v2_float")
                print(f"FAILED q_mobilenet_v2_float: {type(error).__name__}: {error}",
                      flush=True)
    header = {"torch_version": torch.__version__, "numpy_version": np.__version__,
              "generator": "tools/export_fixtures.py", "seed": SEED, "fixtures": [],
              "error_fixtures": []}
    merge_manifest(os.path.join(options.out, "MANIFEST.json"), "fixtures", entries, header)
    if twin_entry:
        merge_manifest(os.path.join(options.bench_out, "MANIFEST.json"), "models", [twin_entry],
                       {"torch_version": torch.__version__, "generator":
                        "tools/export_fixtures.py", "models": []})
    if options.notes:
        with open(options.notes, "w") as f:
            json.dump(notes, f, indent=1)
    if failures:
        sys.exit(f"{len(failures)} export(s) failed: {failures}")


if __name__ == "__main__":
    main()
