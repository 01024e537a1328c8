#!/usr/bin/env python3
"""Appends cdist and pdist to conv_bn_relu's output y ([1, 8, 8, 8]), and
writes their expected values computed here from the fixture's stored eager
output (no NumPy: the test machine has none).

usage: distances.py FIXTURE.pt2 OUTPUT.npy OUT.pt2 OUT_DIR

a = y.view(16, 32), b = y.view(4, 4, 32); the outputs become y,
_cdist_forward(a, b, 2) and _cdist_forward(a, b, 1.5) (batch dims broadcast:
[4, 16, 4]) and _pdist_forward(a, 2) ([120]).
"""
import os
import sys
from array import array

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "runtime",
                                "duet-run", "Inputs"))
from edit_npy import read, write  # noqa: E402
from graph_edit import add_output, meta, rewrite_model, tensor  # noqa: E402


def dist(u, v, p):
    return sum(abs(x - y) ** p for x, y in zip(u, v)) ** (1 / p)




def main():
    fixture, output_npy, out_pt2, out_dir = sys.argv[1:5]
    shape, y = read(output_npy)
    rows = [list(y[i * 32:(i + 1) * 32]) for i in range(16)]
    cd = {p: [dist(rows[i], rows[4 * b + r], p) for b in range(4) for i in range(16)
              for r in range(4)] for p in (2.0, 1.5)}
    pd = [dist(rows[i], rows[j], 2.0) for i in range(16) for j in range(i + 1, 16)]
    write(os.path.join(out_dir, "expected0.npy"), shape, array("f", y), "<f4")
    write(os.path.join(out_dir, "expected1.npy"), [4, 16, 4], array("f", cd[2.0]), "<f4")
    write(os.path.join(out_dir, "expected2.npy"), [4, 16, 4], array("f", cd[1.5]), "<f4")
    write(os.path.join(out_dir, "expected3.npy"), [120], array("f", pd), "<f4")

    def node(target, inputs, out):
        return {"target": target,
                "inputs": [{"name": k, "arg": v, "kind": 1} for k, v in inputs],
                "outputs": [{"as_tensor": {"name": out}}], "metadata": {}}

    def edit(d):
        g = d["graph_module"]["graph"]
        out = g["outputs"][0]["as_tensor"]["name"]
        g["tensor_values"].update({"a": meta([16, 32]), "b": meta([4, 4, 32]),
                                   "d2": meta([4, 16, 4]), "d15": meta([4, 16, 4]),
                                   "pd": meta([120])})
        g["nodes"] += [
            node("torch.ops.aten.view.default",
                 [("self", tensor(out)), ("size", {"as_ints": [16, 32]})], "a"),
            node("torch.ops.aten.view.default",
                 [("self", tensor(out)), ("size", {"as_ints": [4, 4, 32]})], "b"),
            node("torch.ops.aten._cdist_forward.default",
                 [("x1", tensor("a")), ("x2", tensor("b")), ("p", {"as_float": 2.0}),
                  ("compute_mode", {"as_none": True})], "d2"),
            node("torch.ops.aten._cdist_forward.default",
                 [("x1", tensor("a")), ("x2", tensor("b")), ("p", {"as_float": 1.5}),
                  ("compute_mode", {"as_none": True})], "d15"),
            node("torch.ops.aten._pdist_forward.default",
                 [("self", tensor("a")), ("p", {"as_float": 2.0})], "pd")]
        for name in ("d2", "d15", "pd"):
            add_output(d, name)

    rewrite_model(fixture, out_pt2, edit)


if __name__ == "__main__":
    main()
