#!/usr/bin/env python3
"""Writes a .pt2 archive whose graph is one ATen op (or two) on the input of
test/models/activations.training.pt2 (float32 [2, 3, 8, 8]), and the op's
expected output computed here, for ops that the fixtures' exports decompose
before duet sees them but a TRAINING-IR export keeps:

    one_op.py OP OUT.pt2 OUT.npy

Only the standard library is used (zipfile, json, struct), so the test makes
its archive at test time. Each reference is written out element by element
from PyTorch's definition of the op; `histc` rounds each step to float32 as
PyTorch's float kernel does, so that values on a bin's edge land where
PyTorch puts them.
"""
import json
import math
import os
import struct
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tools"))
from census import write_float32_npy  # noqa: E402  (a .npy writer without NumPy)
MODELS = os.path.join(HERE, "..", "..", "models")
TEMPLATE = os.path.join(MODELS, "activations.training.pt2")
INPUT = os.path.join(MODELS, "activations.input0.npy")
SHAPE = (2, 3, 8, 8)


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def load_input():
    with open(INPUT, "rb") as f:
        data = f.read()
    length = struct.unpack("<H", data[8:10])[0]
    count = math.prod(SHAPE)
    return list(struct.unpack(f"<{count}f", data[10 + length:10 + length + 4 * count]))



def at(shape, flat):
    out = []
    for size in reversed(shape):
        out.insert(0, flat % size)
        flat //= size
    return out


def triangle(x, diagonal, lower):
    out = []
    for flat, v in enumerate(x):
        _, _, row, col = at(SHAPE, flat)
        keep = col - row <= diagonal if lower else col - row >= diagonal
        out.append(v if keep else 0.0)
    return SHAPE, out


def unshuffle(x, r):
    n, c, h, w = SHAPE
    shape = (n, c * r * r, h // r, w // r)
    out = [0.0] * len(x)
    for flat in range(len(x)):
        b, ch, i, j = at(shape, flat)
        cin, rest = divmod(ch, r * r)
        dy, dx = divmod(rest, r)
        out[flat] = x[((b * c + cin) * h + i * r + dy) * w + j * r + dx]
    return shape, out


def xlogy(x):
    out = []
    for v in x:
        if math.isnan(v):
            out.append(v)
        elif v == 0:
            out.append(0.0)
        elif v < 0:
            out.append(float("nan"))
        else:
            out.append(v * math.log(v))
    return SHAPE, out


def logit(x, eps):
    out = []
    for v in x:
        v = min(max(v, eps), 1 - eps)
        out.append(math.log(v / (1 - v)))
    return SHAPE, out


def histc(x, bins, low, high):
    if low == high:
        low, high = min(x), max(x)
        if low == high:
            low, high = low - 1, high + 1
    low, high = f32(low), f32(high)
    counts = [0.0] * bins
    for v in x:
        if not low <= v <= high:
            continue
        position = f32(f32(f32(v - low) * bins) / f32(high - low))
        counts[min(int(position), bins - 1)] += 1
    return (bins,), counts


def embedding_bag(x, mode, padding_idx):
    """x as a [48, 8] weight; indices 0, 5, ..., 45; offsets 0, 3, 6, 9."""
    indices, offsets = list(range(0, 48, 5)), list(range(0, 10, 3))
    out = []
    for b, start in enumerate(offsets):
        end = offsets[b + 1] if b + 1 < len(offsets) else len(indices)
        rows = [indices[j] for j in range(start, end) if indices[j] != padding_idx]
        for d in range(8):
            column = [x[i * 8 + d] for i in rows]
            if not column:
                out.append(0.0)
            elif mode == 1:
                out.append(sum(column) / len(column))
            else:
                out.append(max(column))
    return (len(offsets), 8), out


def tensor(name):
    return {"as_tensor": {"name": name}}


# OP: ([(target, name, extra arguments, input name)], reference)
OPS = {
    "tril": ([("tril.default", "y", [("diagonal", {"as_int": 1})], "x")],
             lambda x: triangle(x, 1, True)),
    "triu": ([("triu.default", "y", [("diagonal", {"as_int": -1})], "x")],
             lambda x: triangle(x, -1, False)),
    "pixel_unshuffle": ([("pixel_unshuffle.default", "y",
                          [("downscale_factor", {"as_int": 2})], "x")],
                        lambda x: unshuffle(x, 2)),
    # pixel_shuffle undoes pixel_unshuffle: the input again.
    "pixel_shuffle": ([("pixel_unshuffle.default", "u", [("downscale_factor", {"as_int": 2})], "x"),
                       ("pixel_shuffle.default", "y", [("upscale_factor", {"as_int": 2})], "u")],
                      lambda x: (SHAPE, x)),
    "xlogy": ([("xlogy.Tensor", "y", [("other", tensor("x"))], "x")], xlogy),
    "logit": ([("logit.default", "y", [("eps", {"as_float": 0.25})], "x")],
              lambda x: logit(x, 0.25)),
    "histc": ([("histc.default", "y", [("bins", {"as_int": 10}), ("min", {"as_float": -1.5}),
                                       ("max", {"as_float": 1.5})], "x")],
              lambda x: histc(x, 10, -1.5, 1.5)),
    "histc_range": ([("histc.default", "y", [("bins", {"as_int": 7})], "x")],
                    lambda x: histc(x, 7, 0, 0)),
    "embedding_bag_mean": (
        "bag", [("mode", {"as_int": 1}), ("padding_idx", {"as_int": 10})],
        lambda x: embedding_bag(x, 1, 10)),
    "embedding_bag_max": (
        "bag", [("mode", {"as_int": 2})], lambda x: embedding_bag(x, 2, -1)),
}

def bag_nodes(extra):
    """The nodes of an embedding_bag case, (node, name, sizes, dtype): its
    operands come from nodes of their own, the weight x viewed as [48, 8],
    the indices and offsets aranges (int64, dtype code 5)."""
    def node(target, name, inputs):
        return {"target": f"torch.ops.aten.{target}",
                "inputs": [{"name": k, "arg": v, "kind": 1} for k, v in inputs],
                "outputs": [tensor(name)], "metadata": {},
                "is_hop_single_tensor_return": None, "name": name}
    ints = lambda values: {"as_ints": values}  # noqa: E731
    return [
        (node("view.default", "w", [("self", tensor("x")), ("size", ints([48, 8]))]),
         "w", [48, 8], 7),
        (node("arange.start_step", "i", [("start", {"as_int": 0}), ("end", {"as_int": 48}),
                                         ("step", {"as_int": 5}),
                                         ("dtype", {"as_scalar_type": 5})]), "i", [10], 5),
        (node("arange.start_step", "o", [("start", {"as_int": 0}), ("end", {"as_int": 10}),
                                         ("step", {"as_int": 3}),
                                         ("dtype", {"as_scalar_type": 5})]), "o", [4], 5),
        (node("_embedding_bag.default", "y",
              [("weight", tensor("w")), ("indices", tensor("i")), ("offsets", tensor("o"))]
              + extra), "y", [4, 8], 7),
    ]


def sized(template, sizes, dtype):
    strides, step = [], 1
    for size in reversed(sizes):
        strides.insert(0, {"as_int": step})
        step *= size
    return dict(template, sizes=[{"as_int": s} for s in sizes], strides=strides,
                dtype=dtype)


def main():
    op, out_pt2, out_npy = sys.argv[1:4]
    nodes, extra_or_reference, *rest = OPS[op]
    x = load_input()
    reference = rest[0] if nodes == "bag" else extra_or_reference
    shape, expected = reference(x)
    with zipfile.ZipFile(TEMPLATE) as source:
        files = {name: source.read(name) for name in source.namelist()}
    model = [n for n in files if n.endswith("models/model.json")][0]
    doc = json.loads(files[model])
    graph = doc["graph_module"]["graph"]
    template = graph["tensor_values"]["x"]
    graph["nodes"], values = [], {"x": template}
    if nodes == "bag":
        # The two outputs past bag_size are not read; each still needs a value.
        for node, name, sizes, dtype in bag_nodes(extra_or_reference):
            if name == "y":
                node["outputs"] = [tensor("y"), tensor("offset2bag"), tensor("bag_size"),
                                   tensor("max_indices")]
                for other in ("offset2bag", "bag_size", "max_indices"):
                    values[other] = sized(template, [10], 5)
            graph["nodes"].append(node)
            values[name] = sized(template, sizes, dtype)
        nodes = []
    for target, name, extra, source_name in nodes:
        graph["nodes"].append({
            "target": f"torch.ops.aten.{target}",
            "inputs": [{"name": "self", "arg": tensor(source_name), "kind": 1}] +
                      [{"name": k, "arg": v, "kind": 1} for k, v in extra],
            "outputs": [tensor(name)], "metadata": {},
            "is_hop_single_tensor_return": None, "name": name})
        sizes = shape if name == "y" else unshuffle(x, 2)[0]
        strides, step = [], 1
        for size in reversed(sizes):
            strides.insert(0, {"as_int": step})
            step *= size
        values[name] = dict(template, sizes=[{"as_int": s} for s in sizes], strides=strides)
    graph["tensor_values"] = values
    graph["outputs"] = [tensor("y")]
    doc["graph_module"]["signature"]["output_specs"] = [{"user_output": {"arg": tensor("y")}}]
    files[model] = json.dumps(doc).encode()
    with zipfile.ZipFile(out_pt2, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    write_float32_npy(out_npy, shape, expected)


if __name__ == "__main__":
    main()
