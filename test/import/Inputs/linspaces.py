#!/usr/bin/env python3
"""Appends three linspace constants to conv_bn_relu's outputs and writes their
expected values by PyTorch's rule (torch.linspace: one step is `start`; the
first half counted from start, the rest from end; an integer result takes
start and end as integers first), computed here without NumPy.

usage: linspaces.py FIXTURE.pt2 OUTPUT.npy OUT.pt2 OUT_DIR
Outputs: y, linspace(-1, 2, 7) float32, linspace(0.9, 7.9, 4) int64,
linspace(3, 9, 1) float32.
"""
import math
import os
import sys
from array import array

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "runtime",
                                "duet-run", "Inputs"))
from edit_npy import read, write  # noqa: E402
from graph_edit import add_output, meta, rewrite_model  # noqa: E402

CASES = [("lin_f", -1.0, 2.0, 7, 7), ("lin_i", 0.9, 7.9, 4, 5), ("lin_one", 3.0, 9.0, 1, 7)]


def linspace(start, end, steps, integer):
    if integer:
        start, end = math.trunc(start), math.trunc(end)
    if steps == 1:
        return [start]
    step = (end - start) / (steps - 1)
    values = [start + step * i if i < steps // 2 else end - step * (steps - i - 1)
              for i in range(steps)]
    return [math.trunc(v) for v in values] if integer else values


def main():
    fixture, output_npy, out_pt2, out_dir = sys.argv[1:5]
    shape, y = read(output_npy)
    write(os.path.join(out_dir, "expected0.npy"), shape, array("f", y), "<f4")
    for k, (name, start, end, steps, dtype) in enumerate(CASES, 1):
        values = linspace(start, end, steps, dtype == 5)
        if dtype == 5:
            write(os.path.join(out_dir, f"expected{k}.npy"), [steps], array("q", values), "<i8")
        else:
            write(os.path.join(out_dir, f"expected{k}.npy"), [steps], array("f", values), "<f4")

    def edit(d):
        g = d["graph_module"]["graph"]
        for name, start, end, steps, dtype in CASES:
            g["tensor_values"][name] = meta([steps], dtype)
            g["nodes"].append({
                "target": "torch.ops.aten.linspace.default",
                "inputs": [{"name": "start", "arg": {"as_float": start}, "kind": 1},
                           {"name": "end", "arg": {"as_float": end}, "kind": 1},
                           {"name": "steps", "arg": {"as_int": steps}, "kind": 1},
                           {"name": "dtype", "arg": {"as_scalar_type": dtype}, "kind": 2}],
                "outputs": [{"as_tensor": {"name": name}}], "metadata": {}})
            add_output(d, name)

    rewrite_model(fixture, out_pt2, edit)


if __name__ == "__main__":
    main()
