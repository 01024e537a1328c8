#!/usr/bin/env python3
"""Export the .pt2 test fixtures and the bundled example model of duet.

What it writes
  Into the fixture folder (default: test/models/), for each fixture NAME:
    NAME.training.pt2   torch.export.export(model.eval(), args), verifiers ["TRAINING"]
    NAME.aten.pt2       the same ExportedProgram after run_decompositions(), ["ATEN"]
    NAME.inputK.npy     seeded random inputs, in the order of forward()'s arguments
    NAME.outputK.npy    eager outputs of the model in eval mode under torch.no_grad()
  the error fixtures bad_*.pt2 (TRAINING only, no .npy), and MANIFEST.json: for each
  fixture its description, input/output shapes and dtypes, and for each flavour the
  sorted distinct op targets of the graph, read back from the saved archive exactly
  as the importer sees them (e.g. "torch.ops.aten.conv2d.default").

  Into the example folder (default: examples/): torchvision's mobilenet_v3_small
  (weights=None, seed 0), TRAINING flavour only, with one input, its eager output,
  and MANIFEST.json holding the TRAINING and ATEN op lists.

How to run
  On a machine with PyTorch 2.11 and torchvision 0.26 (the GPU machine; the export
  itself runs on the CPU):
      CUDA_VISIBLE_DEVICES= python3 tools/export_fixtures.py --out DIR [--examples-out DIR]
  --only NAME[,NAME] exports only those fixtures and replaces their entries in the
  MANIFEST.json already in --out; --skip-examples skips the example.
  Everything is seeded per fixture (torch.manual_seed), so a rerun with the same
  PyTorch gives the same tensors.

Every saved program is loaded back and run on the inputs; the largest difference
from the eager outputs is printed and recorded in the manifest as a sanity check
(for an archive PyTorch cannot load back, its error, as reload_error).
"""

import argparse
import json
import math
import os
import re
import sys
import zipfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SEED = 0


def randomize_batch_norm(bn):
    """Gives a BatchNorm non-default statistics and affine terms so folding shows."""
    with torch.no_grad():
        n = bn.num_features
        bn.running_mean.copy_(torch.randn(n) * 0.5)
        bn.running_var.copy_(torch.rand(n) * 1.5 + 0.5)
        if bn.affine:
            bn.weight.copy_(torch.rand(n) + 0.5)
            bn.bias.copy_(torch.randn(n) * 0.3)
    return bn


# ---------------------------------------------------------------------------
# Fixture models. Each builder returns (description, module, example inputs);
# it runs right after torch.manual_seed(SEED).
# ---------------------------------------------------------------------------


class ConvBnRelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.bn1 = randomize_batch_norm(nn.BatchNorm2d(8))
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.bn2 = randomize_batch_norm(nn.BatchNorm2d(8))

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        return F.relu6(self.bn2(self.conv2(x)))


def build_conv_bn_relu():
    return ("Conv2d(3->8, 3x3, stride 2, pad 1)+BN+ReLU, then Conv2d without bias+BN+ReLU6; "
            "BN statistics and affine terms are randomized so folding is observable",
            ConvBnRelu(), (torch.randn(1, 3, 16, 16),))


class MobilenetBlock(nn.Module):
    def __init__(self, cin=8, c=16, classes=10):
        super().__init__()
        self.expand = nn.Conv2d(cin, c, 1, bias=False)
        self.bn1 = randomize_batch_norm(nn.BatchNorm2d(c))
        self.act1 = nn.Hardswish(inplace=True)
        self.dw = nn.Conv2d(c, c, 3, padding=1, groups=c, bias=False)
        self.bn2 = randomize_batch_norm(nn.BatchNorm2d(c))
        self.act2 = nn.Hardswish()
        self.se_reduce = nn.Conv2d(c, 4, 1)
        self.se_relu = nn.ReLU(inplace=True)
        self.se_expand = nn.Conv2d(4, c, 1)
        self.project = nn.Conv2d(c, cin, 1, bias=False)
        self.bn3 = randomize_batch_norm(nn.BatchNorm2d(cin))
        self.head_act = nn.ReLU(inplace=True)
        self.drop = nn.Dropout(0.2)
        self.drop_inplace = nn.Dropout(0.2, inplace=True)
        self.fc = nn.Linear(cin * 8 * 8, classes)

    def forward(self, x):
        y = self.act1(self.bn1(self.expand(x)))
        y = self.act2(self.bn2(self.dw(y)))
        s = F.adaptive_avg_pool2d(y, 1)
        s = self.se_expand(self.se_relu(self.se_reduce(s)))
        y = y * F.hardsigmoid(s)
        y = self.bn3(self.project(y))
        y += x
        y = self.head_act(y)
        y = self.drop_inplace(self.drop(y))
        return self.fc(torch.flatten(y, 1))


def build_mobilenet_block():
    return ("MobileNetV3-style block: pointwise conv, depthwise conv (groups=C), hardswish "
            "(in-place and not), squeeze-excite (adaptive_avg_pool2d, conv, relu_, conv, "
            "hardsigmoid, mul), in-place residual add, relu_, dropout and dropout_ (inference), "
            "flatten, linear",
            MobilenetBlock(), (torch.randn(1, 8, 8, 8),))


class ConvVariants(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1d = nn.Conv1d(4, 6, 3, dilation=2, padding=2)
        self.deconv = nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1,
                                         groups=2)
        self.bn = randomize_batch_norm(nn.BatchNorm2d(6))
        self.pointwise = nn.Conv2d(6, 5, 1, padding=1)

    def forward(self, seq, img):
        a = self.conv1d(seq)
        b = self.pointwise(self.bn(self.deconv(img)))
        return a, b


def build_conv_variants():
    return ("Conv1d(4->6, k3, dilation 2, pad 2) on [1,4,20]; ConvTranspose2d(4->6, k3, "
            "groups 2, stride 2, pad 1, output_padding 1)+BatchNorm2d (grouped transposed "
            "fold case) then a 1x1 Conv2d with padding 1, on [1,4,7,7]",
            ConvVariants(), (torch.randn(1, 4, 20), torch.randn(1, 4, 7, 7)))


class Conv3dRelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv3d(2, 3, 3, stride=(1, 2, 2), padding=1)
        self.conv2 = nn.Conv3d(3, 4, (1, 3, 3), padding=(0, 1, 1), bias=False)

    def forward(self, x):
        return self.conv2(F.relu(self.conv1(x)))


def build_conv3d():
    return ("Conv3d(2->3, 3x3x3, stride (1,2,2), pad 1, bias) + ReLU, then Conv3d(3->4, "
            "kernel (1,3,3), pad (0,1,1), no bias) on [1,2,4,6,6] (TRAINING: "
            "aten.conv3d.default; ATEN: aten.convolution.default with 3-entry stride/"
            "padding/dilation/output_padding, transposed false)",
            Conv3dRelu(), (torch.randn(1, 2, 4, 6, 6),))


class LinearBn(nn.Module):
    def __init__(self, features_in, features_out, bn_features):
        super().__init__()
        self.fc = nn.Linear(features_in, features_out)
        self.bn = randomize_batch_norm(nn.BatchNorm1d(bn_features))

    def forward(self, x):
        return self.bn(self.fc(x))


def build_linear_bn_2d():
    return ("Linear(16->10) on [4,16] + BatchNorm1d(10): 2-D linear output, BN its only "
            "user, foldable",
            LinearBn(16, 10, 10), (torch.randn(4, 16),))


def build_linear_bn_3d():
    return ("Linear(16->16) on [4,10,16] -> [4,10,16] + BatchNorm1d(10), which normalizes "
            "axis 1 (size 10), not the linear's output features: NOT foldable",
            LinearBn(16, 16, 10), (torch.randn(4, 10, 16),))


class Activations(nn.Module):
    def forward(self, x):
        pos = torch.abs(x) + 1
        parts = [
            F.relu(x),
            F.relu6(x),
            F.hardtanh(x, -2.0, 2.0),
            torch.clamp(x, min=-0.5, max=1.5),
            torch.clamp_min(x, 0.25),
            F.hardswish(x),
            F.hardsigmoid(x),
            F.hardshrink(x, 0.5),
            F.silu(x),
            torch.sigmoid(x),
            torch.tanh(x),
            F.gelu(x),
            F.gelu(x, approximate="tanh"),
            F.leaky_relu(x, 0.2),
            F.elu(x),
            torch.abs(x),
            torch.neg(x),
            torch.exp(x),
            torch.log(pos),
            torch.sqrt(pos),
            torch.rsqrt(pos),
            torch.pow(x, 2),
        ]
        total = parts[0]
        for part in parts[1:]:
            total = total + part
        return torch.cat(parts, dim=1), total


def build_activations():
    return ("relu, relu6, hardtanh(-2,2), clamp(-0.5,1.5), clamp_min(0.25), hardswish, "
            "hardsigmoid, hardshrink(0.5), silu, sigmoid, tanh, gelu exact and tanh, "
            "leaky_relu(0.2), elu, abs, neg, exp, log/sqrt/rsqrt of abs(x)+1, pow(x,2) on "
            "[2,3,8,8]; output0 concatenates them along channels (22 x 3 = 66), output1 "
            "is their sum",
            Activations(), (torch.randn(2, 3, 8, 8) * 2,))


class Binary(nn.Module):
    def forward(self, x, y, z):
        return (
            x + y,
            x - z,
            x * y,
            x / y,
            (x + 3) * 0.5 + x / 6,
            2 - x,
            torch.add(x, z, alpha=2),
            torch.sub(x, y, alpha=0.5),
            torch.maximum(x, y),
            torch.minimum(x, z),
            torch.div(x, z, rounding_mode="floor"),
        )


def build_binary():
    x = torch.randn(2, 3, 4, 5) * 3
    # Divisors stay away from zero: magnitude in [0.5, 1.5] with a random sign.
    sign_y = torch.where(torch.rand(3, 1, 5) < 0.5, -1.0, 1.0)
    y = sign_y * (torch.rand(3, 1, 5) + 0.5)
    sign_z = torch.where(torch.rand(5) < 0.5, -1.0, 1.0)
    z = sign_z * (torch.rand(5) + 0.5)
    return ("binary ops with broadcasting x[2,3,4,5] against y[3,1,5] and z[5]: "
            "add, sub, mul, div (tensor), x+3, x*0.5, x/6 (scalar), 2-x (rsub), add with "
            "alpha 2, sub with alpha 0.5, maximum, minimum, div rounding_mode=floor; "
            "y and z have magnitude >= 0.5",
            Binary(), (x, y, z))


class Reductions(nn.Module):
    def forward(self, x):
        return (
            x.mean(dim=(2, 3), keepdim=True),
            x.mean(dim=-1),
            x.sum(dim=1),
            x.sum(dim=(0, 2), keepdim=True),
            x.amax(dim=-1),
            x.amax(dim=(1, 3), keepdim=True),
            torch.softmax(x, dim=-1),
            torch.log_softmax(x, dim=1),
        )


def build_reductions():
    return ("on [2,3,4,5]: mean(dim=(2,3), keepdim), mean(-1), sum(1), sum((0,2), keepdim), "
            "amax(-1), amax((1,3), keepdim), softmax(-1), log_softmax(1)",
            Reductions(), (torch.randn(2, 3, 4, 5),))


class Pooling(nn.Module):
    def forward(self, x):
        return (
            F.max_pool2d(x, 3, stride=2, padding=1),
            F.max_pool2d(x, 2, ceil_mode=True),
            F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False),
            F.avg_pool2d(x, 2, ceil_mode=True),
            F.adaptive_avg_pool2d(x, (1, 1)),
            F.adaptive_avg_pool2d(x, (2, 3)),
        )


def build_pooling():
    return ("on [1,4,15,15] (odd size): max_pool2d(3, s2, p1), max_pool2d(2, ceil_mode), "
            "avg_pool2d(3, s2, p1, count_include_pad=False), avg_pool2d(2, ceil_mode), "
            "adaptive_avg_pool2d to (1,1) and to (2,3)",
            Pooling(), (torch.randn(1, 4, 15, 15),))


class Shapes(nn.Module):
    def forward(self, x, m):
        # x: [2,8,4,6], m: [5,7]
        v = x.view(2, 8, 24)
        r = x.reshape(16, 24)
        f = torch.flatten(x, 2)
        u = x[:, :1].squeeze(1)
        q = u.unsqueeze(-1)
        p = x.permute(0, 2, 3, 1)
        t = x.transpose(1, 3)
        mt = m.t()
        e = m[:1].expand(3, 5, 7)
        c1 = torch.cat([x, x * 2], dim=1)
        c2 = torch.cat([x, x[:, :, :2]], dim=2)
        s0, s1 = torch.split(x, 4, dim=1)
        w0, w1, w2 = torch.split(x, [1, 2, 3], dim=3)
        k0, k1 = torch.chunk(x, 2, dim=2)
        strided = x[:, 1:7:2]
        sel = x[:, 0]
        cl = torch.clone(x)
        ct = t.contiguous()
        padded = F.pad(x, (1, 2, 0, 1), mode="constant", value=0.5)
        return (v, r * 2, f + 1, q, p, ct, mt, e * 1, c1, c2,
                s0 + s1, w0 + w2[..., :1] + w1[..., 1:], k0 - k1,
                strided, sel, cl * 3, padded)


def build_shapes():
    return ("x[2,8,4,6], m[5,7]: view, reshape, flatten, squeeze, unsqueeze, permute, "
            "transpose+contiguous, m.t(), expand, cat on dims 1 and 2, split into equal "
            "chunks, split with sizes [1,2,3], chunk, strided slice x[:,1:7:2], select x[:,0], "
            "clone, F.pad constant 0.5 (pad (1,2,0,1)); 17 outputs",
            Shapes(), (torch.randn(2, 8, 4, 6), torch.randn(5, 7)))


class Matmuls(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 5, bias=False)
        self.bias = nn.Parameter(torch.randn(5))

    def forward(self, a, b, c, d, e, f):
        # a[4,6], b[6,5], c[3,4,6], d[3,6,5], e[2,1,4,6], f[1,3,6,5]
        return (
            torch.mm(a, b),
            torch.bmm(c, d),
            torch.matmul(c, b),
            torch.matmul(e, f),
            torch.addmm(self.bias, a, b),
            self.fc(c),
        )


def build_matmuls():
    return ("mm [4,6]@[6,5], bmm [3,4,6]@[3,6,5], matmul 3-D@2-D [3,4,6]@[6,5], matmul "
            "4-D broadcast [2,1,4,6]@[1,3,6,5], addmm(bias[5], a, b), Linear(6->5) without "
            "bias on [3,4,6]",
            Matmuls(), (torch.randn(4, 6), torch.randn(6, 5), torch.randn(3, 4, 6),
                        torch.randn(3, 6, 5), torch.randn(2, 1, 4, 6), torch.randn(1, 3, 6, 5)))


class TransformerBlock(nn.Module):
    def __init__(self, dim=32, heads=4, hidden=64):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)
        with torch.no_grad():
            for norm in (self.norm1, self.norm2):
                norm.weight.copy_(torch.rand(dim) + 0.5)
                norm.bias.copy_(torch.randn(dim) * 0.1)

    def forward(self, x):
        b, n, d = x.shape
        qkv = self.qkv(self.norm1(x)).view(b, n, 3, self.heads, d // self.heads)
        qkv = qkv.permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        a = a.permute(0, 2, 1, 3).reshape(b, n, d)
        x = x + self.proj(a)
        return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))


def build_transformer_block():
    return ("pre-norm transformer block on [1,8,32], 4 heads: LayerNorm, qkv Linear, "
            "view/permute into heads, scaled_dot_product_attention(is_causal=True), merge "
            "heads, out Linear, residual, LayerNorm, Linear(32->64), GELU, Linear(64->32), "
            "residual",
            TransformerBlock(), (torch.randn(1, 8, 32),))


class Upsample(nn.Module):
    def forward(self, x):
        return (
            F.interpolate(x, scale_factor=2, mode="nearest"),
            F.interpolate(x, size=(12, 12), mode="bilinear", align_corners=False),
            F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True),
        )


def build_upsample():
    return ("on [1,3,6,6]: nearest scale 2, bilinear align_corners=False to size (12,12), "
            "bilinear align_corners=True scale 2",
            Upsample(), (torch.randn(1, 3, 6, 6),))


class EmbeddingLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 16)
        self.fc = nn.Linear(16, 8)

    def forward(self, ids):
        return self.fc(self.emb(ids))


def build_embedding():
    return ("nn.Embedding(50,16) on int64 indices [2,5] (input0 is int64) then Linear(16->8)",
            EmbeddingLinear(), (torch.randint(0, 50, (2, 5), dtype=torch.int64),))


class Casts(nn.Module):
    def forward(self, x):
        h = x.to(torch.float16)
        h = torch.relu(h * 2 + 1)
        a = h.to(torch.float32)
        b = x.to(torch.bfloat16)
        b = torch.sigmoid(b)
        c = b.float()
        return a, c, a + c


def build_casts():
    return ("on [2,3,4,4] float32: to(float16) -> relu(h*2+1) -> to(float32); to(bfloat16) "
            "-> sigmoid -> .float(); and their sum",
            Casts(), (torch.randn(2, 3, 4, 4),))


class YoloHead(nn.Module):
    def __init__(self, width=16, outputs=84):
        super().__init__()
        self.stem = nn.Conv2d(3, width, 3, stride=2, padding=1)
        self.down1 = nn.Conv2d(width, width, 3, stride=2, padding=1)
        self.down2 = nn.Conv2d(width, width, 3, stride=2, padding=1)
        self.heads = nn.ModuleList(nn.Conv2d(width, outputs, 1) for _ in range(3))
        self.outputs = outputs

    def forward(self, x):
        p3 = F.silu(self.stem(x))     # [1,16,80,80]
        p4 = F.silu(self.down1(p3))   # [1,16,40,40]
        p5 = F.silu(self.down2(p4))   # [1,16,20,20]
        maps = [h(p).view(1, self.outputs, -1) for h, p in zip(self.heads, (p3, p4, p5))]
        y = torch.cat(maps, dim=2)    # [1,84,8400]
        box, cls = torch.split(y, [4, self.outputs - 4], dim=1)
        return torch.cat([box, torch.sigmoid(cls)], dim=1)


def build_yolo_head():
    return ("small detection head: [1,3,160,160] -> three stride-2 convs with SiLU giving "
            "[1,16,80,80], [1,16,40,40], [1,16,20,20]; 1x1 convs to 84 channels, view to "
            "[1,84,-1], cat on dim 2 (6400+1600+400), split [4,80] on dim 1, sigmoid on the "
            "class part, cat: output exactly [1,84,8400]",
            YoloHead(), (torch.randn(1, 3, 160, 160),))


class Patchify(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(48, 16)

    def forward(self, x):
        # x: [1,3,8,8,8] = (B, C, T, H, W), each of T, H, W split as 2x4.
        x = x.reshape(1, 3, 2, 4, 2, 4, 2, 4)
        x = x.permute(0, 2, 5, 3, 6, 1, 4, 7)   # -> [1,2,4,4,2,3,2,4]
        x = x.reshape(1, 32, 48)
        return self.fc(x)


def build_patchify():
    return ("scaled-down 8-D patchify: [1,3,8,8,8] reshaped to 8-D (1,3,2,4,2,4,2,4), "
            "permuted (0,2,5,3,6,1,4,7) to [1,2,4,4,2,3,2,4], reshaped to tokens [1,32,48], "
            "Linear(48->16)",
            Patchify(), (torch.randn(1, 3, 8, 8, 8),))


class AttentionBf16(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, dim)
        self.scale = dim ** -0.5

    def forward(self, x):
        q, k, v = self.q(x), self.k(x), self.v(x)
        attn = torch.softmax(q @ k.transpose(-2, -1) * self.scale, dim=-1)
        return self.out(attn @ v)


def build_attention_bf16():
    return ("single-head attention on [1,8,32] with module and input in bfloat16: Linear "
            "q/k/v, q@k^T*scale, softmax, @v, out Linear. input0.npy holds float32 values "
            "that are exactly representable in bfloat16 (cast to bfloat16 before running); "
            "output0.npy is the eager bfloat16 output converted to float32",
            AttentionBf16().to(torch.bfloat16), (torch.randn(1, 8, 32).to(torch.bfloat16),))


class Erf(nn.Module):
    def forward(self, x):
        # The BERT-style exact gelu written with erf, as some models spell it.
        gelu = 0.5 * x * (1.0 + torch.erf(x / 1.4142135623730951))
        return torch.erf(x), gelu


def build_erf():
    return ("torch.erf on [2,3,5,7] (x = 2 * randn), and the exact gelu written as "
            "0.5 * x * (1 + erf(x / sqrt(2)))",
            Erf(), (torch.randn(2, 3, 5, 7) * 2,))


class Gather(nn.Module):
    def forward(self, x, index):
        return torch.gather(x, 1, index), torch.gather(x, 2, index[:, :, :3] % 6)


def build_gather():
    return ("torch.gather on [2,5,6] float along dim 1 with an int64 index [2,4,6], and "
            "along dim 2 with index[:, :, :3] % 6",
            Gather(), (torch.randn(2, 5, 6), torch.randint(0, 5, (2, 4, 6))))


class TokenTypeEmbedding(nn.Module):
    """BERT-style embeddings: position ids sliced from a buffer and gathered."""

    def __init__(self):
        super().__init__()
        self.word = nn.Embedding(40, 16)
        self.position = nn.Embedding(12, 16)
        self.register_buffer("position_ids", torch.arange(12).expand((1, -1)))
        self.register_buffer("token_type_ids", torch.zeros(1, 12, dtype=torch.long))
        self.token_type = nn.Embedding(2, 16)
        self.norm = nn.LayerNorm(16)

    def forward(self, ids):
        n = ids.shape[1]
        positions = self.position_ids[:, :n]
        types = torch.gather(self.token_type_ids[:, :n].expand(ids.shape[0], n), 1,
                             torch.zeros_like(ids))
        return self.norm(self.word(ids) + self.position(positions) + self.token_type(types))


def build_bert_embeddings():
    return ("BERT-style embeddings on int64 ids [2,7]: word + position (sliced buffer) + "
            "token type (gathered from a buffer), then LayerNorm(16)",
            TokenTypeEmbedding(), (torch.randint(0, 40, (2, 7)),))


class IndexSelectRepeat(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("rows", torch.tensor([3, 0, 2, 2]))

    def forward(self, x):
        picked = torch.index_select(x, 1, self.rows)
        return picked, x.repeat(1, 2, 3), torch.index_select(x, 2, self.rows[:2]).repeat(2, 1, 1)


def build_index_select_repeat():
    return ("on [2,4,5]: index_select dim 1 with [3,0,2,2]; repeat(1,2,3); "
            "index_select dim 2 with [3,0] then repeat(2,1,1)",
            IndexSelectRepeat(), (torch.randn(2, 4, 5),))


class Cumsum(nn.Module):
    def forward(self, x, mask):
        # EdgeNeXt-style positional encoding: cumulative sums of a mask.
        y = mask.cumsum(1, dtype=torch.float32)
        z = mask.cumsum(2, dtype=torch.float32)
        return torch.cumsum(x, dim=-1), y / (y[:, -1:, :] + 1e-6), z, torch.cumsum(x, 0)


def build_cumsum():
    return ("cumsum of [2,3,6] float along -1 and 0; of a [2,5,6] float mask along 1 "
            "and 2 with dtype float32, normalised by the last row",
            Cumsum(), (torch.randn(2, 3, 6), torch.ones(2, 5, 6)))


class AttentionGqa(nn.Module):
    def forward(self, q, k, v):
        return (F.scaled_dot_product_attention(q, k, v, enable_gqa=True),
                F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True))


def build_attention_gqa():
    return ("scaled_dot_product_attention with enable_gqa=True: q [1,8,6,16], k and v "
            "[1,2,6,16] (4 query heads per key head), plain and causal",
            AttentionGqa(), (torch.randn(1, 8, 6, 16), torch.randn(1, 2, 6, 16),
                             torch.randn(1, 2, 6, 16)))

# Export forms real models use (issue #15). The regions below become
# higher-order ops (torch.ops.higher_order.wrap_with_autocast,
# wrap_with_set_grad_enabled) whose submodule graph the importer inlines.


class ThreeLinears(nn.Module):
    """Linear(8->8), Linear(8->8), Linear(8->4): what the region fixtures wrap."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 8)
        self.fc2 = nn.Linear(8, 8)
        self.fc3 = nn.Linear(8, 4)


def strict_export(fixture, note=""):
    """The fixture exported with strict=True (TorchDynamo) instead of the default."""
    description, model, args = fixture()
    return (description + "; exported with strict=True" + note, model, args,
            {"export": {"strict": True}})


class HopAutocast(ThreeLinears):
    def forward(self, x):
        y = self.fc1(x)
        with torch.autocast("cpu", enabled=False):
            y = torch.relu(self.fc2(y))
        with torch.autocast(device_type="cpu", dtype=torch.float32):
            y = torch.sigmoid(y) * y
        # EfficientViT's LiteMLA form: an autocast region disabled for CUDA.
        with torch.autocast(device_type="cuda", enabled=False):
            y = self.fc3(y.float())
        return y


def build_hop_autocast():
    return ("on [2,8]: Linear, then three autocast regions inside forward (each a "
            "wrap_with_autocast higher-order op in the TRAINING IR): autocast('cpu', "
            "enabled=False) around Linear+ReLU, autocast('cpu', dtype=float32) around "
            "sigmoid(y)*y, autocast('cuda', enabled=False) around y.float() and Linear(8->4)",
            HopAutocast(), (torch.randn(2, 8),))


def build_hop_autocast_strict():
    return strict_export(build_hop_autocast)


class HopGrad(ThreeLinears):
    def forward(self, x):
        y = self.fc1(x)
        with torch.no_grad():
            y = torch.tanh(self.fc2(y))
        with torch.set_grad_enabled(False):
            z = self.fc3(y) + 1
        return z, y * 2


def hop_grad():
    return ("on [2,8]: Linear, then torch.no_grad() around Linear+tanh and "
            "torch.set_grad_enabled(False) around Linear(8->4)+1 inside forward (each a "
            "wrap_with_set_grad_enabled higher-order op in the TRAINING IR); outputs "
            "z and y*2",
            HopGrad(), (torch.randn(2, 8),))


# PyTorch 2.11 writes one more region for the default (non-strict) export of
# this module, empty and without outputs, and then cannot load its own archive
# back ("SpecViolationError: Node.meta wrap_with_set_grad_enabled is missing val
# field"); duet imports it. Only the TRAINING flavour is kept.
def build_hop_grad():
    description, model, args = hop_grad()
    return (description + "; non-strict export, which adds an empty region; TRAINING "
            "flavour only", model, args, {"flavours": ("training",)})


def build_hop_grad_strict():
    return strict_export(hop_grad, " (one region holds both blocks)")


class HopNested(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 8)
        self.fc2 = nn.Linear(8, 8)

    def forward(self, x):
        with torch.autocast("cpu", enabled=False):
            y = torch.relu(self.fc1(x))
            with torch.no_grad():
                y = self.fc2(y) - x
        return y


def build_hop_nested():
    return ("on [2,8]: torch.no_grad() nested inside autocast('cpu', enabled=False), "
            "each block around a Linear, the inner one subtracting the model input; "
            "PyTorch 2.11 writes three wrap_with_autocast regions (the last empty, "
            "without outputs, so it cannot load the archive back) and no "
            "set_grad_enabled one; TRAINING flavour only",
            HopNested(), (torch.randn(2, 8),), {"flavours": ("training",)})


class CatLegacyEmpty(nn.Module):
    def forward(self, x):
        past = torch.tensor([])  # GPT-2's legacy key/value cache before the first step
        k = torch.cat([past, x], dim=2)
        v = torch.cat((past, x * 2, past), dim=-2)
        promoted = torch.cat([past, x.half()], dim=1)
        nothing = torch.cat([past, past])
        return k + 1, v, promoted, x.sum() + nothing.sum()


def build_cat_legacy_empty():
    return ("x [1,2,3,4]: torch.cat([torch.tensor([]), x], dim=2) (GPT-2's legacy cache "
            "start; PyTorch skips 1-D size-0 operands), cat((empty, x*2, empty), dim=-2), "
            "cat([empty float32, x.half()], dim=1) (the skipped operand still promotes: "
            "float32 result), and cat of two empties (shape [0]) summed into x.sum()",
            CatLegacyEmpty(), (torch.randn(1, 2, 3, 4),))


class ZeroSizeCat(nn.Module):
    def forward(self, x):
        cache = torch.zeros(1, 2, 0, 4)  # an empty key/value cache, rank 4
        k = torch.cat([cache, x], dim=2)
        return torch.relu(k) * 2 + 1


def build_zero_size_cat():
    return ("x [1,2,3,4]: cat([zeros(1,2,0,4), x], dim=2) (a zero-size operand, which "
            "no Vulkan image can hold), then relu, *2, +1",
            ZeroSizeCat(), (torch.randn(1, 2, 3, 4),))


# ---------------------------------------------------------------------------
# Core ATen coverage: ops the first census of unseen architectures met refused
# (issue 38), each written the way the library that uses it writes it.
# ---------------------------------------------------------------------------

class MaskLogic(nn.Module):
    """Decoder masks: causal & sliding window & padding, relative indices."""
    def forward(self, scores, keep):
        n = scores.shape[-1]
        i = torch.arange(n)
        causal = i[:, None] >= i[None, :]
        window = (i[:, None] - i[None, :]) < 3
        pad = keep > 0
        mask = causal & window & pad[:, None, None, :]
        loose = (causal | window) ^ pad[:, None, None, :]
        masked = scores.masked_fill(~mask, -1e9).softmax(-1)
        rel = torch.clamp(i[None, :] - i[:, None], -2, 2) + 2
        bucket = torch.min(rel, torch.full_like(rel, 3))
        top = torch.max(scores, scores.transpose(-1, -2))
        return masked, loose.long(), bucket, top


def build_mask_logic():
    return ("scores [1,2,6,6], keep [1,6]: causal & window & (keep > 0) "
            "(aten.__and__.Tensor), (causal | window) ^ pad (__or__, __xor__), "
            "masked_fill + softmax, clamp of int64 relative indices, "
            "torch.min(int64, int64) (min.other), torch.max of two float tensors "
            "(max.other)",
            MaskLogic(), (torch.randn(1, 2, 6, 6), torch.randn(1, 6)))


class RelativeScores(nn.Module):
    """T5 relative buckets, ALiBi slopes, fused attention scores, GRN."""
    def __init__(self, heads=2, dim=8, n=5):
        super().__init__()
        self.bias = nn.Embedding(8, heads)
        self.heads, self.n = heads, n
        self.gamma = nn.Parameter(torch.randn(1, 1, dim))
        self.beta = nn.Parameter(torch.randn(1, 1, dim))

    def forward(self, q, k, x):
        n = self.n
        rel = torch.arange(n)[None, :] - torch.arange(n)[:, None]
        sign = (rel < 0).long() * 4
        dist = rel.abs()
        exact = dist < 2
        # log(0) is -inf here, as in transformers' T5: torch.where discards it.
        far = 2 + (torch.log(dist.float() / 2) / math.log(4) * 2).long()
        far = torch.min(far, torch.full_like(far, 3))
        bucket = sign + torch.where(exact, dist, far)
        bias = self.bias(bucket).permute(2, 0, 1)  # [heads, n, n]
        slopes = torch.pow(torch.full((self.heads,), 2.0),
                           -torch.arange(1, self.heads + 1).float())
        alibi = slopes[:, None, None] * rel.abs().float()[None]
        scores = torch.baddbmm(bias + alibi, q, k.transpose(1, 2), beta=1.0, alpha=0.5)
        nx = x.norm(p=2, dim=1, keepdim=True)
        nx = nx / (nx.mean(dim=-1, keepdim=True) + 1e-6)
        grn = torch.addcmul(self.beta, self.gamma, x * nx) + x
        return scores.softmax(-1), grn


def build_relative_scores():
    return ("q, k [2,5,8], x [1,6,8]: T5 relative-position buckets (log of an int "
            "distance, min.other, where), an embedding of them, ALiBi slopes "
            "(pow.Tensor_Tensor), baddbmm(bias, q, k^T, alpha=0.5), and timm's GRN "
            "with addcmul",
            RelativeScores(), (torch.randn(2, 5, 8), torch.randn(2, 5, 8),
                               torch.randn(1, 6, 8)))


class WindowOps(nn.Module):
    """Shifted windows, local patches, repeats."""
    def forward(self, x):
        shifted = torch.roll(x, shifts=(-2, 3), dims=(2, 3))
        flat = torch.roll(x, 5)
        patches = x.unfold(3, 4, 2)
        inter = x.repeat_interleave(2, dim=1)
        tiled = torch.tile(x, (2, 1, 1))
        cols = F.unfold(x, kernel_size=3, padding=1, stride=2)
        eye = torch.eye(x.shape[-2], x.shape[-1]) * 2 + x
        filled = torch.empty_like(x).fill_(2.0) * x
        return shifted, flat, patches, inter, tiled, cols, eye, filled


def build_window_ops():
    return ("x [1,3,6,8]: roll over two dims (Swin's shifted windows) and flat, "
            "Tensor.unfold (halo/local attention), repeat_interleave(2, dim=1), "
            "tile, F.unfold (im2col), eye, empty_like(x).fill_(2) * x",
            WindowOps(), (torch.randn(1, 3, 6, 8),))


class Pooling1d(nn.Module):
    def forward(self, x, img):
        a = F.adaptive_avg_pool1d(x, 5)
        b = F.avg_pool1d(x, 3, 2, 1)
        c = F.max_pool1d(x, 3, 2, 1)
        d = F.adaptive_max_pool2d(img, (3, 2))
        e = F.adaptive_max_pool2d(img, 1)
        return a, b, c, d, e


def build_pooling_1d():
    return ("x [2,4,11], img [1,3,7,6]: adaptive_avg_pool1d(5), avg_pool1d(3,2,1), "
            "max_pool1d(3,2,1), adaptive_max_pool2d((3,2)) and (1)",
            Pooling1d(), (torch.randn(2, 4, 11), torch.randn(1, 3, 7, 6)))


class Statistics(nn.Module):
    def forward(self, x):
        v = torch.var(x, dim=(2, 3), keepdim=True)
        v0 = x.var(dim=1, unbiased=False)
        s = x.std(dim=-1)
        inorm = F.instance_norm(x)
        return v, v0, s, inorm


def build_statistics():
    return ("x [2,4,5,6]: var over (2,3) keepdim, var(dim=1, unbiased=False), std(-1), "
            "instance_norm without statistics",
            Statistics(), (torch.randn(2, 4, 5, 6) * 3 + 1,))


class StdConv2d(nn.Conv2d):
    """timm's StdConv2d (NF-Nets, BiT): the weight normalized by batch_norm in
    training mode, without running statistics."""
    def forward(self, x):
        w = F.batch_norm(self.weight.reshape(1, self.out_channels, -1), None, None,
                         training=True, momentum=0., eps=1e-6).reshape_as(self.weight)
        return F.conv2d(x, w, self.bias, self.stride, self.padding)


class WeightStandardization(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = StdConv2d(3, 8, 3, padding=1)
        self.conv2 = StdConv2d(8, 4, 1, bias=False)

    def forward(self, x):
        return self.conv2(F.relu(self.conv(x)))


def build_weight_standardization():
    return ("x [1,3,8,8]: two timm StdConv2d (weight = batch_norm(w, None, None, "
            "training=True)) with a ReLU between",
            WeightStandardization(), (torch.randn(1, 3, 8, 8),))


class MultiQueryAttention(nn.Module):
    def forward(self, q, k, v, q2, k2, v2):
        a = F.scaled_dot_product_attention(q, k, v)
        b = F.scaled_dot_product_attention(q2, k2, v2)
        return a, b


def build_multi_query_attention():
    return ("q [1,4,6,8], k and v [1,1,6,8] (one key head for four query heads: "
            "MobileNetV4's multi-query attention, heads broadcast); q2 [2,2,5,8], "
            "k2 and v2 [1,2,7,8] (batch broadcast)",
            MultiQueryAttention(),
            (torch.randn(1, 4, 6, 8), torch.randn(1, 1, 6, 8), torch.randn(1, 1, 6, 8),
             torch.randn(2, 2, 5, 8), torch.randn(1, 2, 7, 8), torch.randn(1, 2, 7, 8)))


class Sampling(nn.Module):
    def forward(self, x, grid):
        a = F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros",
                          align_corners=False)
        b = F.grid_sample(x, grid, mode="bilinear", padding_mode="border",
                          align_corners=True)
        c = F.grid_sample(x, grid, mode="nearest", padding_mode="zeros",
                          align_corners=False)
        d = F.interpolate(x, scale_factor=2, mode="bicubic", align_corners=False)
        e = F.interpolate(x, size=(5, 9), mode="bicubic", align_corners=True)
        return a, b, c, d, e


def build_sampling():
    return ("x [1,3,6,7], grid [1,4,5,2] in [-1.2, 1.2]: grid_sample bilinear/zeros, "
            "bilinear/border/align_corners, nearest/zeros (RAFT-style optical flow), "
            "bicubic interpolate x2 and to (5,9) with aligned corners",
            Sampling(), (torch.randn(1, 3, 6, 7), torch.rand(1, 4, 5, 2) * 2.4 - 1.2))


class Router(nn.Module):
    """A mixture-of-experts router: top-k experts, sorted."""
    def __init__(self, dim=8, experts=6):
        super().__init__()
        self.gate = nn.Linear(dim, experts)

    def forward(self, x):
        probs = self.gate(x).softmax(-1)
        weights, experts = torch.topk(probs, 2, dim=-1)
        weights = weights / weights.sum(-1, keepdim=True)
        values, order = torch.sort(probs, dim=0, descending=True)
        smallest, which = torch.topk(x, 3, dim=0, largest=False)
        return weights, experts, values, order, smallest, which


def build_router():
    return ("x [5,8]: Linear(8->6) + softmax, topk(2) renormalized (a mixture-of-experts "
            "router), sort(dim=0, descending), topk(3, dim=0, largest=False)",
            Router(), (torch.randn(5, 8),))


class Einsums(nn.Module):
    def forward(self, q, k, w):
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k)
        proj = torch.einsum("bhqd,de->bhqe", q, w)
        outer = torch.einsum("i,j->ij", q[0, 0, 0], w[0])
        return scores, proj, outer


def build_einsums():
    return ("q, k [1,2,5,4], w [4,3]: einsum bhqd,bhkd->bhqk, bhqd,de->bhqe and i,j->ij",
            Einsums(), (torch.randn(1, 2, 5, 4), torch.randn(1, 2, 5, 4),
                        torch.randn(4, 3)))


class MathOps(nn.Module):
    def forward(self, x, y):
        u = torch.tanh(x) * 0.99  # inside (-1, 1) for the inverse functions
        return (torch.acos(u), torch.asin(u), torch.atan(x), torch.sinh(x),
                torch.cosh(x), torch.tan(u), torch.log1p(x.abs()), torch.expm1(x),
                torch.log2(x.abs() + 0.1), torch.log10(x.abs() + 0.1),
                torch.ceil(x * 3), torch.floor(x * 3), torch.round(x * 3),
                torch.trunc(x * 3), torch.sign(x), torch.asinh(x),
                torch.acosh(x.abs() + 1), torch.atanh(u),
                torch.pow(x.abs() + 0.5, y), torch.pow(2.0, y))


def build_math_ops():
    return ("x, y [3,7]: acos, asin, atan, sinh, cosh, tan, log1p, expm1, log2, log10, "
            "ceil, floor, round, trunc, sign, asinh, acosh, atanh, pow(tensor, tensor), "
            "pow(2.0, tensor)",
            MathOps(), (torch.randn(3, 7) * 2, torch.randn(3, 7)))



class Activations2(nn.Module):
    """Activations the aten dialect writes with its elementwise ops."""
    def __init__(self):
        super().__init__()
        self.prelu = nn.PReLU(4)
        self.prelu1 = nn.PReLU()
        self.norm = nn.RMSNorm(6, eps=1e-5)

    def forward(self, x):
        return (F.softplus(x * 4, beta=2, threshold=5), F.mish(x), F.logsigmoid(x * 30),
                self.prelu(x), self.prelu1(x), F.glu(x, dim=1), F.threshold(x, 0.1, -2.0),
                F.softshrink(x, 0.3), F.selu(x), F.celu(x, alpha=0.5), self.norm(x),
                torch.logsumexp(x * 5, dim=(1, 3)), torch.amin(x, dim=2),
                torch.min(x, dim=-1).values, torch.min(x, dim=-1).indices,
                torch.max(x, dim=1).indices, x.max(), x.min())


def build_activations2():
    return ("x [2,4,5,6]: softplus(beta=2, threshold=5), mish, logsigmoid, PReLU(4) and "
            "PReLU(), glu(dim=1), threshold, softshrink, selu, celu, RMSNorm(6), "
            "logsumexp over (1,3), amin, min/max with indices, max and min of all",
            Activations2(), (torch.randn(2, 4, 5, 6),))


class Rearrange(nn.Module):
    """Flips, pads, scatters into slices, diagonals, orderings, NaN checks."""
    def forward(self, x, y):
        flipped = torch.flip(x, dims=(1, 3))
        reflect = F.pad(x, (2, 1, 1, 2), mode="reflect")
        replicate = F.pad(x, (3, 0, 0, 4), mode="replicate")
        circular = F.pad(x, (1, 2, 2, 1), mode="circular")
        narrow = x.narrow(3, 1, 4)
        z = torch.slice_scatter(x, y[:, :, :2], dim=2, start=1, end=5, step=2)
        z = torch.select_scatter(z, torch.full_like(z[:, 2], 0.5), dim=1, index=2)
        diag = torch.diagonal(x, offset=1, dim1=2, dim2=3)
        order = torch.argsort(x, dim=-1, descending=True)
        top = torch.argmax(x, dim=1, keepdim=True)
        low = torch.argmin(x.flatten(1), dim=1)
        nan = torch.isnan(torch.log(x)) | torch.isinf(1 / torch.round(x))
        mask = (x > 0) & True
        ratio = torch.addcdiv(x, y, y.abs() + 1, value=0.5)
        score = torch.baddbmm(y.flatten(0, 1)[..., :6], x.flatten(0, 1),
                              y.flatten(0, 1).transpose(1, 2), beta=0.0, alpha=2.0)
        return (flipped, reflect, replicate, circular, narrow, z, diag, order, top, low,
                nan, mask, ratio, score)


def build_rearrange():
    return ("x, y [1,3,6,7]: flip over (1,3), reflect/replicate/circular padding, "
            "narrow, slice_scatter (a strided slice) and select_scatter, diagonal(offset 1), argsort "
            "descending, argmax keepdim, argmin of the flattened rows, isnan | isinf, "
            "a bool & True, addcdiv, baddbmm with beta 0",
            Rearrange(), (torch.randn(1, 3, 6, 7), torch.randn(1, 3, 6, 7)))


class Scatters(nn.Module):
    """Writes at an index: scatter, scatter_add, scatter_reduce, index_copy, index_add,
    index_put (plain and accumulating), and meshgrid and prod beside them."""
    def forward(self, x, idx, v, rows):
        a = torch.scatter(x, 1, idx, v)
        b = torch.scatter(x, 1, idx, 2.5)
        c = torch.scatter_add(x, 1, idx, v)
        d = torch.scatter_reduce(x, 1, idx, v, reduce="amax", include_self=True)
        e = torch.scatter_reduce(x, 1, idx, v, reduce="mean", include_self=False)
        f = x.index_copy(0, rows, v[:2, :6])
        g = x.index_add(0, rows, v[:2, :6], alpha=2)
        h = x.index_put((rows,), v[:2, :6], accumulate=True)
        k = x.clone()
        k[rows, 1] = 7.0
        gy, gx = torch.meshgrid(x[0, :3], x[1, :4], indexing="ij")
        p = torch.prod(x * 0.5 + 1, dim=1, keepdim=True)
        q = torch.prod(v[:, :3] * 0.5 + 1)
        return a, b, c, d, e, f, g, h, k, gy, gx, p, q


def build_scatters():
    idx = torch.tensor([[0, 2, 2, 5], [1, 1, 4, 0], [3, 3, 3, 3], [5, 0, 1, 2]])
    return ("x [4,6], idx [4,4], v [4,6], rows [2]: scatter (src, value), scatter_add, "
            "scatter_reduce amax with self and mean without, index_copy, index_add, "
            "index_put accumulating and plain, meshgrid ij, prod over a dim and over all "
            "(ATEN flavour only: the TRAINING graph writes k[rows, 1] through a view, which "
            "duet refuses with advice, as import/error-inplace-view.test shows)",
            Scatters(), (torch.randn(4, 6), idx, torch.randn(4, 6), torch.tensor([2, 0])),
            {"flavours": ("aten",)})


FIXTURES = {
    "conv_bn_relu": build_conv_bn_relu,
    "mobilenet_block": build_mobilenet_block,
    "conv_variants": build_conv_variants,
    "conv3d": build_conv3d,
    "linear_bn_2d": build_linear_bn_2d,
    "linear_bn_3d": build_linear_bn_3d,
    "activations": build_activations,
    "binary": build_binary,
    "reductions": build_reductions,
    "pooling": build_pooling,
    "shapes": build_shapes,
    "matmuls": build_matmuls,
    "transformer_block": build_transformer_block,
    "upsample": build_upsample,
    "embedding": build_embedding,
    "casts": build_casts,
    "yolo_head": build_yolo_head,
    "patchify": build_patchify,
    "attention_bf16": build_attention_bf16,
    "erf": build_erf,
    "gather": build_gather,
    "bert_embeddings": build_bert_embeddings,
    "index_select_repeat": build_index_select_repeat,
    "cumsum": build_cumsum,
    "attention_gqa": build_attention_gqa,
    "hop_autocast": build_hop_autocast,
    "hop_autocast_strict": build_hop_autocast_strict,
    "hop_grad": build_hop_grad,
    "hop_grad_strict": build_hop_grad_strict,
    "hop_nested": build_hop_nested,
    "cat_legacy_empty": build_cat_legacy_empty,
    "zero_size_cat": build_zero_size_cat,
    "mask_logic": build_mask_logic,
    "relative_scores": build_relative_scores,
    "window_ops": build_window_ops,
    "pooling_1d": build_pooling_1d,
    "statistics": build_statistics,
    "weight_standardization": build_weight_standardization,
    "multi_query_attention": build_multi_query_attention,
    "sampling": build_sampling,
    "router": build_router,
    "einsums": build_einsums,
    "math_ops": build_math_ops,
    "activations2": build_activations2,
    "rearrange": build_rearrange,
    "scatters": build_scatters,
}


# ---------------------------------------------------------------------------
# Error fixtures: programs the importer must refuse with a clear message.
# Each builder returns (description, expected error, ExportedProgram).
# ---------------------------------------------------------------------------


class MutatesBuffer(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("counter", torch.zeros(1))

    def forward(self, x):
        self.counter.add_(1)
        return x + self.counter


def build_bad_mutates_buffer():
    ep = torch.export.export(MutatesBuffer().eval(), (torch.randn(2, 3),))
    return ("forward does self.counter.add_(1) on a registered buffer and returns x+counter",
            "the program mutates a buffer (graph_signature has a BUFFER_MUTATION output)", ep)


class DynamicBatch(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return torch.relu(self.fc(x))


def build_bad_dynamic():
    batch = torch.export.Dim("batch", min=2, max=64)
    ep = torch.export.export(DynamicBatch().eval(), (torch.randn(4, 8),),
                             dynamic_shapes={"x": {0: batch}})
    return ("Linear(8->4)+ReLU exported with dynamic_shapes making dim 0 of x a "
            "torch.export.Dim('batch', min=2, max=64)",
            "a symbolic (dynamic) dimension: only static shapes are supported", ep)


class UnknownOp(nn.Module):
    def forward(self, x):
        # An op duet has no reason to support soon (cumsum and logcumsumexp,
        # used here before, now are ones).
        return torch.special.airy_ai(x) * 2


def build_bad_unknown_op():
    ep = torch.export.export(UnknownOp().eval(), (torch.randn(2, 5),))
    return ("torch.special.airy_ai(x) * 2: special_airy_ai is an op duet does not import",
            "unknown op torch.ops.aten.special_airy_ai.default", ep)


class AutocastBf16(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = self.fc(x)
        return y.float()


def build_bad_autocast_bf16():
    ep = torch.export.export(AutocastBf16().eval(), (torch.randn(2, 8),))
    return ("autocast('cpu', dtype=bfloat16) around Linear(8->4) inside forward: a "
            "wrap_with_autocast region that runs the Linear in bfloat16",
            "autocast to bfloat16 would change dtypes inside the region", ep)


class Cond(nn.Module):
    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda t: t + 1, lambda t: t - 1, (x,))


def build_bad_cond():
    ep = torch.export.export(Cond().eval(), (torch.randn(2, 3),))
    return ("torch.cond(x.sum() > 0, x + 1, x - 1): data-dependent control flow, the "
            "higher-order op torch.ops.higher_order.cond",
            "higher-order op cond is not supported", ep)


class UnsupportedOps(nn.Module):
    def forward(self, x, y):
        a = torch.atan2(x, y)
        b = torch.logcumsumexp(x, dim=1)
        return torch.atan2(a, b) + 1


def build_bad_unsupported_ops():
    ep = torch.export.export(UnsupportedOps().eval(), (torch.randn(2, 5), torch.randn(2, 5)))
    return ("atan2 twice and logcumsumexp once on [2,5]: two ops outside the table, one "
            "used by two nodes",
            "every unsupported op (atan2: two nodes, logcumsumexp: one) in one error", ep)


ERROR_FIXTURES = {
    "bad_mutates_buffer": build_bad_mutates_buffer,
    "bad_dynamic": build_bad_dynamic,
    "bad_unknown_op": build_bad_unknown_op,
    "bad_autocast_bf16": build_bad_autocast_bf16,
    "bad_cond": build_bad_cond,
    "bad_unsupported_ops": build_bad_unsupported_ops,
}


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def as_tuple(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def tensor_info(t):
    return {"shape": list(t.shape), "dtype": dtype_name(t.dtype)}


def to_numpy(t):
    """numpy has no bfloat16: bf16 tensors are stored as their exact float32 values."""
    t = t.detach().cpu()
    if t.dtype == torch.bfloat16:
        t = t.to(torch.float32)
    return t.contiguous().numpy()


def archive_ops(path):
    """The sorted distinct node targets of a saved .pt2 (submodule graphs included), as
    written in its model.json, and that model.json."""
    with zipfile.ZipFile(path) as archive:
        names = [n for n in archive.namelist() if n.endswith("/models/model.json")]
        if len(names) != 1:
            raise RuntimeError(f"{path}: expected one models/model.json, found {names}")
        model = json.loads(archive.read(names[0]))
    return sorted(graph_targets(model["graph_module"]["graph"])), model


def graph_targets(graph):
    """The node targets of a serialized graph and of the submodule graphs its
    higher-order ops take (wrap_with_autocast, cond, ...)."""
    targets = set()
    for node in graph["nodes"]:
        targets.add(node["target"])
        for argument in node["inputs"]:
            if "as_graph" in argument["arg"]:
                targets |= graph_targets(argument["arg"]["as_graph"]["graph"])
    return targets


def archive_verifiers(path):
    with zipfile.ZipFile(path) as archive:
        name = [n for n in archive.namelist() if n.endswith("/models/model.json")][0]
        model = json.loads(archive.read(name))
    return model.get("verifiers") or [model.get("dialect")]


def max_abs_diff(got, want):
    worst = 0.0
    for g, w in zip(got, want):
        if g.dtype.is_floating_point:
            worst = max(worst, (g.float() - w.float()).abs().max().item())
        else:
            worst = max(worst, float((g != w).any().item()))
    return worst


def save_flavour(ep, path, args, eager_outputs):
    """Saves ep, reads the op list back from the archive, and reruns the loaded program."""
    torch.export.save(ep, path)
    ops, model = archive_ops(path)
    info = {
        "file": os.path.basename(path),
        "verifiers": archive_verifiers(path),
        "bytes": os.path.getsize(path),
        "ops": ops,
    }
    try:
        loaded = torch.export.load(path)
        with torch.no_grad():
            rerun = as_tuple(loaded.module()(*args))
        info["max_abs_diff_vs_eager"] = max_abs_diff(rerun, eager_outputs)
    except Exception as error:  # some archives PyTorch writes, it cannot read back
        info["max_abs_diff_vs_eager"] = None
        info["reload_error"] = f"{type(error).__name__}: {error}"
    if model.get("range_constraints"):
        info["range_constraints"] = model["range_constraints"]
    return info


def export_fixture(name, builder, out_dir):
    torch.manual_seed(SEED)
    description, model, args, *rest = builder()
    # A builder may add options: "export", keyword arguments of
    # torch.export.export (strict, dynamic_shapes); "flavours", the flavours
    # to keep (default both).
    options = rest[0] if rest else {}
    model = model.eval()
    with torch.no_grad():
        outputs = as_tuple(model(*args))

    training = torch.export.export(model, args, **options.get("export", {}))
    aten = training.run_decompositions()
    kept = options.get("flavours", ("training", "aten"))

    entry = {"name": name, "description": description, "inputs": [], "outputs": []}
    for i, t in enumerate(args):
        file = f"{name}.input{i}.npy"
        np.save(os.path.join(out_dir, file), to_numpy(t))
        entry["inputs"].append({"file": file, **tensor_info(t),
                                "npy_dtype": str(to_numpy(t).dtype)})
    for i, t in enumerate(outputs):
        file = f"{name}.output{i}.npy"
        np.save(os.path.join(out_dir, file), to_numpy(t))
        entry["outputs"].append({"file": file, **tensor_info(t),
                                 "npy_dtype": str(to_numpy(t).dtype)})
    entry["flavours"] = {
        flavour: save_flavour(ep, os.path.join(out_dir, f"{name}.{flavour}.pt2"), args,
                              outputs)
        for flavour, ep in (("training", training), ("aten", aten)) if flavour in kept
    }
    return entry


def export_error_fixture(name, builder, out_dir):
    torch.manual_seed(SEED)
    description, expected, ep = builder()
    path = os.path.join(out_dir, f"{name}.pt2")
    torch.export.save(ep, path)
    ops, _ = archive_ops(path)
    return {"name": name, "description": description, "expected_error": expected,
            "flavours": {"training": {"file": os.path.basename(path),
                                      "verifiers": archive_verifiers(path),
                                      "bytes": os.path.getsize(path), "ops": ops}}}


def calibrate_batchnorm(model, batches=16):
    """Gives every BatchNorm running statistics of real activations.

    A freshly initialized torchvision model has mean 0 / variance 1 in every
    BatchNorm, which shrinks activations layer after layer: MobileNetV3-Small's
    eager output would be ~1e-9, and any comparison against it vacuous. Running
    seeded random batches in training mode with a cumulative average gives the
    statistics of the activations the model really produces.
    """
    for module in model.modules():
        if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
            module.reset_running_stats()
            module.momentum = None
    model.train()
    with torch.no_grad():
        for _ in range(batches):
            model(torch.randn(8, 3, 224, 224))
    return model.eval()


def export_torchvision(name, out_dir):
    """Exports a torchvision classifier (random weights after torch.manual_seed,
    BatchNorm calibrated on random data) with a seeded input and its eager
    output; returns its manifest entry."""
    import torchvision

    torch.manual_seed(SEED)
    model = calibrate_batchnorm(getattr(torchvision.models, name)(weights=None))
    torch.manual_seed(SEED)
    x = torch.randn(1, 3, 224, 224)
    with torch.no_grad():
        y = model(x)
    training = torch.export.export(model, (x,))
    path = os.path.join(out_dir, f"{name}.pt2")
    np.save(os.path.join(out_dir, f"{name}.input0.npy"), to_numpy(x))
    np.save(os.path.join(out_dir, f"{name}.output0.npy"), to_numpy(y))
    flavour = save_flavour(training, path, (x,), (y,))
    # The ATEN flavour is only listed (saving it too would double the size); it is
    # saved to a scratch file so the list is read exactly as the importer sees it.
    scratch = os.path.join(out_dir, f"{name}.aten.scratch.pt2")
    torch.export.save(training.run_decompositions(), scratch)
    aten_ops, _ = archive_ops(scratch)
    os.remove(scratch)
    print(f"{name}: {flavour['bytes']} bytes, max|y| {float(y.abs().max()):.3g}, "
          f"diff {flavour['max_abs_diff_vs_eager']:.3g}")
    return {
        "name": name,
        "description": f"torchvision {name}(weights=None), initialized after "
                       "torch.manual_seed(0), BatchNorm statistics calibrated on 16 "
                       "random batches of 8 (see calibrate_batchnorm), eval mode; input "
                       "torch.randn after torch.manual_seed(0)",
        "inputs": [{"file": f"{name}.input0.npy", **tensor_info(x), "npy_dtype": "float32"}],
        "outputs": [{"file": f"{name}.output0.npy", **tensor_info(y), "npy_dtype": "float32"}],
        "flavours": {"training": flavour,
                     "aten": {"file": None, "note": "not saved; op list only", "ops": aten_ops}},
    }


def is_foreign(entry):
    """An entry another tool wrote into one of this tool's manifests (it says so in
    "generator"); this tool's runs keep it."""
    return entry.get("generator", "tools/export_fixtures.py") != "tools/export_fixtures.py"


def export_models(names, out_dir):
    import torchvision

    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "MANIFEST.json")
    foreign = []
    if os.path.exists(path):
        with open(path) as f:
            foreign = [m for m in json.load(f).get("models", [])
                       if is_foreign(m) and m["name"] not in names]
    manifest = {
        "torch_version": torch.__version__,
        "torchvision_version": torchvision.__version__,
        "generator": "tools/export_fixtures.py",
        "models": [export_torchvision(name, out_dir) for name in names] + foreign,
    }
    write_json(path, manifest)


def write_json(path, value):
    text = json.dumps(value, indent=2)
    # Keep shapes on one line: a list of plain numbers reads better as [1, 3, 16, 16].
    text = re.sub(r"\[\s*(-?\d+(?:,\s*-?\d+)*)\s*\]",
                  lambda m: "[" + ", ".join(re.split(r",\s*", m.group(1))) + "]", text)
    with open(path, "w") as f:
        f.write(text + "\n")


def main():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.path.join(repo, "test", "models"),
                        help="folder for the fixtures and MANIFEST.json (default test/models)")
    parser.add_argument("--examples-out", default=os.path.join(repo, "examples"),
                        help="folder for the example model (default examples)")
    parser.add_argument("--only", default="",
                        help="comma-separated fixture names to export (default: all)")
    parser.add_argument("--bench-out", default=os.path.join(repo, "bench", "models"),
                        help="folder for the benchmark models (default bench/models)")
    parser.add_argument("--skip-examples", action="store_true",
                        help="do not export the example and benchmark models")
    parser.add_argument("--models-only", action="store_true",
                        help="export only the example and benchmark models, no fixture")
    options = parser.parse_args()

    torch.set_num_threads(min(8, os.cpu_count() or 1))
    os.makedirs(options.out, exist_ok=True)
    wanted = set(filter(None, options.only.split(",")))
    unknown = wanted - set(FIXTURES) - set(ERROR_FIXTURES)
    if unknown:
        sys.exit(f"unknown fixture(s) {sorted(unknown)}; known: "
                 f"{sorted(FIXTURES) + sorted(ERROR_FIXTURES)}")

    manifest = {"torch_version": torch.__version__, "numpy_version": np.__version__,
                "generator": "tools/export_fixtures.py", "seed": SEED,
                "fixtures": [], "error_fixtures": []}
    failures = []
    tables = () if options.models_only else (
        (FIXTURES, export_fixture, "fixtures"),
        (ERROR_FIXTURES, export_error_fixture, "error_fixtures"))
    for table, export, key in tables:
        for name, builder in table.items():
            if wanted and name not in wanted:
                continue
            try:
                entry = export(name, builder, options.out)
            except Exception as error:  # report every failing fixture, not just the first
                failures.append(name)
                print(f"FAILED {name}: {type(error).__name__}: {error}", flush=True)
                continue
            manifest[key].append(entry)
            for flavour, info in entry["flavours"].items():
                diff = info.get("max_abs_diff_vs_eager")
                diff_text = "" if diff is None else f" diff {diff:.3g}"
                print(f"{name}.{flavour}: {info['bytes']} bytes{diff_text}\n    "
                      + " ".join(op.replace("torch.ops.aten.", "") for op in info["ops"]),
                      flush=True)
    if tables:
        path = os.path.join(options.out, "MANIFEST.json")
        if os.path.exists(path):
            # --only: the fixtures exported replace their entries in the
            # manifest already there; the others stay as they are. A full
            # run keeps only the entries another tool wrote (their
            # "generator": tools/export_quantized.py's q_* fixtures).
            with open(path) as f:
                old = json.load(f)
            for key in ("fixtures", "error_fixtures"):
                fresh = {entry["name"]: entry for entry in manifest[key]}
                kept = old.get(key, []) if wanted else [
                    entry for entry in old.get(key, []) if is_foreign(entry)]
                entries = [fresh.pop(entry["name"], entry) for entry in kept]
                manifest[key] = entries + list(fresh.values())
        write_json(path, manifest)

    if not options.skip_examples:
        # The bundled example (make run) and the benchmark models (bench/).
        for names, folder in ((["mobilenet_v3_small"], options.examples_out),
                              (["mobilenet_v2"], options.bench_out)):
            try:
                export_models(names, folder)
            except Exception as error:
                failures.append(",".join(names))
                print(f"FAILED {names}: {type(error).__name__}: {error}", flush=True)

    if failures:
        sys.exit(f"{len(failures)} export(s) failed: {failures}")


if __name__ == "__main__":
    main()
