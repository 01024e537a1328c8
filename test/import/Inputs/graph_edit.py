"""Helpers for the scripts that append nodes to a fixture's graph and compute
their expected values (pool3d_masked_scatter.py, fold_unfold.py,
distances.py, linspaces.py)."""
import json
import zipfile


def meta(shape, dtype=7):
    """The tensor_values entry of a contiguous tensor (dtype 7: float32)."""
    return {"dtype": dtype, "sizes": [{"as_int": s} for s in shape], "requires_grad": False,
            "device": {"type": "cpu", "index": None},
            "strides": [{"as_int": 1} for _ in shape], "storage_offset": {"as_int": 0},
            "layout": 7}


def tensor(name):
    return {"as_tensor": {"name": name}}


def add_output(d, name):
    """Makes tensor `name` one more user output of the program `d`."""
    d["graph_module"]["graph"]["outputs"].append(tensor(name))
    d["graph_module"]["signature"]["output_specs"].append({"user_output": {"arg": tensor(name)}})


def rewrite_model(fixture, out_pt2, edit):
    """Copies archive `fixture` to `out_pt2` with its program JSON passed
    through `edit(d)`, which changes it in place."""
    with zipfile.ZipFile(fixture) as zin, zipfile.ZipFile(out_pt2, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename.endswith("models/model.json"):
                d = json.loads(data)
                edit(d)
                data = json.dumps(d).encode()
            zout.writestr(info, data)
