#!/usr/bin/env python3
"""Writes a damaged or altered copy of a .pt2 archive, for the importer's
error tests: `break_archive.py KIND IN.pt2 OUT.pt2`.

Only the standard library is used (zipfile, json), so no broken binaries are
committed: each test makes its archive from a good fixture at test time.

Kinds that edit a weight pick `conv1.weight` (as in conv_bn_relu). The
`strided` kind also prints, on stdout, a FileCheck line with the bytes the
importer must produce for the re-strided weight.
"""
import json
import struct
import sys
import zipfile

WEIGHT = "conv1.weight"


def entry(names, suffix):
    """The one archive entry whose name ends in `suffix`."""
    found = [n for n in names if n.endswith(suffix)]
    if len(found) != 1:
        sys.exit(f"break_archive.py: expected one entry ending in {suffix}, got {found}")
    return found[0]


def edit_json(files, suffix, edit):
    name = entry(files, suffix)
    doc = json.loads(files[name])
    edit(doc)
    files[name] = json.dumps(doc).encode()


def weight_meta(files):
    name = entry(files, "data/weights/model_weights_config.json")
    return json.loads(files[name])["config"][WEIGHT]


def set_weight_meta(files, **changes):
    def edit(doc):
        doc["config"][WEIGHT]["tensor_meta"].update(changes)
    edit_json(files, "data/weights/model_weights_config.json", edit)


def first_node(doc, target):
    for node in doc["graph_module"]["graph"]["nodes"]:
        if node["target"] == target:
            return node
    sys.exit(f"break_archive.py: no node with target {target}")


def strided(files):
    """Declares conv1.weight [8, 3, 3, 3] as a channels-last view of its
    storage and prints the bytes the importer must gather for it."""
    meta = weight_meta(files)
    sizes = [s["as_int"] for s in meta["tensor_meta"]["sizes"]]
    n, c, h, w = sizes
    strides = [h * w * c, 1, w * c, c]
    set_weight_meta(files, strides=[{"as_int": s} for s in strides])
    storage = files[entry(files, "data/weights/" + meta["path_name"])]
    out = bytearray()
    for i in range(n):
        for j in range(c):
            for k in range(h):
                for l in range(w):
                    at = (i * strides[0] + j * strides[1] + k * strides[2] + l * strides[3]) * 4
                    out += storage[at:at + 4]
    # The blob starts with its alignment (the importer aligns copies to 64).
    blob = struct.pack("<I", 64) + bytes(out)
    print(f'CHECK: {WEIGHT}: "0x{blob.hex().upper()}"')


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: break_archive.py KIND IN.pt2 OUT.pt2")
    kind, source, target = sys.argv[1:]
    if kind == "not-zip":
        with open(target, "wb") as f:
            f.write(b"this is not a zip archive, just a few bytes of text\n")
        return

    with zipfile.ZipFile(source) as z:
        names = z.namelist()
        files = {n: z.read(n) for n in names}
    compression = zipfile.ZIP_STORED

    if kind == "no-model":
        del files[entry(files, "models/model.json")]
    elif kind == "schema-major":
        edit_json(files, "models/model.json",
                  lambda d: d["schema_version"].update(major=99))
    elif kind == "bad-json":
        name = entry(files, "models/model.json")
        files[name] = files[name][: len(files[name]) // 2]
    elif kind == "bad-field":
        edit_json(files, "models/model.json",
                  lambda d: d["graph_module"]["graph"]["nodes"][0].update(target=5))
    elif kind == "short-weight":
        name = entry(files, "data/weights/" + weight_meta(files)["path_name"])
        files[name] = files[name][: len(files[name]) // 2]
    elif kind == "bad-offset":
        set_weight_meta(files, storage_offset={"as_int": 1000000})
    elif kind == "bad-stride":
        set_weight_meta(files, strides=[{"as_int": 1000}, {"as_int": 9},
                                        {"as_int": 3}, {"as_int": 1}])
    elif kind == "bad-dtype":
        edit_json(files, "models/model.json",
                  lambda d: d["graph_module"]["graph"]["tensor_values"]["x"].update(dtype=99))
    elif kind == "bn-training":
        def edit(d):
            node = first_node(d, "torch.ops.aten.batch_norm.default")
            for arg in node["inputs"]:
                if arg["name"] == "training":
                    arg["arg"] = {"as_bool": True}
        edit_json(files, "models/model.json", edit)
    elif kind == "use-statistic":
        # relu reads output 1 (the saved mean) of the first batch norm.
        def edit(d):
            bn = first_node(d, "torch.ops.aten._native_batch_norm_legit_no_training.default")
            saved = bn["outputs"][1]["as_tensor"]["name"]
            relu = first_node(d, "torch.ops.aten.relu.default")
            relu["inputs"][0]["arg"] = {"as_tensor": {"name": saved}}
        edit_json(files, "models/model.json", edit)
    elif kind == "inplace-input":
        # relu_ applied to the user input x.
        def edit(d):
            relu = first_node(d, "torch.ops.aten.relu.default")
            relu["target"] = "torch.ops.aten.relu_.default"
            relu["inputs"][0]["arg"] = {"as_tensor": {"name": "x"}}
        edit_json(files, "models/model.json", edit)
    elif kind == "random-op":
        # The first ReLU replaced by randn_like: an op that draws random numbers.
        def edit(d):
            relu = first_node(d, "torch.ops.aten.relu.default")
            relu["target"] = "torch.ops.aten.randn_like.default"
        edit_json(files, "models/model.json", edit)
    elif kind == "special-zeta":
        # bad_unsupported_ops's ops that duet imports now as ops it does not:
        # its atan2 nodes as special_zeta (same schema), its logcumsumexp as
        # special_airy_ai.
        renames = {"torch.ops.aten.atan2.default": "torch.ops.aten.special_zeta.default",
                   "torch.ops.aten.logcumsumexp.default": "torch.ops.aten.special_airy_ai.default"}

        def edit(d):
            for node in d["graph_module"]["graph"]["nodes"]:
                node["target"] = renames.get(node["target"], node["target"])
        edit_json(files, "models/model.json", edit)
    elif kind == "unread-random-op":
        # A `rand([])` draw nothing reads, as transformers' LayerDrop leaves
        # in an eval-mode export (the draw is only compared in training).
        def edit(d):
            graph = d["graph_module"]["graph"]
            graph["tensor_values"]["layerdrop_draw"] = {
                "dtype": 7, "sizes": [], "requires_grad": False, "device": {"type": "cpu", "index": None},
                "strides": [], "storage_offset": {"as_int": 0}, "layout": 7}
            draw = {"target": "torch.ops.aten.rand.default",
                    "inputs": [{"name": "size", "arg": {"as_ints": []}, "kind": 1}],
                    "outputs": [{"as_tensor": {"name": "layerdrop_draw"}}], "metadata": {}}
            graph["nodes"].insert(0, draw)
        edit_json(files, "models/model.json", edit)
    elif kind in ("inplace-view", "inplace-expand-view", "inplace-reshape-view"):
        # relu_ applied to a view (or an expand, which has no inverse) of the
        # first convolution's output, which the batch norm after it then
        # reads: a write through a view.
        view_target = {"inplace-view": "torch.ops.aten.view.default",
                       "inplace-expand-view": "torch.ops.aten.expand.default",
                       "inplace-reshape-view": "torch.ops.aten.reshape.default"}[kind]

        def edit(d):
            graph = d["graph_module"]["graph"]
            conv = first_node(d, "torch.ops.aten.conv2d.default")
            out = conv["outputs"][0]["as_tensor"]["name"]
            meta = graph["tensor_values"][out]
            graph["tensor_values"]["conv_view"] = meta
            graph["tensor_values"]["conv_view_relu"] = meta
            sizes = [s["as_int"] for s in meta["sizes"]]
            view = {"target": view_target,
                    "inputs": [{"name": "self", "arg": {"as_tensor": {"name": out}}, "kind": 1},
                               {"name": "size", "arg": {"as_ints": sizes}, "kind": 1}],
                    "outputs": [{"as_tensor": {"name": "conv_view"}}], "metadata": {}}
            relu = {"target": "torch.ops.aten.relu_.default",
                    "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "conv_view"}},
                                "kind": 1}],
                    "outputs": [{"as_tensor": {"name": "conv_view_relu"}}], "metadata": {}}
            at = graph["nodes"].index(conv) + 1
            graph["nodes"][at:at] = [view, relu]
        edit_json(files, "models/model.json", edit)
    elif kind == "buffer-mutation":
        # The signature says the graph writes a new value into a buffer, as
        # a functionalized (ATEN) export of `self.buf.copy_(...)` does.
        def edit(d):
            gm = d["graph_module"]
            value = gm["graph"]["outputs"][0]["as_tensor"]["name"]
            gm["signature"]["output_specs"].insert(0, {"buffer_mutation": {
                "arg": {"name": value}, "buffer_name": "bn1.running_mean"}})
            gm["graph"]["outputs"].insert(0, {"as_tensor": {"name": value}})
        edit_json(files, "models/model.json", edit)
    elif kind == "sequential-name":
        # nn.Sequential names its children 0, 1, ...: "0.weight" is not an
        # MLIR identifier.
        for name in names:
            if name.endswith(".json"):
                files[name] = files[name].replace(b'"conv1.weight"', b'"0.weight"')
    elif kind == "huge-groups":
        # 4 x 2^62 groups overflows int64 in the convolution's channel check.
        def edit(d):
            node = first_node(d, "torch.ops.aten.convolution.default")
            for arg in node["inputs"]:
                if arg["name"] == "groups":
                    arg["arg"] = {"as_int": 4611686018427387904}
        edit_json(files, "models/model.json", edit)
    elif kind == "huge-window":
        # A max-pool window of 2^40 + 1 padded by 2^39: it fits its padded
        # 15x15 input and gives the same 8x8 output (pooling fixture), but
        # each output element would visit 2^80 window positions.
        def edit(d):
            node = first_node(d, "torch.ops.aten.max_pool2d_with_indices.default")
            for arg in node["inputs"]:
                if arg["name"] == "kernel_size":
                    arg["arg"] = {"as_ints": [2**40 + 1, 2**40 + 1]}
                if arg["name"] == "padding":
                    arg["arg"] = {"as_ints": [2**39, 2**39]}
        edit_json(files, "models/model.json", edit)
    elif kind == "huge-upsample":
        # An upsampled H of 2^32 rows: a 618 GB tensor (upsample fixture).
        edit_json(files, "models/model.json",
                  lambda d: d["graph_module"]["graph"]["tensor_values"]["upsample_nearest2d"]
                  ["sizes"][2].update(as_int=4294967296))
    elif kind == "huge-arena":
        # Five outputs of 4294901760 bytes each (just under the 4 GiB tensor
        # limit), all alive at the end: a 20 GiB arena (upsample fixture).
        def edit(d):
            gm = d["graph_module"]
            graph = gm["graph"]
            values = graph["tensor_values"]
            node = first_node(d, "torch.ops.aten.upsample_nearest2d.vec")
            for i in range(2):
                name = f"upsample_copy_{i}"
                copy = json.loads(json.dumps(node))
                copy["name"] = name
                copy["outputs"] = [{"as_tensor": {"name": name}}]
                graph["nodes"].append(copy)
                values[name] = json.loads(json.dumps(values["upsample_nearest2d"]))
                graph["outputs"].append({"as_tensor": {"name": name}})
                gm["signature"]["output_specs"].append(
                    {"user_output": {"arg": {"as_tensor": {"name": name}}}})
            for name, meta in values.items():
                if name != "x":
                    meta["sizes"][2] = {"as_int": 16384}
                    meta["sizes"][3] = {"as_int": 21845}
        edit_json(files, "models/model.json", edit)
    elif kind == "shared-statistic":
        # The second batch norm reads its weight as its running mean too: one
        # constant feeds two operands of the op FoldBatchNorm folds away.
        def edit(d):
            norms = [n for n in d["graph_module"]["graph"]["nodes"]
                     if n["target"] == "torch.ops.aten.batch_norm.default"]
            args = {a["name"]: a for a in norms[1]["inputs"]}
            args["running_mean"]["arg"] = json.loads(json.dumps(args["weight"]["arg"]))
        edit_json(files, "models/model.json", edit)
    elif kind == "stale-range":
        # What ep.run_decompositions() can leave on PyTorch 2.11 (no export
        # reproduced it; docs PLATFORM.md): a range constraint for a symbol
        # that no tensor's shape uses.
        edit_json(files, "models/model.json",
                  lambda d: d.update(range_constraints={"s83": {"min_val": 2, "max_val": None}}))
    elif kind == "huge-chunks":
        # chunk into INT64_MAX pieces: ceil(size / chunks) overflowed as
        # (size + chunks - 1) / chunks (shapes fixture, training IR).
        def edit(d):
            node = first_node(d, "torch.ops.aten.chunk.default")
            for arg in node["inputs"]:
                if arg["name"] == "chunks":
                    arg["arg"] = {"as_int": 9223372036854775807}
        edit_json(files, "models/model.json", edit)
    elif kind == "huge-arange-step":
        # arange(0, 8, step=2^62): the third value overflows int64
        # (transformer_block fixture, ATen IR).
        edit_json(files, "models/model.json",
                  lambda d: first_node(d, "torch.ops.aten.arange.start_step")["inputs"].append(
                      {"name": "step", "arg": {"as_int": 4611686018427387904}, "kind": 1}))
    elif kind == "same-padding-dilation":
        # conv2d(padding="same") with a dilation of 2^62: the total padding,
        # dilation * (kernel - 1), overflows int64.
        def edit(d):
            node = first_node(d, "torch.ops.aten.conv2d.default")
            node["target"] = "torch.ops.aten.conv2d.padding"
            node["inputs"] = [a for a in node["inputs"]
                              if a["name"] not in ("padding", "dilation")]
            node["inputs"] += [
                {"name": "padding", "arg": {"as_string": "same"}, "kind": 1},
                {"name": "dilation", "arg": {"as_ints": [4611686018427387904, 1]}, "kind": 1}]
        edit_json(files, "models/model.json", edit)
    elif kind == "gqa-uneven-heads":
        # Key and value with 3 heads for the query's 8: no whole group of
        # query heads per key head (attention_gqa fixture, training IR).
        def edit(d):
            values = d["graph_module"]["graph"]["tensor_values"]
            for name in ("k", "v"):
                values[name]["sizes"][1] = {"as_int": 3}
        edit_json(files, "models/model.json", edit)
    elif kind in ("vector-norm-ord3", "pow-negative-base", "as-strided-transposing"):
        # One argument of the first node of a composite target changed to a
        # form the importer refuses (edgenext and convnext zoo fixtures).
        op, argument, value = {
            "vector-norm-ord3": ("linalg_vector_norm.default", "ord", {"as_float": 3.0}),
            "pow-negative-base": ("pow.Scalar", "self", {"as_float": -10000.0}),
            "as-strided-transposing": ("as_strided.default", "stride",
                                       {"as_ints": [48, 2, 48, 48]}),
        }[kind]

        def edit(d):
            node = first_node(d, "torch.ops.aten." + op)
            for arg in node["inputs"]:
                if arg["name"] == argument:
                    arg["arg"] = value
        edit_json(files, "models/model.json", edit)
    elif kind == "no-graph-outputs":
        edit_json(files, "models/model.json",
                  lambda d: d["graph_module"]["graph"].update(outputs=[]))
    elif kind == "undefined-graph-output":
        edit_json(files, "models/model.json",
                  lambda d: d["graph_module"]["graph"]["outputs"][0].update(
                      as_tensor={"name": "nothing_defines_this"}))
    elif kind == "strided":
        strided(files)
    elif kind == "deflate":
        compression = zipfile.ZIP_DEFLATED
    elif kind == "inflated-size":
        compression = zipfile.ZIP_DEFLATED
    else:
        sys.exit(f"break_archive.py: unknown kind {kind}")

    with zipfile.ZipFile(target, "w", compression) as z:
        for name in names:
            if name in files:
                z.writestr(name, files[name])
    if kind == "inflated-size":
        claim_inflated_size(target, entry(names, "models/model.json"), 0xFFFFFF00)


def claim_inflated_size(path, name, size):
    """Rewrites the uncompressed size of entry `name`, in its local header and
    in the central directory, to `size`; the data stays as it is."""
    with zipfile.ZipFile(path) as z:
        local = z.getinfo(name).header_offset
    data = bytearray(open(path, "rb").read())
    struct.pack_into("<I", data, local + 22, size)
    at = 0
    while True:
        at = data.find(b"PK\x01\x02", at)
        if at < 0:
            sys.exit(f"break_archive.py: no central directory entry for {name}")
        length = struct.unpack_from("<H", data, at + 28)[0]
        if data[at + 46:at + 46 + length] == name.encode():
            struct.pack_into("<I", data, at + 24, size)
            break
        at += 46
    open(path, "wb").write(bytes(data))


if __name__ == "__main__":
    main()
