#!/usr/bin/env python3
"""Appends 3-D poolings and a masked_scatter to the conv3d fixture, and writes
their expected outputs computed here, directly in 3-D, from the fixture's
stored eager output (no NumPy: the test machine has none).

usage: pool3d_masked_scatter.py FIXTURE.pt2 CONV_OUTPUT.npy OUT.pt2 OUT_DIR

The graph's outputs become: the convolution (as before), max_pool3d (kernel
3x2x2, stride 1x2x1, padding 1x1x0, ceil_mode), avg_pool3d (kernel 2x2x2,
stride 2x1x1, padding 1x1x0, ceil_mode, count_include_pad=False),
_adaptive_avg_pool3d to 3x2x2, and masked_scatter(x, x > 0, x). OUT_DIR gets
expected0.npy ... expected4.npy.
"""
import math
import os
import struct
import sys
from array import array

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "runtime",
                                "duet-run", "Inputs"))
from edit_npy import read, write  # noqa: E402
from graph_edit import add_output, meta, rewrite_model, tensor  # noqa: E402


def out_size(n, k, s, p, d, ceil):
    span = n + 2 * p - d * (k - 1) - 1
    o = (-(-span // s) if ceil else span // s) + 1
    if ceil and (o - 1) * s >= n + p:
        o -= 1
    return o


def pool(x, shape, kernel, stride, padding, dilation, ceil, kind):
    n, c, D, H, W = shape
    dims = (D, H, W)
    outs = [out_size(dims[i], kernel[i], stride[i], padding[i], dilation[i], ceil)
            for i in range(3)]
    at = lambda ci, d, h, w: x[(((ci * D) + d) * H + h) * W + w]
    result = []
    for ci in range(c):
        for od in range(outs[0]):
            for oh in range(outs[1]):
                for ow in range(outs[2]):
                    o = (od, oh, ow)
                    ranges, divisor = [], 1
                    for i in range(3):
                        start = o[i] * stride[i] - padding[i]
                        if kind == "max":
                            taps = [start + j * dilation[i] for j in range(kernel[i])]
                            ranges.append([t for t in taps if 0 <= t < dims[i]])
                        else:
                            end = min(start + kernel[i], dims[i] + padding[i])
                            lo, hi = max(start, 0), min(end, dims[i])
                            ranges.append(list(range(lo, hi)))
                            divisor *= hi - lo
                    vals = [at(ci, d, h, w) for d in ranges[0] for h in ranges[1]
                            for w in ranges[2]]
                    result.append(max(vals) if kind == "max" else sum(vals) / divisor)
    return [n, c] + outs, result


def adaptive(x, shape, size):
    n, c, D, H, W = shape
    dims = (D, H, W)
    result = []
    bounds = [[(math.floor(o * dims[i] / size[i]), math.ceil((o + 1) * dims[i] / size[i]))
               for o in range(size[i])] for i in range(3)]
    for ci in range(c):
        for (d0, d1) in bounds[0]:
            for (h0, h1) in bounds[1]:
                for (w0, w1) in bounds[2]:
                    vals = [x[(((ci * D) + d) * H + h) * W + w] for d in range(d0, d1)
                            for h in range(h0, h1) for w in range(w0, w1)]
                    result.append(sum(vals) / len(vals))
    return [n, c] + list(size), result






def arg(name, value):
    return {"name": name, "arg": value, "kind": 1}


def main():
    fixture, conv_npy, out_pt2, out_dir = sys.argv[1:5]
    shape, x = read(conv_npy)
    shape = list(shape)
    outputs = [(shape, list(x))]
    mp_shape, mp = pool(x, shape, (3, 2, 2), (1, 2, 1), (1, 1, 0), (1, 1, 1), True, "max")
    ap_shape, ap = pool(x, shape, (2, 2, 2), (2, 1, 1), (1, 1, 0), (1, 1, 1), True, "avg")
    aap_shape, aap = adaptive(x, shape, (3, 2, 2))
    flat, k, ms = list(x), 0, []
    for v in x:
        if v > 0:
            ms.append(flat[k])
            k += 1
        else:
            ms.append(v)
    outputs += [(mp_shape, mp), (ap_shape, ap), (aap_shape, aap), (shape, ms)]
    for i, (s, values) in enumerate(outputs):
        write(os.path.join(out_dir, f"expected{i}.npy"), s, array("f", values), "<f4")

    def edit(d):
        g = d["graph_module"]["graph"]
        conv = g["outputs"][0]["as_tensor"]["name"]
        tv = g["tensor_values"]
        tv.update({"mp": meta(mp_shape), "mpi": meta(mp_shape, 5), "ap": meta(ap_shape),
                   "aap": meta(aap_shape), "mask": meta(shape, 12), "ms": meta(shape)})
        ints = lambda v: {"as_ints": list(v)}
        g["nodes"] += [
            {"target": "torch.ops.aten.max_pool3d_with_indices.default",
             "inputs": [arg("self", tensor(conv)), arg("kernel_size", ints((3, 2, 2))),
                        arg("stride", ints((1, 2, 1))), arg("padding", ints((1, 1, 0))),
                        arg("ceil_mode", {"as_bool": True})],
             "outputs": [tensor("mp"), tensor("mpi")], "metadata": {}},
            {"target": "torch.ops.aten.avg_pool3d.default",
             "inputs": [arg("self", tensor(conv)), arg("kernel_size", ints((2, 2, 2))),
                        arg("stride", ints((2, 1, 1))), arg("padding", ints((1, 1, 0))),
                        arg("ceil_mode", {"as_bool": True}),
                        arg("count_include_pad", {"as_bool": False})],
             "outputs": [tensor("ap")], "metadata": {}},
            {"target": "torch.ops.aten._adaptive_avg_pool3d.default",
             "inputs": [arg("self", tensor(conv)), arg("output_size", ints((3, 2, 2)))],
             "outputs": [tensor("aap")], "metadata": {}},
            {"target": "torch.ops.aten.gt.Scalar",
             "inputs": [arg("self", tensor(conv)), arg("other", {"as_float": 0.0})],
             "outputs": [tensor("mask")], "metadata": {}},
            {"target": "torch.ops.aten.masked_scatter.default",
             "inputs": [arg("self", tensor(conv)), arg("mask", tensor("mask")),
                        arg("source", tensor(conv))],
             "outputs": [tensor("ms")], "metadata": {}},
        ]
        for name in ("mp", "ap", "aap", "ms"):
            add_output(d, name)

    rewrite_model(fixture, out_pt2, edit)


if __name__ == "__main__":
    main()
