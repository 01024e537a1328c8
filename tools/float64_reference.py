#!/usr/bin/env python3
"""PyTorch's fp32 and float64 outputs of an exported program, for the float64 rule.

On the GPU machine (PyTorch; CPU only):
    python3 tools/float64_reference.py ARCHIVE.pt2 --input X.npy [--input Y.npy ...]
        --out DIR [--name NAME]
loads the archive with torch.export.load, runs its graph (ep.module()) on the
inputs as it is (float32) and with every floating-point parameter, buffer,
constant and input widened to float64, and writes DIR/NAME.outputK.npy (fp32)
and DIR/NAME.outputK.f64.npy (float64) for each output K. The graph is the one
duet compiles, so the float64 run is of the same ops, not of the eager model.

Then, here, `duet-run bisect PROGRAM -i X.npy --float64 NAME.output0.f64.npy
--expect NAME.output0.npy` classifies a program whose output is outside the
fp32 bound (docs/reliability.md, "The float64 rule").
"""
import argparse
import os
import sys


def widen(module):
    """Every floating-point parameter, buffer and tensor constant of `module` in float64."""
    import torch

    module = module.double()
    for name, value in list(vars(module).items()):
        if isinstance(value, torch.Tensor) and value.dtype.is_floating_point:
            setattr(module, name, value.double())
    for sub in module.modules():
        for name, value in list(vars(sub).items()):
            if isinstance(value, torch.Tensor) and value.dtype.is_floating_point:
                setattr(sub, name, value.double())
    return module


def retarget_dtypes(graph_module):
    """Ops that name float32 as their result dtype (to, _to_copy, full,
    arange, ...) name float64 instead, so the graph stays in float64."""
    import torch

    for node in graph_module.graph.nodes:
        if node.op != "call_function":
            continue
        if node.kwargs.get("dtype") is torch.float32:
            kwargs = dict(node.kwargs)
            kwargs["dtype"] = torch.float64
            node.kwargs = kwargs
        node.args = tuple(torch.float64 if a is torch.float32 else a for a in node.args)
    graph_module.recompile()
    return graph_module


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("archive")
    parser.add_argument("--input", action="append", default=[], required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--name", default="")
    options = parser.parse_args()
    import numpy as np
    import torch

    name = options.name or os.path.basename(options.archive).split(".")[0]
    os.makedirs(options.out, exist_ok=True)
    ep = torch.export.load(options.archive)
    inputs = [torch.from_numpy(np.load(path)) for path in options.input]
    with torch.no_grad():
        narrow = ep.module()(*inputs)
        wide_module = retarget_dtypes(widen(ep.module()))
        wide = wide_module(*[x.double() if x.dtype.is_floating_point else x for x in inputs])
    narrow = narrow if isinstance(narrow, (tuple, list)) else (narrow,)
    wide = wide if isinstance(wide, (tuple, list)) else (wide,)
    for k, (a, b) in enumerate(zip(narrow, wide)):
        if b.dtype != torch.float64 and b.dtype.is_floating_point:
            sys.exit(f"output {k} came out {b.dtype}: some op of the graph kept a narrower dtype")
        np.save(os.path.join(options.out, f"{name}.output{k}.npy"), a.float().numpy())
        np.save(os.path.join(options.out, f"{name}.output{k}.f64.npy"), b.numpy())
        scale = float(b.abs().max()) if b.numel() else 0.0
        print(f"{name} output {k}: max |fp32 - float64| {float((a.double() - b).abs().max()):.3g}"
              f" (max |float64| {scale:.3g})")


if __name__ == "__main__":
    main()
