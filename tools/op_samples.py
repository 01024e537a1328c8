#!/usr/bin/env python3
"""Reference samples of the core ATen ops, from PyTorch's own OpInfo tests.

For every OpInfo of `torch.testing._internal.common_methods_invocations.op_db`
whose graph, exported and lowered to the core opset (`run_decompositions()`),
holds a core ATen overload, this writes one program whose outputs are the op
applied to each of its kept samples: up to --per-dtype of the OpInfo's own
`sample_inputs` for each dtype an export gives (float32, float16, bfloat16,
int64, int32, int16, int8, uint8, bool) that the op supports on the CPU, plus,
for floating dtypes, the first sample again with NaN, +Inf, -Inf, -0.0 and a
large value written into its first tensor; a float16 or bfloat16 sample also
gets float64 references of its outputs (`outputK_f64`: the op on the same
values in float64, for the float64 rule). Samples that do not export, that
give or take complex tensors, or whose outputs are empty are left out, with the
reason in the manifest. OpInfos whose outputs are uninitialized or random
(`empty`, `uniform`, dropout, ...: UNDEFINED) are not sampled.

On the GPU machine (PyTorch 2.11; CPU only):
    CUDA_VISIBLE_DEVICES= python3 tools/op_samples.py --out DIR [--jobs N]
        [--per-dtype K] [--only NAME,...] [--seconds S]
writes, per OpInfo NAME, DIR/NAME.pt2 and DIR/NAME.npz (`inputK` and
`outputK`, eager PyTorch's values; bfloat16 stored as float32, as NumPy has
no bfloat16), and DIR/samples.json: per program its samples (dtype, input
shapes, which inputs and outputs are theirs) and the core overloads its graph
holds, and the core overloads no kept sample reaches.

Here, test/ops/run_samples.py compiles each program for a backend set and
checks every output against PyTorch's (docs/ops.md, "Reference samples").
"""

import argparse
import json
import os
import re
import sys
import time
import traceback

DTYPES = ("float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool")
FLOATS = ("float32", "float16", "bfloat16")
EDGE = (float("nan"), float("inf"), float("-inf"), -0.0, 1e4)
# OpInfos whose outputs are uninitialized memory or random draws: no
# reference to compare with.
UNDEFINED = ("empty", "empty_like", "empty_permuted", "empty_strided", "new_empty",
             "new_empty_strided", "bernoulli", "normal", "normal.in_place",
             "normal.number_mean", "uniform", "cauchy", "exponential", "geometric",
             "log_normal", "multinomial", "randint", "randint_like", "randn", "randn_like",
             "rand_like", "nn.functional.dropout", "nn.functional.dropout2d",
             "nn.functional.dropout3d", "nn.functional.alpha_dropout",
             "nn.functional.feature_alpha_dropout")


def import_op_db():
    """PyTorch's OpInfo database. torch.testing._internal imports the
    expecttest package for its TestCase base class, which the GPU machine
    lacks; a stand-in serves, as only the database is used here."""
    try:
        import expecttest  # noqa: F401
    except ImportError:
        import types
        import unittest

        stand_in = types.ModuleType("expecttest")
        stand_in.TestCase = unittest.TestCase
        sys.modules["expecttest"] = stand_in
    from torch.testing._internal.common_methods_invocations import op_db

    return op_db


def core_overloads():
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "compiler", "import", "core_aten_ops.json")) as f:
        return {entry["op"] for entry in json.load(f)["core"]}


def safe_name(name):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


class Samples:
    """A module that applies one OpInfo to several samples; each sample's
    tensors are inputs, its other arguments constants."""

    def __init__(self, op):
        self.op = op
        self.samples = []  # (treespec, leaves with tensors replaced by None, input count)

    def add(self, sample):
        import torch
        from torch.utils import _pytree as pytree

        leaves, spec = pytree.tree_flatten((sample.input, sample.args, sample.kwargs))
        tensors = [leaf.detach().clone().contiguous() for leaf in leaves
                   if isinstance(leaf, torch.Tensor)]
        consts = [None if isinstance(leaf, torch.Tensor) else leaf for leaf in leaves]
        self.samples.append((spec, consts, len(tensors)))
        return tensors

    def module(self):
        import torch
        from torch.utils import _pytree as pytree

        op, samples = self.op, self.samples

        class Apply(torch.nn.Module):
            def forward(self, *inputs):
                outputs, at = [], 0
                for spec, consts, count in samples:
                    mine = iter(inputs[at:at + count])
                    at += count
                    leaves = [next(mine) if c is None else c for c in consts]
                    x, args, kwargs = pytree.tree_unflatten(leaves, spec)
                    result = op.op(x, *args, **kwargs)
                    # A clone, so that no output aliases an input (export refuses that).
                    outputs += [t.clone() for t in pytree.tree_leaves(result)
                                if isinstance(t, torch.Tensor)]
                return tuple(outputs)

        return Apply()


def with_edges(sample, dtype):
    """The sample with NaN, ±Inf, -0.0 and a large value in its first
    floating tensor (None when it has none of at least 5 elements)."""
    import copy

    import torch

    edged = copy.deepcopy(sample)
    first = edged.input if isinstance(edged.input, torch.Tensor) else None
    if first is None or first.dtype != dtype or first.numel() < len(EDGE):
        return None
    flat = first.detach().clone().contiguous()
    view = flat.view(-1)
    for i, value in enumerate(EDGE):
        view[i] = value
    edged.input = flat
    return edged


def tensor_ok(t):
    return not t.is_complex() and t.numel() > 0 and str(t.dtype).split(".")[-1] in DTYPES


def export_graph(module, inputs):
    import torch

    ep = torch.export.export(module, tuple(inputs), strict=False).run_decompositions()
    targets = set()
    for node in ep.graph.nodes:
        if node.op == "call_function" and str(node.target).startswith("aten."):
            targets.add(str(node.target)[len("aten."):])
    return ep, targets


def one_opinfo(job):
    """Exports the samples of one OpInfo; returns its manifest entry."""
    import itertools

    import numpy as np
    import torch

    op_db = import_op_db()

    index, out_dir, per_dtype, core = job
    op = op_db[index]
    name = safe_name(op.name + (("." + op.variant_test_name) if op.variant_test_name else ""))
    entry = {"name": name, "opinfo": op.name, "variant": op.variant_test_name,
             "samples": [], "skipped": []}
    try:
        supported = {str(d).split(".")[-1] for d in op.supported_dtypes("cpu")}
    except Exception as error:
        entry["error"] = f"supported_dtypes: {error}"[:300]
        return entry
    candidates = []  # (dtype name, is edge sample, sample)
    for dtype_name in DTYPES:
        if dtype_name not in supported:
            continue
        dtype = getattr(torch, dtype_name)
        try:
            found = list(itertools.islice(op.sample_inputs("cpu", dtype, requires_grad=False),
                                          per_dtype))
        except Exception as error:
            entry["skipped"].append({"dtype": dtype_name, "why": f"sample_inputs: {error}"[:200]})
            continue
        candidates += [(dtype_name, False, s) for s in found]
        edged = with_edges(found[0], dtype) if dtype_name in FLOATS and found else None
        if edged is not None:
            candidates.append((dtype_name, True, edged))

    kept = []  # (dtype name, is edge, sample, inputs, outputs)
    for k, (dtype_name, edge, sample) in enumerate(candidates):
        try:
            probe = Samples(op)
            tensors = probe.add(sample)
            if any(not tensor_ok(t) for t in tensors):
                raise ValueError("an input is complex, empty or of a dtype an export does not give")
            with torch.no_grad():
                result = probe.module()(*tensors)
            if not result or any(not tensor_ok(t) for t in result):
                raise ValueError("an output is complex, empty or of an unlisted dtype")
        except Exception as error:
            entry["skipped"].append({"dtype": dtype_name, "sample": k,
                                     "why": f"{type(error).__name__}: {error}"[:200]})
            continue
        kept.append((dtype_name, edge, sample, tensors, list(result)))

    def combined(chosen):
        holder = Samples(op)
        for _, _, sample, _, _ in chosen:
            holder.add(sample)
        return export_graph(holder.module(), [t for c in chosen for t in c[3]])

    if not kept:
        return entry
    try:
        ep, all_targets = combined(kept)
    except Exception:
        # Keep the samples that export on their own.
        alone = []
        for item in kept:
            try:
                combined([item])
                alone.append(item)
            except Exception as error:
                entry["skipped"].append({"dtype": item[0], "why": f"export: {type(error).__name__}: "
                                         f"{error}"[:200]})
        kept = alone
        if not kept:
            return entry
        try:
            ep, all_targets = combined(kept)
        except Exception as error:
            entry["error"] = f"combined export: {type(error).__name__}: {error}"[:300]
            return entry
    if not all_targets & core:
        entry["error"] = "its graph holds no core ATen overload"
        return entry
    torch.export.save(ep, os.path.join(out_dir, f"{name}.pt2"))
    inputs, outputs = [], []
    for dtype_name, edge, _, tensors, result in kept:
        entry["samples"].append({
            "dtype": dtype_name, "edge": edge,
            "inputs": [len(inputs), len(inputs) + len(tensors)],
            "outputs": [len(outputs), len(outputs) + len(result)],
            "input_shapes": [list(t.shape) for t in tensors]})
        inputs += tensors
        outputs += result

    def stored(t):
        t = t.detach()
        return (t.float() if t.dtype == torch.bfloat16 else t).contiguous().numpy()

    arrays = {f"input{i}": stored(t) for i, t in enumerate(inputs)}
    arrays.update({f"output{i}": stored(t) for i, t in enumerate(outputs)})
    # Float64 references of the half-precision samples: the same op on the
    # same values in float64, for the float64 rule of run_samples.py (PyTorch
    # computes some half ops in the half type, duet in float32).
    for sample, (dtype_name, _, original, tensors, result) in zip(entry["samples"], kept):
        if dtype_name not in ("float16", "bfloat16"):
            continue
        try:
            holder = Samples(op)
            holder.add(original)
            wide = [t.double() if t.is_floating_point() else t for t in tensors]
            with torch.no_grad():
                exact = holder.module()(*wide)
            if len(exact) != len(result):
                continue
            first = sample["outputs"][0]
            for j, (e, r) in enumerate(zip(exact, result)):
                if e.is_floating_point() and r.is_floating_point() and e.shape == r.shape:
                    arrays[f"output{first + j}_f64"] = e.detach().double().contiguous().numpy()
            sample["float64"] = True
        except Exception as error:  # an op without a float64 kernel
            sample["float64"] = f"{type(error).__name__}: {error}"[:120]
    np.savez(os.path.join(out_dir, f"{name}.npz"), **arrays)
    entry["targets"] = sorted(all_targets & core)
    entry["other_targets"] = sorted(all_targets - core)
    entry["inputs"], entry["outputs"] = len(inputs), len(outputs)
    return entry


def guarded(job):
    try:
        return one_opinfo(job)
    except BaseException as error:  # one OpInfo must not end the run
        return {"name": f"opinfo{job[0]}", "samples": [],
                "error": f"{type(error).__name__}: {error}"[:300],
                "trace": traceback.format_exc()[-600:]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) - 1))
    parser.add_argument("--per-dtype", type=int, default=2)
    parser.add_argument("--only", default="", help="OpInfo names, comma-separated")
    parser.add_argument("--seconds", type=float, default=300)
    options = parser.parse_args()

    import multiprocessing

    import torch

    op_db = import_op_db()

    os.makedirs(options.out, exist_ok=True)
    core = core_overloads()
    only = set(filter(None, options.only.split(",")))
    bases = {overload.split(".")[0] for overload in core}

    def priority(op):
        base = op.name.split(".")[-1]
        return (0 if base in bases or op.aten_name in bases else
                1 if op.name.startswith("nn.functional.") else 2)

    order = sorted(range(len(op_db)), key=lambda i: priority(op_db[i]))
    jobs = [(i, options.out, options.per_dtype, core) for i in order
            if (not only or op_db[i].name in only) and op_db[i].name not in UNDEFINED]
    entries = []
    deadline = time.time() + options.seconds
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(options.jobs, maxtasksperchild=32) as pool:
        results = pool.imap_unordered(guarded, jobs)
        while len(entries) < len(jobs):
            try:
                entry = results.next(timeout=max(deadline - time.time(), 1))
            except Exception:
                break
            entries.append(entry)
            print(entry["name"], len(entry["samples"]), entry.get("error", ""), flush=True)
        pool.terminate()
    kept = [e for e in entries if e["samples"]]
    reached = set().union(*(set(e.get("targets", [])) for e in kept)) if kept else set()
    manifest = {"torch": torch.__version__, "opinfos": len(jobs), "finished": len(entries),
                "programs": sorted(kept, key=lambda e: e["name"]),
                "empty": sorted(({"name": e["name"], "error": e.get("error", ""),
                                  "skipped": e.get("skipped", [])[:3]}
                                 for e in entries if not e["samples"]), key=lambda e: e["name"]),
                "core_unreached": sorted(core - reached)}
    with open(os.path.join(options.out, "samples.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print(f"{len(kept)} programs, {sum(len(e['samples']) for e in kept)} samples, "
          f"{len(reached)} of {len(core)} core overloads reached", flush=True)


if __name__ == "__main__":
    sys.exit(main())
