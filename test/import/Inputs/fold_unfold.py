#!/usr/bin/env python3
"""Appends F.fold(F.unfold(y)) (im2col, then col2im with the same kernel 3x2,
dilation 1x2, padding 1x0, stride 2x1) to the output y of conv_bn_relu, and
writes the expected outputs computed here from the fixture's stored eager
output: each element of y times the number of windows that cover it (no
NumPy: the test machine has none).

usage: fold_unfold.py FIXTURE.pt2 OUTPUT.npy OUT.pt2 OUT_DIR
"""
import os
import sys
from array import array

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "runtime",
                                "duet-run", "Inputs"))
from edit_npy import read, write  # noqa: E402
from graph_edit import add_output, meta, rewrite_model  # noqa: E402

KERNEL, DILATION, PADDING, STRIDE = (3, 2), (1, 2), (1, 0), (2, 1)


def coverage(size):
    counts = [[0] * size[1] for _ in range(size[0])]
    padded = [size[i] + 2 * PADDING[i] for i in range(2)]
    blocks = [(padded[i] - (DILATION[i] * (KERNEL[i] - 1) + 1)) // STRIDE[i] + 1
              for i in range(2)]
    for oh in range(blocks[0]):
        for ow in range(blocks[1]):
            for ki in range(KERNEL[0]):
                for kj in range(KERNEL[1]):
                    h = oh * STRIDE[0] + ki * DILATION[0] - PADDING[0]
                    w = ow * STRIDE[1] + kj * DILATION[1] - PADDING[1]
                    if 0 <= h < size[0] and 0 <= w < size[1]:
                        counts[h][w] += 1
    return counts, blocks[0] * blocks[1]




def main():
    fixture, output_npy, out_pt2, out_dir = sys.argv[1:5]
    shape, y = read(output_npy)
    n, c, h, w = shape
    counts, blocks = coverage((h, w))
    expected = array("f", [y[((b * c + ci) * h + i) * w + j] * counts[i][j]
                           for b in range(n) for ci in range(c)
                           for i in range(h) for j in range(w)])
    write(os.path.join(out_dir, "expected0.npy"), shape, array("f", y), "<f4")
    write(os.path.join(out_dir, "expected1.npy"), shape, expected, "<f4")
    ints = lambda v: {"as_ints": list(v)}

    def edit(d):
        g = d["graph_module"]["graph"]
        out = g["outputs"][0]["as_tensor"]["name"]
        g["tensor_values"]["cols"] = meta([n, c * KERNEL[0] * KERNEL[1], blocks])
        g["tensor_values"]["folded"] = meta(shape)
        common = [{"name": "kernel_size", "arg": ints(KERNEL), "kind": 1},
                  {"name": "dilation", "arg": ints(DILATION), "kind": 1},
                  {"name": "padding", "arg": ints(PADDING), "kind": 1},
                  {"name": "stride", "arg": ints(STRIDE), "kind": 1}]
        g["nodes"] += [
            {"target": "torch.ops.aten.im2col.default",
             "inputs": [{"name": "self", "arg": {"as_tensor": {"name": out}},
                         "kind": 1}] + common,
             "outputs": [{"as_tensor": {"name": "cols"}}], "metadata": {}},
            {"target": "torch.ops.aten.col2im.default",
             "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "cols"}},
                         "kind": 1},
                        {"name": "output_size", "arg": ints((h, w)), "kind": 1}]
             + common,
             "outputs": [{"as_tensor": {"name": "folded"}}], "metadata": {}}]
        add_output(d, "folded")

    rewrite_model(fixture, out_pt2, edit)


if __name__ == "__main__":
    main()
