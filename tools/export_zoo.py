#!/usr/bin/env python3
"""Export duet's model zoo: real architectures from torchvision, timm and transformers.

What it writes
  Into the zoo folder (default: test/zoo/), for each architecture NAME:
    NAME.aten.pt2      torch.export.export(model.eval(), args).run_decompositions(),
                       verifiers ["ATEN"] (only this flavour: the TRAINING one would
                       double the size, and test/models covers both forms op by op),
                       without the per-node debugging metadata (strip_debug_metadata)
    NAME.inputK.npy    seeded random inputs, in the order of forward()'s arguments
    NAME.outputK.npy   eager outputs of the model in eval mode under torch.no_grad()
  and MANIFEST.json in the format of test/models/MANIFEST.json (tools/export_fixtures.py),
  so test/e2e's FixtureFormat turns every entry into tests, plus per entry its
  category, where the architecture comes from and its parameter count; and at the top
  the library versions, the size budget and the architectures that failed to export.

Weights and statistics
  Every model is built from code with random weights (pretrained=False, configs built
  here; nothing is downloaded). Widths, depths and resolutions are reduced so that the
  whole zoo stays under BUDGET_BYTES and each model runs in well under a second on a
  2-core machine. After torch.manual_seed(0) each model gets:
  - every normalization layer (BatchNorm, LayerNorm, GroupNorm, RMSNorm, ...) a
    random affine (weight in [0.5, 1.5), bias ~ 0.1·N(0,1)): libraries initialise them
    to 1/0, zero-initialise the last BN of residual branches (timm), or store RMSNorm
    weights as offsets from 1 (Gemma), any of which would hide a branch or an affine;
  - every linear or convolution weight initialised far below PyTorch's default scale
    (standard deviation under half of that of U(-1/sqrt(fan_in), 1/sqrt(fan_in)):
    zero-initialised classifier heads, the std-0.02 init of transformers, timm's
    head_init_scale) re-drawn from U(-1/sqrt(fan_in), 1/sqrt(fan_in)), so outputs are
    O(1) and a tolerance relative to max|ref| says something;
  - every layer scale (a parameter whose elements are all one tiny value, 1e-5 or 1e-6
    in ConvNeXt, CaiT, PoolFormer, FastViT, MobileNetV4...) values in [0.5, 1): the
    residual branches it scales would otherwise not show in the output;
  - BatchNorm running statistics of its own activations: CALIBRATION_BATCHES seeded
    random batches in train mode with momentum=None (a cumulative average).

How to run
  On a machine with PyTorch 2.11, torchvision 0.26, timm and transformers 5 (the GPU
  machine; the export itself runs on the CPU), from this folder or with it on the path
  (it imports tools/export_fixtures.py for the shared manifest helpers):
      CUDA_VISIBLE_DEVICES= python3 tools/export_zoo.py --out DIR [--jobs N] [--only A,B]
      CUDA_VISIBLE_DEVICES= python3 tools/export_zoo.py --out DIR --onnx ONNX_DIR
  also writes each architecture as ONNX_DIR/NAME.onnx from the same module (same
  weights; torch.onnx.export, opset 17, the TorchScript exporter), runs it once under
  ONNX Runtime against the eager outputs, and lists them with the sha256 of their
  .pt2 in ONNX_DIR/ONNX_MANIFEST.json (bench/zoo_compare.py reads it).
  --only exports those architectures and replaces their entries in the MANIFEST.json
  already in --out. One architecture failing to build or export is recorded in the
  manifest's "export_failures" with its error; the others go on.
      python3 tools/export_zoo.py --docs docs/zoo.md [--out DIR]
  rewrites the generated table of docs/zoo.md from the manifest (needs no PyTorch).
"""

import argparse
import concurrent.futures
import json
import multiprocessing
import os
import re
import sys
import time
import traceback

SEED = 0
BUDGET_BYTES = 25_000_000
CALIBRATION_BATCHES = 4
CALIBRATION_BATCH_SIZE = 4
VOCAB = 128
TOKENS = 16


# ---------------------------------------------------------------------------
# Preparation of a freshly built model.
# ---------------------------------------------------------------------------


def enliven(model):
    """Random affines for normalization layers and O(1) layer scales (see the module
    docstring)."""
    import torch

    with torch.no_grad():
        norm_params = set()
        for module in model.modules():
            if "norm" not in type(module).__name__.lower():
                continue
            for name, param in module.named_parameters(recurse=False):
                if name == "weight":
                    param.copy_(torch.rand_like(param) + 0.5)
                elif name == "bias":
                    param.copy_(torch.randn_like(param) * 0.1)
                norm_params.add(id(param))
        for module in model.modules():
            weight = getattr(module, "weight", None)
            if id(weight) in norm_params or not isinstance(weight, torch.nn.Parameter) \
                    or weight.dim() < 2 or isinstance(module, torch.nn.Embedding):
                continue
            # transformers' Conv1D stores [in, out]; Linear and ConvNd store out first.
            fan_in = weight.shape[0] if type(module).__name__ == "Conv1D" else weight[0].numel()
            bound = fan_in ** -0.5
            if float(weight.std()) < 0.5 * bound / 3 ** 0.5:
                weight.uniform_(-bound, bound)
        for param in model.parameters():
            if id(param) in norm_params or param.numel() < 2:
                continue
            first = param.flatten()[0]
            if 0 < abs(float(first)) < 1e-2 and bool((param == first).all()):
                param.copy_(torch.rand_like(param) * 0.5 + 0.5)
    return model


def strip_debug_metadata(ep):
    """Drops the per-node debugging metadata (stack traces, module stacks, node
    provenance) that torch.export.save would write into model.json: it is two thirds
    of the archive of a small model and nothing duet or torch.export.load needs."""
    for module in ep.graph_module.modules():
        graph = getattr(module, "graph", None)
        if graph is None:
            continue
        for node in graph.nodes:
            for key in ("stack_trace", "nn_module_stack", "source_fn_stack", "from_node",
                        "torch_fn", "original_aten", "seq_nr", "custom"):
                node.meta.pop(key, None)
    return ep


def calibrate_batchnorm(model, args):
    """Running statistics of the model's own activations: seeded random batches shaped
    like the float inputs, in train mode, with a cumulative average."""
    import torch

    bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return model
    for bn in bns:
        bn.reset_running_stats()
        bn.momentum = None
    model.train()
    with torch.no_grad():
        for _ in range(CALIBRATION_BATCHES):
            batch = []
            for a in args:
                if a.dtype.is_floating_point:
                    batch.append(torch.randn(CALIBRATION_BATCH_SIZE, *a.shape[1:]))
                else:
                    batch.append(a.expand(CALIBRATION_BATCH_SIZE, *a.shape[1:]).clone())
            model(*batch)
    return model.eval()


def image(size=64, channels=3):
    import torch

    return torch.randn(1, channels, size, size)


def tokens(with_mask=False, pad_id=None):
    """Token ids [1, TOKENS] (int64); with_mask: an attention mask whose last four
    positions are padding (ids pad_id there when given)."""
    import torch

    ids = torch.randint(3, VOCAB, (1, TOKENS))
    if not with_mask:
        return (ids,)
    mask = torch.ones(1, TOKENS, dtype=torch.int64)
    mask[:, -4:] = 0
    if pad_id is not None:
        ids[:, -4:] = pad_id
    return ids, mask


# ---------------------------------------------------------------------------
# Wrappers: a module whose forward takes tensors and returns tensors.
# ---------------------------------------------------------------------------


def _nn():
    import torch.nn as nn

    return nn


class Outputs:
    """Builds a module that calls `model(**dict(zip(names, args)))` and returns the
    listed fields of its output (a dict or ModelOutput), or the first output."""

    @staticmethod
    def make(model, names, fields):
        nn = _nn()

        class Wrapped(nn.Module):
            def __init__(self):
                super().__init__()
                self.model = model

            def forward(self, *args):
                out = self.model(**dict(zip(names, args)))
                return tuple(out[f] for f in fields)

        return Wrapped()


def first_output(model):
    nn = _nn()

    class First(nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, x):
            out = self.model(x)
            return out["out"] if isinstance(out, dict) else out

    return First()


# ---------------------------------------------------------------------------
# The zoo. Each builder returns (description, source, module, args).
# ---------------------------------------------------------------------------


def timm_model(name, **overrides):
    import timm

    return timm.create_model(name, pretrained=False, num_classes=10, **overrides)


def timm_source(name, **overrides):
    args = ", ".join(f"{k}={v!r}" for k, v in overrides.items())
    return f"timm.create_model({name!r}, pretrained=False, num_classes=10, {args})"


def from_timm(name, description, size=64, **overrides):
    """A registered timm model whose registration merges keyword arguments over its
    own (`dict(model_args, **kwargs)`), so the overrides replace widths and depths."""

    def build():
        return description, timm_source(name, **overrides), timm_model(name, **overrides), (image(size),)

    return build


def timm_class(module, cls, description, size=64, **arguments):
    """A timm model class (or creation function) called directly: for architectures
    whose registered names fix the arguments we reduce."""

    def build():
        import importlib

        target = getattr(importlib.import_module(f"timm.models.{module}"), cls)
        args = ", ".join(f"{k}={v!r}" for k, v in arguments.items())
        return (description, f"timm.models.{module}.{cls}({args}, num_classes=10)",
                target(**arguments, num_classes=10), (image(size),))

    return build


# --- CNNs -------------------------------------------------------------------


def build_vgg():
    import torch.nn as nn
    import torchvision

    cfg = [16, "M", 24, "M", 32, 32, "M", 48, 48, "M"]
    model = torchvision.models.VGG(torchvision.models.vgg.make_layers(cfg, batch_norm=True),
                                   num_classes=10, init_weights=True)
    model.avgpool = nn.AdaptiveAvgPool2d((3, 3))
    model.classifier = nn.Sequential(nn.Linear(48 * 9, 32), nn.ReLU(True), nn.Dropout(),
                                     nn.Linear(32, 32), nn.ReLU(True), nn.Dropout(),
                                     nn.Linear(32, 10))
    return ("VGG-11-BN layout at reduced width: 3x3 conv+BN+ReLU stacks, max pools, adaptive "
            "average pool 4x4 -> 3x3 (overlapping windows), a 3-layer classifier with dropout",
            f"torchvision.models.VGG(make_layers({cfg}, batch_norm=True)), avgpool (3,3), "
            "classifier 432-32-32-10", model, (image(),))


def build_densenet():
    import torchvision

    model = torchvision.models.DenseNet(growth_rate=8, block_config=(2, 2, 2, 2),
                                        num_init_features=16, bn_size=2, num_classes=10)
    return ("DenseNet: BN-ReLU-conv pre-activation layers (BN before conv does not fold), "
            "dense concatenation, transition avg_pool2d, 7x7 stem with max pool",
            "torchvision.models.DenseNet(growth_rate=8, block_config=(2,2,2,2), "
            "num_init_features=16, bn_size=2, num_classes=10)", model, (image(),))


def build_squeezenet():
    import torch
    import torch.nn as nn
    from torchvision.models.squeezenet import Fire

    class SqueezeNetHalf(nn.Module):
        """SqueezeNet 1.1's layer sequence with every width quartered."""

        def __init__(self, classes=10):
            super().__init__()
            pool = lambda: nn.MaxPool2d(3, 2, ceil_mode=True)  # noqa: E731
            self.features = nn.Sequential(
                nn.Conv2d(3, 16, 3, stride=2), nn.ReLU(inplace=True), pool(),
                Fire(16, 4, 16, 16), Fire(32, 4, 16, 16), pool(),
                Fire(32, 8, 32, 32), Fire(64, 8, 32, 32), pool(),
                Fire(64, 12, 48, 48), Fire(96, 12, 48, 48),
                Fire(96, 16, 64, 64), Fire(128, 16, 64, 64))
            self.classifier = nn.Sequential(nn.Dropout(0.5), nn.Conv2d(128, classes, 1),
                                            nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d(1))

        def forward(self, x):
            return torch.flatten(self.classifier(self.features(x)), 1)

    return ("SqueezeNet 1.1 at quarter width: Fire modules (squeeze 1x1, expand 1x1 and 3x3, "
            "cat), ceil-mode max pools, conv classifier and global average pool",
            "torchvision.models.squeezenet.Fire blocks in SqueezeNet 1.1's order, widths / 4",
            SqueezeNetHalf(), (image(),))


def build_shufflenet_v2():
    import torchvision

    model = torchvision.models.ShuffleNetV2([2, 2, 2], [8, 16, 32, 64, 128], num_classes=10)
    return ("ShuffleNetV2: channel split (chunk), channel shuffle (view/transpose/view), "
            "depthwise stride-2 branches, cat",
            "torchvision.models.ShuffleNetV2([2,2,2], [8,16,32,64,128], num_classes=10)",
            model, (image(),))


def build_mnasnet():
    import torchvision

    model = torchvision.models.MNASNet(alpha=0.1, num_classes=10)
    return ("MNASNet: inverted residuals with 3x3 and 5x5 depthwise convs, 1280-wide head",
            "torchvision.models.MNASNet(alpha=0.1, num_classes=10)", model, (image(),))


def build_regnet():
    import torchvision
    from torchvision.models.regnet import BlockParams, RegNet

    params = BlockParams.from_init_params(depth=6, w_0=16, w_a=8.0, w_m=2.0, group_width=8,
                                          se_ratio=0.25)
    model = RegNet(params, num_classes=10, stem_width=16)
    del torchvision
    return ("RegNetY: grouped 3x3 convs (group width 8), squeeze-excite, residual stages",
            "torchvision RegNet(BlockParams.from_init_params(depth=6, w_0=16, w_a=8, w_m=2, "
            "group_width=8, se_ratio=0.25), stem_width=16, num_classes=10)", model, (image(),))


def build_efficientnet_b0():
    from torchvision.models.efficientnet import EfficientNet, _efficientnet_conf

    setting, last = _efficientnet_conf("efficientnet_b0", width_mult=0.2, depth_mult=0.25)
    model = EfficientNet(setting, dropout=0.2, num_classes=10, last_channel=last)
    return ("EfficientNet-B0 layout: MBConv with SiLU, squeeze-excite (sigmoid gate), 3x3 and "
            "5x5 depthwise convs, stochastic depth (identity in eval)",
            "torchvision EfficientNet(_efficientnet_conf('efficientnet_b0', width_mult=0.2, "
            "depth_mult=0.25), num_classes=10)", model, (image(),))


def build_googlenet():
    import torch
    import torch.nn as nn
    from torchvision.models.googlenet import BasicConv2d, Inception

    class MiniGoogLeNet(nn.Module):
        def __init__(self, classes=10):
            super().__init__()
            pool = lambda: nn.MaxPool2d(3, stride=2, ceil_mode=True)  # noqa: E731
            self.stem = nn.Sequential(BasicConv2d(3, 16, kernel_size=7, stride=2, padding=3),
                                      pool(), BasicConv2d(16, 16, kernel_size=1),
                                      BasicConv2d(16, 32, kernel_size=3, padding=1), pool())
            self.inception3a = Inception(32, 8, 8, 16, 4, 8, 8)
            self.inception3b = Inception(40, 16, 8, 16, 4, 8, 8)
            self.pool3 = pool()
            self.inception4a = Inception(48, 16, 8, 24, 4, 8, 16)
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.dropout = nn.Dropout(0.2)
            self.fc = nn.Linear(64, classes)

        def forward(self, x):
            x = self.pool3(self.inception3b(self.inception3a(self.stem(x))))
            x = self.avgpool(self.inception4a(x))
            return self.fc(self.dropout(torch.flatten(x, 1)))

    return ("GoogLeNet (Inception v1) layout: 4-branch Inception blocks (1x1, 1x1-3x3, "
            "1x1-3x3, stride-1 ceil-mode max pool-1x1) concatenated, 7x7 stem",
            "torchvision.models.googlenet BasicConv2d + Inception blocks, 3 Inception blocks "
            "at reduced width", MiniGoogLeNet(), (image(),))


def build_mobilenet_v2():
    import torchvision

    repeats = [[1, 16, 1, 1], [6, 24, 1, 2], [6, 32, 2, 2], [6, 64, 2, 2], [6, 96, 1, 1],
               [6, 160, 1, 2], [6, 320, 1, 1]]
    model = torchvision.models.mobilenet_v2(weights=None, width_mult=0.2, num_classes=10,
                                            inverted_residual_setting=repeats)
    return ("MobileNetV2: inverted residuals, ReLU6 (hardtanh), depthwise 3x3, 1280-wide head",
            "torchvision.models.mobilenet_v2(weights=None, width_mult=0.2, num_classes=10, "
            "inverted_residual_setting with repeats (1,1,2,2,1,1,1))",
            model, (image(),))


def build_mobilevit():
    from timm.models.byobnet import ByobNet, ByoModelCfg
    from timm.models.mobilevit import _inverted_residual_block, _mobilevit_block

    cfg = ByoModelCfg(
        blocks=(
            _inverted_residual_block(d=1, c=16, s=1, br=2.0),
            _inverted_residual_block(d=2, c=24, s=2, br=2.0),
            _mobilevit_block(d=1, c=24, s=2, transformer_dim=32, transformer_depth=1,
                             patch_size=2, br=2.0),
            _mobilevit_block(d=1, c=32, s=2, transformer_dim=32, transformer_depth=1,
                             patch_size=2, br=2.0),
        ),
        stem_chs=16, stem_type="3x3", stem_pool="", downsample="", act_layer="silu",
        num_features=64)
    return ("MobileViT v1: inverted residuals, then MobileViT blocks (local conv, unfold into "
            "2x2 patches by reshape/transpose, transformer, fold back, fuse by cat+conv)",
            "timm ByobNet(ByoModelCfg with timm.models.mobilevit _inverted_residual_block x2 "
            "and _mobilevit_block x2, transformer dims 32, num_features=64)",
            ByobNet(cfg, num_classes=10), (image(),))


def build_mobilevitv2():
    from timm.models.byobnet import ByobNet
    from timm.models.mobilevit import _mobilevitv2_cfg

    return ("MobileViT v2: separable (linear) self-attention with softmax over patches, "
            "GroupNorm(1), patch unfold/fold by reshape",
            "timm ByobNet(timm.models.mobilevit._mobilevitv2_cfg(multiplier=0.125), "
            "num_classes=10)", ByobNet(_mobilevitv2_cfg(multiplier=0.125), num_classes=10),
            (image(),))


def shrink_mobilenet_head(model, width):
    """Replaces the 1x1 head conv of a timm MobileNetV3-class model (1280 wide whatever
    the channel multiplier, most of a small model's weights) by one `width` wide."""
    import torch.nn as nn
    from timm.layers import BatchNormAct2d

    act = type(model.norm_head.act) if hasattr(model.norm_head, "act") else nn.ReLU
    model.conv_head = nn.Conv2d(model.conv_head.in_channels, width, 1, bias=False)
    model.norm_head = BatchNormAct2d(width, act_layer=act)
    model.classifier = nn.Linear(width, model.num_classes)
    model.num_features = model.head_hidden_size = width
    return model


def build_mobilenetv4_conv():
    from timm.models.mobilenetv3 import _gen_mobilenet_v4

    model = shrink_mobilenet_head(
        _gen_mobilenet_v4("mobilenetv4_conv_small", channel_multiplier=0.25, num_classes=10), 128)
    return ("MobileNetV4-Conv-Small: universal inverted bottlenecks (optional depthwise before "
            "and after the expansion), ReLU, BatchNorm after the head conv",
            "timm.models.mobilenetv3._gen_mobilenet_v4('mobilenetv4_conv_small', "
            "channel_multiplier=0.25, num_classes=10), head conv 128 wide", model, (image(),))


def build_poolformer():
    from timm.layers import GroupNorm1
    from timm.models.metaformer import MetaFormer

    import torch.nn as nn

    arguments = dict(depths=(1, 1, 1, 1), dims=(16, 24, 32, 48), downsample_norm=None,
                     mlp_act=nn.GELU, mlp_bias=True, norm_layers=GroupNorm1,
                     layer_scale_init_values=1e-5, res_scale_init_values=None,
                     use_mlp_head=False)
    return ("PoolFormer (MetaFormer): average-pool token mixer minus identity "
            "(count_include_pad=False), GroupNorm(1) channel norm, layer scale",
            "timm.models.metaformer.MetaFormer with poolformer_s12's arguments, "
            "depths=(1,1,1,1), dims=(16,24,32,48), num_classes=10",
            MetaFormer(**arguments, num_classes=10), (image(),))


# --- Detection and segmentation ---------------------------------------------


def build_fcn():
    import torchvision
    from torchvision.models._utils import IntermediateLayerGetter
    from torchvision.models.segmentation.fcn import FCN, FCNHead

    features = torchvision.models.mobilenet_v2(weights=None, width_mult=0.25).features
    channels = features[13].out_channels
    model = FCN(IntermediateLayerGetter(features, {"13": "out"}), FCNHead(channels, 4))
    return ("FCN segmentation: MobileNetV2 backbone to stride 16, FCNHead (3x3 conv, BN, ReLU, "
            "dropout, 1x1 conv), bilinear upsampling to the input size",
            "torchvision FCN(IntermediateLayerGetter(mobilenet_v2(width_mult=0.25).features, "
            "{'13': 'out'}), FCNHead(C, 4))", first_output(model), (image(),))


def build_deeplabv3():
    import torch.nn as nn
    import torchvision
    from torchvision.models._utils import IntermediateLayerGetter
    from torchvision.models.segmentation.deeplabv3 import ASPP, DeepLabV3

    backbone = torchvision.models.mobilenet_v3_small(weights=None, width_mult=0.25,
                                                     dilated=True).features
    channels = backbone[-1].out_channels
    head = nn.Sequential(ASPP(channels, [2, 4, 6], out_channels=16),
                         nn.Conv2d(16, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16),
                         nn.ReLU(), nn.Conv2d(16, 4, 1))
    model = DeepLabV3(IntermediateLayerGetter(backbone, {str(len(backbone) - 1): "out"}), head)
    return ("DeepLabV3 segmentation: dilated MobileNetV3-Small backbone (dilated depthwise "
            "convs), ASPP (1x1, three dilated 3x3 branches, image pooling + bilinear "
            "upsampling, cat, projection), bilinear upsampling to the input size",
            "torchvision DeepLabV3(mobilenet_v3_small(width_mult=0.25, dilated=True).features, "
            "ASPP(C, [2,4,6], out_channels=16) + DeepLabHead's layers at width 16)",
            first_output(model), (image(),))


def build_lraspp():
    import torchvision
    from torchvision.models.segmentation.lraspp import _lraspp_mobilenetv3

    backbone = torchvision.models.mobilenet_v3_small(weights=None, width_mult=0.25, dilated=True)
    model = _lraspp_mobilenetv3(backbone, num_classes=4)
    return ("LR-ASPP segmentation: dilated MobileNetV3-Small, a global-pool sigmoid gate on "
            "the high-level branch, low-level classifier, two bilinear upsamplings",
            "torchvision.models.segmentation.lraspp._lraspp_mobilenetv3("
            "mobilenet_v3_small(width_mult=0.25, dilated=True), num_classes=4)",
            first_output(model), (image(),))


def build_ssdlite():
    import functools

    import torch
    import torch.nn as nn
    import torchvision
    from torchvision.models.detection.ssdlite import SSDLiteHead, _extra_block

    norm = functools.partial(nn.BatchNorm2d, eps=0.001, momentum=0.03)

    class SSDLiteFeatures(nn.Module):
        """Feature maps at stride 16 and 32 of MobileNetV3-Small, and one SSDLite extra
        block at stride 64."""

        def __init__(self):
            super().__init__()
            features = torchvision.models.mobilenet_v3_small(weights=None, width_mult=0.5,
                                                             reduced_tail=True).features
            stride16 = [i for i, b in enumerate(features) if getattr(b, "_is_cn", False)][-1]
            self.c4 = features[:stride16]
            self.c5 = features[stride16:]
            self.extra = _extra_block(features[-1].out_channels, 32, norm)
            self.channels = [features[stride16 - 1].out_channels, features[-1].out_channels, 32]

        def forward(self, x):
            c4 = self.c4(x)
            c5 = self.c5(c4)
            return [c4, c5, self.extra(c5)]

    class SSDLite(nn.Module):
        def __init__(self, classes=5, anchors=6):
            super().__init__()
            self.backbone = SSDLiteFeatures()
            self.head = SSDLiteHead(self.backbone.channels, [anchors] * 3, classes, norm)

        def forward(self, x):
            out = self.head(self.backbone(x))
            return out["bbox_regression"], torch.softmax(out["cls_logits"], dim=-1)

    return ("SSDLite detection head: MobileNetV3-Small feature maps at strides 16/32 plus an "
            "extra block, depthwise-separable box and class predictors per map, "
            "view/permute/reshape per level, cat over levels, class softmax",
            "torchvision.models.detection.ssdlite SSDLiteHead([C4, C5, 32], [6,6,6], 5) and "
            "_extra_block on mobilenet_v3_small(width_mult=0.5, reduced_tail=True).features", SSDLite(),
            (image(96),))


def build_yolo():
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class Conv(nn.Module):
        def __init__(self, cin, cout, k=1, s=1):
            super().__init__()
            self.conv = nn.Conv2d(cin, cout, k, s, k // 2, bias=False)
            self.bn = nn.BatchNorm2d(cout)

        def forward(self, x):
            return F.silu(self.bn(self.conv(x)))

    class Bottleneck(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.cv1, self.cv2 = Conv(c, c, 3), Conv(c, c, 3)

        def forward(self, x):
            return x + self.cv2(self.cv1(x))

    class C2f(nn.Module):
        def __init__(self, cin, cout, n=1):
            super().__init__()
            self.c = cout // 2
            self.cv1 = Conv(cin, 2 * self.c)
            self.m = nn.ModuleList(Bottleneck(self.c) for _ in range(n))
            self.cv2 = Conv((2 + n) * self.c, cout)

        def forward(self, x):
            y = list(self.cv1(x).chunk(2, 1))
            for m in self.m:
                y.append(m(y[-1]))
            return self.cv2(torch.cat(y, 1))

    class SPPF(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.cv1, self.cv2 = Conv(c, c // 2), Conv(c * 2, c)

        def forward(self, x):
            x = self.cv1(x)
            y1 = F.max_pool2d(x, 5, 1, 2)
            y2 = F.max_pool2d(y1, 5, 1, 2)
            return self.cv2(torch.cat([x, y1, y2, F.max_pool2d(y2, 5, 1, 2)], 1))

    class Detect(nn.Module):
        """Decoupled box (distribution focal loss bins) and class branches per level,
        decoded into xywh boxes in pixels and class probabilities: [1, 4 + classes, A]."""

        def __init__(self, channels, classes=8, reg_max=8, strides=(8, 16, 32), size=64):
            super().__init__()
            self.reg_max, self.classes = reg_max, classes
            self.box = nn.ModuleList(nn.Sequential(Conv(c, 16, 3), nn.Conv2d(16, 4 * reg_max, 1))
                                     for c in channels)
            self.cls = nn.ModuleList(nn.Sequential(Conv(c, 8, 3), nn.Conv2d(8, classes, 1))
                                     for c in channels)
            self.register_buffer("bins", torch.arange(reg_max, dtype=torch.float32).view(1, reg_max, 1, 1))
            points, stride_list = [], []
            for s in strides:
                n = size // s
                ys, xs = torch.meshgrid(torch.arange(n) + 0.5, torch.arange(n) + 0.5, indexing="ij")
                points.append(torch.stack([xs, ys], 0).reshape(2, -1))
                stride_list.append(torch.full((1, n * n), float(s)))
            self.register_buffer("anchors", torch.cat(points, 1).unsqueeze(0))
            self.register_buffer("strides", torch.cat(stride_list, 1).unsqueeze(0))

        def forward(self, feats):
            outs = [torch.cat([b(f), c(f)], 1).flatten(2) for f, b, c in zip(feats, self.box, self.cls)]
            x = torch.cat(outs, 2)
            box, cls = x.split([4 * self.reg_max, self.classes], 1)
            n, a = box.shape[0], box.shape[-1]
            dist = box.view(n, 4, self.reg_max, a).transpose(2, 1).softmax(1)
            dist = F.conv2d(dist, self.bins).view(n, 4, a)
            lt, rb = dist.chunk(2, 1)
            x1y1, x2y2 = self.anchors - lt, self.anchors + rb
            xywh = torch.cat([(x1y1 + x2y2) / 2, x2y2 - x1y1], 1) * self.strides
            return torch.cat([xywh, cls.sigmoid()], 1)

    class MiniYolo(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(Conv(3, 8, 3, 2), Conv(8, 16, 3, 2), C2f(16, 16))
            self.p3 = nn.Sequential(Conv(16, 16, 3, 2), C2f(16, 16))
            self.p4 = nn.Sequential(Conv(16, 24, 3, 2), C2f(24, 24))
            self.p5 = nn.Sequential(Conv(24, 32, 3, 2), C2f(32, 32), SPPF(32))
            self.up4 = C2f(32 + 24, 24)
            self.up3 = C2f(24 + 16, 16)
            self.down4 = Conv(16, 16, 3, 2)
            self.n4 = C2f(16 + 24, 24)
            self.down5 = Conv(24, 24, 3, 2)
            self.n5 = C2f(24 + 32, 32)
            self.detect = Detect((16, 24, 32))

        def forward(self, x):
            p3 = self.p3(self.stem(x))
            p4 = self.p4(p3)
            p5 = self.p5(p4)
            u4 = self.up4(torch.cat([F.interpolate(p5, scale_factor=2.0, mode="nearest"), p4], 1))
            u3 = self.up3(torch.cat([F.interpolate(u4, scale_factor=2.0, mode="nearest"), p3], 1))
            n4 = self.n4(torch.cat([self.down4(u3), u4], 1))
            n5 = self.n5(torch.cat([self.down5(n4), p5], 1))
            return self.detect([u3, n4, n5])

    return ("YOLOv8-style detector written here: C2f blocks (chunk, bottleneck chain, cat), "
            "SPPF (chained 5x5 max pools), PAN neck (nearest upsampling, cat, strided convs), "
            "decoupled head with DFL (softmax over 8 bins, 1x1 conv with fixed bin weights) and "
            "anchor decoding to xywh boxes",
            "tools/export_zoo.py MiniYolo (no detection library needed)", MiniYolo(), (image(),))


# --- Encoder-only transformers ----------------------------------------------


def hf(cls_name, config_name, config, inputs, fields, description, module="transformers"):
    """A transformers model from a config built here, returning `fields` of its output."""

    def build():
        import importlib

        lib = importlib.import_module(module)
        cfg = getattr(importlib.import_module("transformers"), config_name)(**config)
        model = getattr(lib, cls_name)(cfg)
        args = inputs()
        names = ["input_ids", "attention_mask"] if len(args) == 2 else [input_name(cls_name)]
        source = f"transformers {cls_name}({config_name}({', '.join(f'{k}={v!r}' for k, v in config.items())}))"
        return description, source, Outputs.make(model, names, fields), args

    return build


def input_name(cls_name):
    if "Whisper" in cls_name:
        return "input_features"
    if "Wav2Vec2" in cls_name:
        return "input_values"
    return "input_ids"


SMALL_BERT = dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                  intermediate_size=64, max_position_embeddings=64)
SMALL_DECODER = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                     max_position_embeddings=64, use_cache=False)


def build_whisper_encoder():
    import torch
    from transformers import WhisperConfig
    from transformers.models.whisper.modeling_whisper import WhisperEncoder

    config = dict(d_model=32, encoder_layers=2, encoder_attention_heads=2, encoder_ffn_dim=64,
                  decoder_layers=1, decoder_attention_heads=2, decoder_ffn_dim=64,
                  num_mel_bins=16, max_source_positions=32, vocab_size=VOCAB)
    model = WhisperEncoder(WhisperConfig(**config))
    features = torch.randn(1, 16, 64)
    return ("Whisper encoder: two Conv1d+GELU (the second stride 2) over log-mel frames, "
            "sinusoidal positions, pre-norm transformer layers",
            "transformers WhisperEncoder(WhisperConfig(" +
            ", ".join(f"{k}={v!r}" for k, v in config.items()) + "))",
            Outputs.make(model, ["input_features"], ["last_hidden_state"]), (features,))


def build_wav2vec2():
    import torch
    from transformers import Wav2Vec2Config, Wav2Vec2Model

    config = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                  intermediate_size=64, conv_dim=(16, 16, 16), conv_stride=(5, 2, 2),
                  conv_kernel=(10, 3, 3), num_conv_pos_embeddings=16,
                  num_conv_pos_embedding_groups=4, feat_extract_norm="group",
                  do_stable_layer_norm=False, vocab_size=32)
    model = Wav2Vec2Model(Wav2Vec2Config(**config))
    audio = torch.randn(1, 1600)
    return ("wav2vec 2.0 encoder: Conv1d feature extractor with GroupNorm (one group per "
            "channel) and GELU, feature projection, grouped convolutional positional embedding "
            "(weight-normalized), post-norm transformer layers",
            "transformers Wav2Vec2Model(Wav2Vec2Config(" +
            ", ".join(f"{k}={v!r}" for k, v in config.items()) + "))",
            Outputs.make(model, ["input_values"], ["last_hidden_state"]), (audio,))


ZOO = {
    # CNNs
    "resnet_basic": ("cnn", from_timm(
        "resnet18", "ResNet-18 layout (basic blocks): 7x7 stem, max pool, residual adds, "
        "strided 1x1 downsample shortcuts", layers=[1, 1, 1, 1], channels=(8, 16, 32, 48),
        stem_width=8)),
    "resnet_bottleneck": ("cnn", from_timm(
        "resnet50d", "ResNet-50-D layout: deep 3-conv stem, bottleneck blocks, average-pool "
        "downsample shortcuts (avg_pool2d ceil_mode, count_include_pad=False)",
        layers=[1, 1, 1, 1], channels=(8, 16, 24, 32), stem_width=8)),
    "vgg": ("cnn", build_vgg),
    "densenet": ("cnn", build_densenet),
    "squeezenet": ("cnn", build_squeezenet),
    "shufflenet_v2": ("cnn", build_shufflenet_v2),
    "mnasnet": ("cnn", build_mnasnet),
    "regnety": ("cnn", build_regnet),
    "efficientnet_b0": ("cnn", build_efficientnet_b0),
    "googlenet": ("cnn", build_googlenet),
    "mobilenet_v2": ("cnn", build_mobilenet_v2),
    "convmixer": ("cnn", timm_class(
        "convmixer", "ConvMixer", "ConvMixer: patch conv, then depthwise 5x5 + GELU + BN residual and "
        "pointwise mixing", dim=64, depth=2, kernel_size=5, patch_size=4)),
    # Mobile hybrids
    "mobilevit": ("hybrid", build_mobilevit),
    "mobilevitv2": ("hybrid", build_mobilevitv2),
    "efficientformer": ("hybrid", from_timm(
        "efficientformer_l1", "EfficientFormer: 4-D pooling metablocks (avg_pool2d minus "
        "identity), then a 3-D attention stage with learned attention biases gathered by a "
        "fixed index, at 224x224 (the biases assume a 7x7 last stage)", size=224,
        depths=(1, 1, 1, 2), embed_dims=(16, 24, 32, 48), mlp_ratios=2, num_vit=1)),
    "fastvit": ("hybrid", from_timm(
        "fastvit_sa12", "FastViT-SA: RepMixer token mixing (depthwise conv branches, layer "
        "scale), conditional positional encoding, attention in the last stage",
        layers=(1, 1, 1, 1), embed_dims=(16, 32, 32, 64), mlp_ratios=(2, 2, 2, 2))),
    "repvit": ("hybrid", from_timm(
        "repvit_m0_9", "RepViT: RepVGG-style depthwise token mixer (3x3 + 1x1 + identity "
        "branches), SE, distillation head with BatchNorm1d (mean of two classifiers)",
        embed_dim=(16, 24, 32, 48), depth=(1, 1, 1, 1))),
    "mobilenetv4_conv": ("hybrid", build_mobilenetv4_conv),
    "edgenext": ("hybrid", timm_class(
        "edgenext", "EdgeNeXt", "EdgeNeXt: conv encoders, split depthwise transpose attention "
        "(split, cumulative depthwise convs, cross-covariance attention with L2-normalized "
        "q/k), Fourier positional encoding (cumsum, sin/cos)", depths=(1, 1, 1, 1),
        dims=(16, 32, 48, 64), heads=(4, 4, 4, 4))),
    "efficientvit": ("hybrid", from_timm(
        "efficientvit_b0", "EfficientViT (MIT): MBConv stages, lightweight multi-scale linear "
        "attention (ReLU kernels, matmuls, a division; run inside an autocast-disabled region)",
        widths=(8, 16, 24, 32, 48), depths=(1, 1, 1, 1, 1), head_widths=(64, 80))),
    # Vision transformers and their kin
    "vit": ("vit", from_timm(
        "vit_tiny_patch16_224", "ViT: patch-embedding conv, class token, learned positions, "
        "pre-norm blocks with fused attention (scaled_dot_product_attention), GELU MLP",
        size=32, img_size=32, patch_size=4, embed_dim=64, depth=2, num_heads=2, mlp_ratio=2.0)),
    "swin": ("vit", from_timm(
        "swin_tiny_patch4_window7_224", "Swin: window partition (view/permute), shifted windows "
        "(roll) with an attention mask, relative position bias gathered from a table, patch "
        "merging", img_size=64, window_size=4, embed_dim=8, depths=(2, 2, 1, 1),
        num_heads=(1, 2, 4, 8), mlp_ratio=2.0)),
    "convnext": ("vit", from_timm(
        "convnext_atto", "ConvNeXt: 4x4 patch stem, 7x7 depthwise convs, channels-last "
        "LayerNorm (permute or LayerNorm2d), GELU MLP, layer scale",
        dims=(16, 24, 32, 48), depths=(1, 1, 2, 1))),
    "poolformer": ("vit", build_poolformer),
    "beit": ("vit", from_timm(
        "beit_base_patch16_224", "BEiT: relative position bias gathered by index from a "
        "learned table, q/v biases (k bias zero) concatenated, layer scale",
        size=32, img_size=32, patch_size=4, embed_dim=64, depth=2, num_heads=2, mlp_ratio=2.0)),
    "fcn": ("detection", build_fcn),
    "deeplabv3": ("detection", build_deeplabv3),
    "lraspp": ("detection", build_lraspp),
    "ssdlite": ("detection", build_ssdlite),
    "yolo": ("detection", build_yolo),
    # Encoder-only transformers
    "bert": ("encoder", hf(
        "BertModel", "BertConfig", SMALL_BERT, lambda: tokens(with_mask=True),
        ["last_hidden_state", "pooler_output"],
        "BERT: word/position/token-type embeddings, padding mask expanded into an additive "
        "attention mask, post-norm layers, tanh pooler")),
    "distilbert": ("encoder", hf(
        "DistilBertModel", "DistilBertConfig",
        dict(vocab_size=VOCAB, dim=32, n_layers=2, n_heads=2, hidden_dim=64,
             max_position_embeddings=64), lambda: tokens(with_mask=True), ["last_hidden_state"],
        "DistilBERT: embeddings without token types, padding mask, post-norm layers")),
    "roberta": ("encoder", hf(
        "RobertaModel", "RobertaConfig", dict(SMALL_BERT, max_position_embeddings=66,
                                              pad_token_id=1),
        lambda: tokens(with_mask=True, pad_id=1), ["last_hidden_state"],
        "RoBERTa: position ids computed from the input ids (ne pad, cumsum, mul, add), "
        "padding mask")),
    "albert": ("encoder", hf(
        "AlbertModel", "AlbertConfig", dict(SMALL_BERT, embedding_size=16),
        lambda: tokens(with_mask=True), ["last_hidden_state", "pooler_output"],
        "ALBERT: factorized embeddings (16 -> 32 projection), one layer's weights shared by "
        "both layers, GELU-new (tanh) activation")),
    "t5_encoder": ("encoder", hf(
        "T5EncoderModel", "T5Config",
        dict(vocab_size=VOCAB, d_model=32, d_kv=16, d_ff=64, num_layers=2, num_heads=2,
             relative_attention_num_buckets=8, relative_attention_max_distance=16,
             feed_forward_proj="relu"), lambda: tokens(with_mask=True), ["last_hidden_state"],
        "T5 encoder: RMS layer norm (pow, mean, rsqrt), relative position buckets computed in "
        "the graph (abs, log, min, where, integer casts) gathered from an embedding")),
    # Decoder-only transformers
    "gpt2": ("decoder", hf(
        "GPT2LMHeadModel", "GPT2Config",
        dict(vocab_size=VOCAB, n_positions=64, n_embd=32, n_layer=2, n_head=2, use_cache=False),
        tokens, ["logits"],
        "GPT-2: learned positions, Conv1D (addmm) projections, causal attention, GELU-new, "
        "tied LM head")),
    "llama": ("decoder", hf(
        "LlamaForCausalLM", "LlamaConfig",
        dict(SMALL_DECODER, num_attention_heads=4, num_key_value_heads=2), tokens, ["logits"],
        "LLaMA: RMSNorm, rotary position embeddings (cos/sin of position x inverse "
        "frequency, rotate_half by slice/neg/cat), grouped-query attention (4 query heads, 2 "
        "key/value heads), causal mask, SwiGLU MLP")),
    "qwen2": ("decoder", hf(
        "Qwen2ForCausalLM", "Qwen2Config",
        dict(SMALL_DECODER, num_attention_heads=4, num_key_value_heads=1), tokens, ["logits"],
        "Qwen2: LLaMA-style with biased q/k/v projections and multi-query attention (one "
        "key/value head)")),
    "gemma": ("decoder", hf(
        "GemmaForCausalLM", "GemmaConfig",
        dict(SMALL_DECODER, num_attention_heads=2, num_key_value_heads=1, head_dim=16), tokens,
        ["logits"],
        "Gemma: embeddings scaled by sqrt(hidden), RMSNorm with (1 + weight), GELU-tanh "
        "gated MLP, multi-query attention, tied LM head")),
    # Audio encoders
    "whisper_encoder": ("audio", build_whisper_encoder),
    "wav2vec2": ("audio", build_wav2vec2),
}


# ---------------------------------------------------------------------------
# Export.
# ---------------------------------------------------------------------------



# Zoo entries whose outputs need a looser bound than the fp32 default, each
# with the reason, per element (test/e2e/fixture_format.py applies it).
TOLERANCES = {
    "mnasnet": {"rtol": 1e-4, "atol": 5e-4,
                "why": ("the float64 rule (docs/reliability.md): MNASNet at alpha 0.1 amplifies rounding; PyTorch's own fp32 " +
                        "output is 1.23e-4 from its float64 run of the same graph (max|ref| 7.27), duet's 1.37e-4 on portable" +
                        ", 1.0e-4 on XNNPACK, 1.2e-4 on Vulkan (duet-run bisect --float64), so two correct fp32 results diffe" +
                        "r by up to their sum, 2.6e-4: atol 5e-4 is twice that, per element")},
}

def export_onnx(name, model, args, outputs, onnx_dir):
    """Writes the same module, with the same weights, as ONNX_DIR/NAME.onnx (the
    TorchScript exporter, opset 17) and runs it once under ONNX Runtime's CPU provider
    to record how far it is from eager; returns the record for ONNX_MANIFEST.json."""
    import numpy as np
    import torch

    import export_fixtures as fx

    file = f"{name}.onnx"
    path = os.path.join(onnx_dir, file)
    names = [f"input{i}" for i in range(len(args))]
    record = {"name": name, "file": file, "inputs": names}
    try:
        with torch.no_grad():
            torch.onnx.export(model, args, path, opset_version=17, dynamo=False,
                              input_names=names)
        import onnxruntime

        session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
        got = session.run(None, {n: fx.to_numpy(a) for n, a in zip(names, args)})
        record["bytes"] = os.path.getsize(path)
        record["max_abs_diff_vs_eager"] = max(
            float(np.max(np.abs(g.astype(np.float64) - fx.to_numpy(o).astype(np.float64))))
            if g.size else 0.0 for g, o in zip(got, outputs))
    except Exception as error:  # an architecture the ONNX exporter refuses is recorded
        record["error"] = f"{type(error).__name__}: {str(error)[:800]}"
    return record


def export_one(name, out_dir, onnx_dir=None):
    """Builds, prepares, runs and exports one architecture; returns (entry, log)."""
    import numpy as np
    import torch

    import deflate_archive
    import export_fixtures as fx

    torch.set_num_threads(1)
    started = time.time()
    category, builder = ZOO[name]
    torch.manual_seed(SEED)
    description, source, model, args = builder()
    enliven(model)
    torch.manual_seed(SEED + 1)
    calibrate_batchnorm(model, args)
    model.eval()
    with torch.no_grad():
        outputs = fx.as_tuple(model(*args))
    params = sum(p.numel() for p in model.parameters())

    exported = torch.export.export(model, args)
    aten = strip_debug_metadata(exported.run_decompositions())
    # The example inputs would be saved again as data/sample_inputs: the .npy files hold them.
    aten.example_inputs = None

    entry = {"name": name, "category": category, "description": description,
             "source": source, "parameters": params, "inputs": [], "outputs": []}
    if name in TOLERANCES:
        entry["tolerance"] = TOLERANCES[name]
    if onnx_dir:
        entry["onnx"] = export_onnx(name, model, args, outputs, onnx_dir)
    for kind, tensors in (("input", args), ("output", outputs)):
        for i, t in enumerate(tensors):
            file = f"{name}.{kind}{i}.npy"
            np.save(os.path.join(out_dir, file), fx.to_numpy(t))
            entry[kind + "s"].append({"file": file, **fx.tensor_info(t),
                                      "npy_dtype": str(fx.to_numpy(t).dtype),
                                      "max_abs": float(t.float().abs().max())})
    archive = os.path.join(out_dir, f"{name}.aten.pt2")
    entry["flavours"] = {"aten": fx.save_flavour(aten, archive, args, outputs)}
    # Deflated, entries byte for byte the same: about 11% smaller, which keeps
    # the tracked tree within what travels to the device machine.
    stored = os.path.getsize(archive)
    deflate_archive.deflate(archive)
    entry["flavours"]["aten"].update(bytes=os.path.getsize(archive), stored_bytes=stored)
    entry["bytes"] = sum(os.path.getsize(os.path.join(out_dir, f["file"]))
                         for f in entry["inputs"] + entry["outputs"]) \
        + entry["flavours"]["aten"]["bytes"]
    log = (f"{name}: {params} parameters, {entry['bytes']} bytes, "
           f"{time.time() - started:.1f} s, max|out| "
           + ", ".join(f"{o['max_abs']:.3g}" for o in entry["outputs"])
           + f", reload diff {entry['flavours']['aten']['max_abs_diff_vs_eager']}\n    "
           + " ".join(op.replace("torch.ops.aten.", "") for op in entry["flavours"]["aten"]["ops"]))
    return entry, log


def export_guarded(name, out_dir, onnx_dir=None):
    """export_one in a worker process: an exception becomes a failure record."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    try:
        entry, log = export_one(name, out_dir, onnx_dir)
        return name, entry, log, None
    except Exception as error:
        tb = traceback.format_exc(limit=-6)
        return name, None, None, f"{type(error).__name__}: {str(error)[:1500]}\n{tb[-3000:]}"


def sha256(path):
    import hashlib

    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def versions():
    out = {}
    for module in ("torch", "torchvision", "timm", "transformers", "numpy"):
        try:
            out[module + "_version"] = __import__(module).__version__
        except Exception as error:  # a library missing is recorded, not fatal
            out[module + "_version"] = f"unavailable ({type(error).__name__})"
    return out


def export_zoo(out_dir, wanted, jobs, onnx_dir=None):
    os.makedirs(out_dir, exist_ok=True)
    if onnx_dir:
        os.makedirs(onnx_dir, exist_ok=True)
    names = [n for n in ZOO if not wanted or n in wanted]
    entries, failures, onnx_records = {}, {}, {}
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        futures = [pool.submit(export_guarded, name, out_dir, onnx_dir) for name in names]
        for future in concurrent.futures.as_completed(futures):
            try:
                name, entry, log, error = future.result()
            except Exception as crash:  # the worker died (a crash inside PyTorch)
                print(f"worker crashed: {crash}", flush=True)
                continue
            if error:
                failures[name] = error
                print(f"FAILED {name}: {error}", flush=True)
            else:
                onnx = entry.pop("onnx", None)
                if onnx:
                    onnx["pt2"] = entry["flavours"]["aten"]["file"]
                    onnx["pt2_sha256"] = sha256(os.path.join(out_dir, onnx["pt2"]))
                    onnx_records[name] = onnx
                    log += (f"\n    onnx: {onnx['error']}" if "error" in onnx else
                            f"\n    onnx: {onnx['bytes']} bytes, ONNX Runtime diff "
                            f"{onnx['max_abs_diff_vs_eager']:.3g}")
                entries[name] = entry
                print(log, flush=True)

    path = os.path.join(out_dir, "MANIFEST.json")
    old = {}
    if wanted and os.path.exists(path):
        with open(path) as f:
            old = json.load(f)
    old_entries = {e["name"]: e for e in old.get("fixtures", [])}
    old_failures = {e["name"]: e for e in old.get("export_failures", [])}
    fixtures, export_failures = [], []
    for name in ZOO:
        if name in entries:
            fixtures.append(entries[name])
        elif name in failures:
            export_failures.append({"name": name, "category": ZOO[name][0],
                                    "error": failures[name]})
        elif name in old_entries:
            fixtures.append(old_entries[name])
        elif name in old_failures:
            export_failures.append(old_failures[name])
    total = sum(e["bytes"] for e in fixtures)
    manifest = {
        **versions(),
        "generator": "tools/export_zoo.py",
        "seed": SEED,
        "flavours": "aten only: torch.export.export(...).run_decompositions(), verifiers ATEN",
        "budget_bytes": BUDGET_BYTES,
        "total_bytes": total,
        "fixtures": fixtures,
        "export_failures": export_failures,
        "excluded": old.get("excluded", []),
    }
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import export_fixtures as fx

    fx.write_json(path, manifest)
    if onnx_dir:
        fx.write_json(os.path.join(onnx_dir, "ONNX_MANIFEST.json"), {
            **versions(), "generator": "tools/export_zoo.py --onnx",
            "exporter": "torch.onnx.export(model, args, opset_version=17, dynamo=False)",
            "models": [onnx_records[n] for n in ZOO if n in onnx_records]})
    print(f"\n{len(fixtures)} exported, {len(export_failures)} failed "
          f"({', '.join(e['name'] for e in export_failures) or 'none'}); "
          f"{total} bytes of {BUDGET_BYTES} budget", flush=True)
    return 1 if export_failures or total > BUDGET_BYTES else 0


# ---------------------------------------------------------------------------
# docs/zoo.md's generated table.
# ---------------------------------------------------------------------------

CATEGORY_TITLES = {"cnn": "CNN", "hybrid": "mobile hybrid", "vit": "vision transformer",
                   "detection": "detection / segmentation", "encoder": "encoder-only",
                   "decoder": "decoder-only", "audio": "audio encoder"}
BEGIN, END = "<!-- BEGIN GENERATED: export_zoo.py --docs -->", "<!-- END GENERATED -->"


def docs_table(manifest):
    rows = [f"{len(manifest['fixtures'])} architectures, {manifest['total_bytes'] / 1e6:.1f} "
            f"MB of fixtures (budget {manifest['budget_bytes'] / 1e6:.0f} MB); exported with "
            f"PyTorch {manifest['torch_version']}, torchvision {manifest['torchvision_version']}, "
            f"timm {manifest['timm_version']}, transformers {manifest['transformers_version']}.",
            "", "| model | kind | parameters | fixture KiB | inputs | what it exercises |",
            "|---|---|---|---|---|---|"]
    for e in manifest["fixtures"]:
        inputs = ", ".join(f"{i['dtype']}{i['shape']}" for i in e["inputs"])
        rows.append(f"| `{e['name']}` | {CATEGORY_TITLES.get(e['category'], e['category'])} | "
                    f"{e['parameters']:,} | {e['bytes'] // 1024:,} | {inputs} | "
                    f"{e['description']} |")
    for e in manifest.get("excluded", []) + manifest.get("export_failures", []):
        reason = e.get("reason") or "export failed"
        rows.append(f"| `{e['name']}` | {CATEGORY_TITLES.get(e['category'], e['category'])} | "
                    f"excluded | | | {reason} |")
    return "\n".join(rows)


def update_docs(doc_path, manifest_path, check):
    """Rewrites the generated section of doc_path; with check, only says whether
    it is current (exit status 1 when not)."""
    with open(manifest_path) as f:
        manifest = json.load(f)
    with open(doc_path) as f:
        text = f.read()
    if BEGIN not in text or END not in text:
        sys.exit(f"{doc_path}: no '{BEGIN}' ... '{END}' section to rewrite")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    fresh = head + BEGIN + "\n" + docs_table(manifest) + "\n" + END + tail
    if check:
        if fresh != text:
            print(f"{doc_path} is stale; regenerate it with tools/export_zoo.py --docs {doc_path}")
            return 1
        return 0
    with open(doc_path, "w") as f:
        f.write(fresh)
    return 0


def main():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.path.join(repo, "test", "zoo"),
                        help="folder for the zoo and MANIFEST.json (default test/zoo)")
    parser.add_argument("--only", default="", help="comma-separated architectures to export")
    parser.add_argument("--jobs", type=int, default=min(8, os.cpu_count() or 1),
                        help="worker processes (default min(8, cores))")
    parser.add_argument("--docs", metavar="ZOO_MD",
                        help="rewrite the generated table of ZOO_MD from --out's MANIFEST.json "
                             "and export nothing")
    parser.add_argument("--check", action="store_true",
                        help="with --docs: only check that ZOO_MD is current")
    parser.add_argument("--list", action="store_true", help="print the architectures and exit")
    parser.add_argument("--onnx", metavar="DIR",
                        help="also write each architecture as DIR/NAME.onnx with the same "
                             "weights (for bench/zoo_compare.py), checked under ONNX Runtime, "
                             "and DIR/ONNX_MANIFEST.json")
    options = parser.parse_args()

    if options.list:
        for name, (category, _) in ZOO.items():
            print(f"{name} {category}")
        return 0
    if options.docs:
        return update_docs(options.docs, os.path.join(options.out, "MANIFEST.json"),
                           options.check)
    wanted = set(filter(None, options.only.split(",")))
    unknown = wanted - set(ZOO)
    if unknown:
        sys.exit(f"unknown architecture(s) {sorted(unknown)}; known: {sorted(ZOO)}")
    return export_zoo(options.out, wanted, options.jobs, options.onnx)


if __name__ == "__main__":
    sys.exit(main())
