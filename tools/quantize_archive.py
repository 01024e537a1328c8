#!/usr/bin/env python3
"""Quantize a real float .pt2 archive by graph surgery, into convert_pt2e's form.

Why it exists
  duet's int8 path needs fixtures, and the real way to make them,
  tools/export_quantized.py, needs torch.export (PyTorch 2.11), which only the GPU
  machine has. This tool needs no torch.export: it takes an archive PyTorch 2.11 wrote
  (test/models/*.pt2, test/zoo/*.aten.pt2, bench/models/mobilenet_v2.pt2), edits its
  serialized graph (models/model.json) and weights, and writes it back with every other
  entry as PyTorch wrote it (same entry order, the 64-byte aligned stored entries, data
  descriptors and zip64 end records of PyTorch's writer: an unchanged archive is
  rewritten byte for byte). When a PyTorch 2.x machine is lent, replace the q_* fixtures
  with tools/export_quantized.py's real exports.

What the surgery writes (XNNPACKQuantizer's static symmetric per-channel config, as
convert_pt2e(fold_quantize=True) leaves the graph)
  - BatchNorm after a conv (its only user) is folded into the conv's weight and bias
    (torch.nn.utils.fusion.fuse_conv_bn_weights); the BN node and its parameters and
    buffers are removed; a conv without bias gets a new float32 bias parameter.
  - conv/linear weights: per-channel (axis 0) symmetric int8 [-127, 127] tensor
    constants (_frozen_paramN), float32 scales (_scale_N) and int64 zero points
    (_zero_point_N, all 0), read through dequantize_per_channel.default just before the
    weight's first user (the conv, linear or the permute of an ATEN linear). Biases stay
    float32 parameters. The formula is export_quantized.quantize_weight's.
  - activations: per-tensor affine int8 [-128, 127]: quantize_per_tensor.default(x, scale,
    zp, -128, 127, torch.int8) straight followed by one dequantize_per_tensor.default per
    user (DuplicateDQPass). Quantized: the activation input of every conv/linear, both
    inputs of a tensor+tensor add, the input of max_pool2d and mean/adaptive_avg_pool2d;
    the output of conv/linear/add (after a ReLU/ReLU6 that is its only user: fused) and
    of mean/adaptive_avg_pool2d (own qparams), of max_pool2d and of a view/flatten of a
    quantized value (the input's qparams), and every graph output (own qparams) unless a
    fixture keeps it float. Other ops (hardswish, mul, BatchNorm not after a conv,
    avg_pool2d, dropout...) run in float between a dq and a q. qparams are
    export_quantized's MinMax formula on the float graph (after the fold), interpreted
    on export_quantized's seeded calibration batches (not the test inputs). The ATEN
    flavour takes the TRAINING flavour's qparams point by point.
  - .tensor overloads (q_tensor_overloads): scale and zero point are 0-d float32 / int64
    tensor constants, one pair per quantization point.

Float fixtures no 2.11 export exists of (FLOAT_FIXTURES: conv3d, the base of q_conv3d)
  are built the same way: export_fixtures.py's builder of that name gives the model, its
  seeded weights and input; a real archive's nodes are replaced by the model's, written as
  2.11 writes such nodes (TRAINING conv3d.default with its trailing default arguments left
  out, as the conv2d nodes are; ATEN convolution.default with all nine), and the
  signature, tensor values, module call graph, parameters and sample inputs rewritten.
  They are written first (q_conv3d reads test/models/conv3d) and replaced, like the q_*
  fixtures, by export_fixtures.py's real export when a PyTorch 2.x machine is lent.

The reference outputs come from PyTorch 1.13 (this machine) interpreting the edited graph
node by node with torch ops, the quantized_decomposed ops being export_quantized's
(PyTorch's torch/ao/quantization/fx/_decomposed.py arithmetic). It reads the archive it
wrote back, so what is checked is what is saved.

    /usr/bin/python3 tools/quantize_archive.py [--only q_pool,bench] [--out DIR]
        [--bench-out DIR] [--skip-bench]

It writes only the fixtures export_quantized.py has no builder of (q_mobilenet_block,
q_pool, conv3d, bench/models/q_mobilenet_v2); the others in test/models are its real
exports, and naming one is an error.
"""

import argparse
import copy
import io
import json
import os
import struct
import sys
import zipfile
import zlib

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_quantized as eq  # noqa: E402  (imports export_fixtures as eq.fx)

fx = eq.fx
GENERATOR = "tools/quantize_archive.py"
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QD_PREFIX = "torch.ops.quantized_decomposed."

# torch.export's serialized ScalarType codes (torch/_export/serde/schema.py).
SCALAR_TYPES = {1: torch.uint8, 2: torch.int8, 3: torch.int16, 4: torch.int32, 5: torch.int64,
                6: torch.float16, 7: torch.float32, 8: torch.float64, 12: torch.bool,
                13: torch.bfloat16}
CODES = {v: k for k, v in SCALAR_TYPES.items()}
NUMPY = {torch.uint8: np.uint8, torch.int8: np.int8, torch.int16: np.int16,
         torch.int32: np.int32, torch.int64: np.int64, torch.float16: np.float16,
         torch.float32: np.float32, torch.float64: np.float64, torch.bool: np.bool_}

# ---------------------------------------------------------------------------
# The archive: PyTorch's zip layout, read and written.
# ---------------------------------------------------------------------------

ALIGN = 64  # PyTorchStreamWriter's kFieldAlignment


def write_zip(path, entries):
    """entries [(name, bytes)] written to path (a file name or a binary stream) as
    PyTorch's miniz writer does: stored, each entry's data 64-byte aligned by an "FB"
    extra field of 'Z's, general flag 0x808 with a data descriptor (0x800 and none for an
    empty entry), zero times, version 0, then the central directory, a zip64 end record
    and locator, and the end record."""
    out = bytearray()
    central = []
    for name, data in entries:
        nb = name.encode()
        offset = len(out)
        pad = (-(offset + 30 + len(nb) + 4)) % ALIGN
        extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
        flags = 0x0808 if data else 0x0800
        out += struct.pack("<IHHHHHIIIHH", 0x04034b50, 0, flags, 0, 0, 0, 0, 0, 0, len(nb),
                           len(extra)) + nb + extra
        crc = zlib.crc32(data) & 0xffffffff
        out += data
        if data:
            out += struct.pack("<IIII", 0x08074b50, crc, len(data), len(data))
        central.append((nb, crc, len(data), offset, flags))
    cd = len(out)
    for nb, crc, size, offset, flags in central:
        out += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 0, 0, flags, 0, 0, 0, crc, size,
                           size, len(nb), 0, 0, 0, 0, 0, offset) + nb
    z64 = len(out)
    out += struct.pack("<IQHHIIQQQQ", 0x06064b50, 44, 0x031e, 0x2d, 0, 0, len(central),
                       len(central), z64 - cd, cd)
    out += struct.pack("<IIQI", 0x07064b50, 0, z64, 1)
    out += struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, len(central), len(central), z64 - cd,
                       cd, 0)
    if hasattr(path, "write"):
        path.write(out)
        return
    with open(path, "wb") as f:
        f.write(out)


def contiguous_strides(sizes):
    strides, step = [], 1
    for n in reversed(sizes):
        strides.insert(0, step)
        step *= max(n, 1)
    return strides


def tensor_meta(sizes, dtype, requires_grad=False):
    """A serialized TensorMeta as 2.11 writes it (cpu, strided, contiguous)."""
    return {"dtype": CODES[dtype], "sizes": [{"as_int": int(n)} for n in sizes],
            "requires_grad": requires_grad, "device": {"type": "cpu", "index": None},
            "strides": [{"as_int": s} for s in contiguous_strides(list(sizes))],
            "storage_offset": {"as_int": 0}, "layout": 7}


def meta_sizes(meta):
    return [d["as_int"] for d in meta["sizes"]]


class Archive:
    """One .pt2: its entries (in order), model.json and the weights/constants configs."""

    WEIGHTS = "data/weights/model_weights_config.json"
    CONSTANTS = "data/constants/model_constants_config.json"

    def __init__(self, path):
        self.path = path
        with zipfile.ZipFile(path) as z:
            self.entries = [(i.filename, z.read(i.filename)) for i in z.infolist()]
        self.prefix = self.entries[0][0].split("/", 1)[0]
        data = dict(self.entries)
        self.model = json.loads(data[f"{self.prefix}/models/model.json"])
        self.configs = {}
        for key in (self.WEIGHTS, self.CONSTANTS):
            self.configs[key] = json.loads(data[f"{self.prefix}/{key}"])["config"]
        self.data = data

    @property
    def graph(self):
        return self.model["graph_module"]["graph"]

    @property
    def signature(self):
        return self.model["graph_module"]["signature"]

    def flavour(self):
        return self.model["verifiers"][0]

    def load(self, state_name):
        """The stored tensor of a parameter, buffer or constant."""
        for key, folder in ((self.WEIGHTS, "data/weights"), (self.CONSTANTS, "data/constants")):
            item = self.configs[key].get(state_name)
            if item is None:
                continue
            assert not item.get("use_pickle"), state_name
            meta = item["tensor_meta"]
            dtype = SCALAR_TYPES[meta["dtype"]]
            raw = self.data[f"{self.prefix}/{folder}/{item['path_name']}"]
            flat = torch.from_numpy(np.frombuffer(raw, dtype=NUMPY[dtype]).copy())
            return torch.as_strided(flat, meta_sizes(meta), [s["as_int"] for s in meta["strides"]],
                                    meta["storage_offset"]["as_int"]).clone()
        raise KeyError(f"{self.path}: '{state_name}' is in neither config")

    def save(self, path, state):
        """Writes the archive with the signature's parameters/buffers/constants taken from
        state {state name: tensor}: weights renumbered weight_0.. and constants tensor_0..
        in signature order, every other entry as read (the prefix renamed to the file's)."""
        prefix = os.path.basename(path)[:-len(".pt2")] if path.endswith(".pt2") else \
            os.path.basename(path)
        weights, constants, wfiles, cfiles = {}, {}, [], []
        for spec in self.signature["input_specs"]:
            (kind, body), = spec.items()
            if kind not in ("parameter", "buffer", "tensor_constant"):
                continue
            name = body[{"parameter": "parameter_name", "buffer": "buffer_name",
                         "tensor_constant": "tensor_constant_name"}[kind]]
            t = state[name].contiguous()
            persistent = kind == "buffer" and body.get("persistent", True)
            to_weights = kind == "parameter" or persistent
            files = wfiles if to_weights else cfiles
            file = f"weight_{len(wfiles)}" if to_weights else f"tensor_{len(cfiles)}"
            item = {"path_name": file, "is_param": kind == "parameter", "use_pickle": False,
                    "tensor_meta": tensor_meta(t.shape, t.dtype, kind == "parameter")}
            (weights if to_weights else constants)[name] = item
            files.append((file, t.numpy().tobytes() if t.dtype != torch.bfloat16 else
                          t.view(torch.int16).numpy().tobytes()))
        entries = []
        done = False
        for name, data in self.entries:
            rel = name.split("/", 1)[1]
            if rel.startswith("data/weights/") or rel.startswith("data/constants/"):
                if not done:
                    entries += [(f"data/weights/{f}", b) for f, b in wfiles]
                    entries.append((self.WEIGHTS, json.dumps({"config": weights}).encode()))
                    entries += [(f"data/constants/{f}", b) for f, b in cfiles]
                    entries.append((self.CONSTANTS, json.dumps({"config": constants}).encode()))
                    done = True
                continue
            if rel == "models/model.json":
                data = json.dumps(self.model).encode()
            entries.append((rel, data))
        write_zip(path, [(f"{prefix}/{rel}", data) for rel, data in entries])


# ---------------------------------------------------------------------------
# Serialized arguments and a small interpreter over the graph JSON.
# ---------------------------------------------------------------------------


def arg_names(arg):
    """The tensor names one serialized argument refers to."""
    (kind, value), = arg.items()
    if kind == "as_tensor":
        return [value["name"]]
    if kind in ("as_tensors", "as_optional_tensors"):
        return [v["name"] if "name" in v else v.get("as_tensor", {}).get("name")
                for v in value if isinstance(v, dict) and ("name" in v or "as_tensor" in v)]
    return []


def rename_arg(arg, old, new):
    (kind, value), = arg.items()
    if kind == "as_tensor" and value["name"] == old:
        value["name"] = new
    elif kind in ("as_tensors", "as_optional_tensors"):
        for v in value:
            if v.get("name") == old:
                v["name"] = new
            elif v.get("as_tensor", {}).get("name") == old:
                v["as_tensor"]["name"] = new


def output_names(node):
    names = []
    for out in node["outputs"]:
        names += arg_names(out) if "as_tensor" in out or "as_tensors" in out else [None]
    return names


def decode(arg, env):
    (kind, value), = arg.items()
    if kind == "as_tensor":
        return env[value["name"]]
    if kind == "as_tensors":
        return [env[v["name"]] for v in value]
    if kind == "as_none":
        return None
    if kind in ("as_int", "as_float", "as_bool", "as_string", "as_ints", "as_floats",
                "as_bools", "as_strings"):
        return value
    if kind == "as_scalar_type":
        return SCALAR_TYPES[value]
    if kind == "as_device":
        return torch.device(value["type"] if value.get("index") is None
                            else f"{value['type']}:{value['index']}")
    if kind == "as_layout":
        return torch.strided
    raise NotImplementedError(f"argument kind {kind}")


def _batch_norm_no_training(input, weight, bias, running_mean, running_var, momentum, eps):
    out = F.batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
    empty = torch.empty(0)
    return out, empty, empty


def _dropout(input, p, train):
    if train:
        raise NotImplementedError("dropout with train=True")
    return input


def _op(name):
    packet, overload = name.rsplit(".", 1)
    return getattr(getattr(torch.ops.aten, packet), overload)


# Every target the interpreter runs: ATen ops whose PyTorch 1.13 schema matches 2.11's run
# through torch.ops.aten; the rest as written here. In-place forms run out of place (their
# input is a temporary nothing else reads).
ATEN_DIRECT = ["convolution.default", "conv1d.default", "conv2d.default", "conv3d.default",
               "linear.default",
               "addmm.default", "mm.default", "t.default", "permute.default", "view.default",
               "reshape.default", "_unsafe_view.default", "flatten.using_ints",
               "clone.default", "batch_norm.default", "relu.default", "relu6.default",
               "hardtanh.default", "hardswish.default", "hardsigmoid.default", "clamp.default",
               "add.Tensor", "mul.Tensor", "div.Tensor", "sub.Tensor", "mean.dim",
               "adaptive_avg_pool2d.default", "_adaptive_avg_pool2d.default",
               "max_pool2d.default", "max_pool2d_with_indices.default", "avg_pool2d.default",
               "sigmoid.default", "unsqueeze.default", "squeeze.dim"]
IN_PLACE = {"relu_.default": "relu.default", "hardtanh_.default": "hardtanh.default",
            "hardswish_.default": "hardswish.default", "add_.Tensor": "add.Tensor",
            "mul_.Tensor": "mul.Tensor", "hardsigmoid_.default": "hardsigmoid.default"}


def kernel(target):
    if target.startswith(QD_PREFIX):
        packet, overload = target[len(QD_PREFIX):].split(".")
        return getattr(getattr(eq.QD, packet), overload)
    if not target.startswith("torch.ops.aten."):
        raise NotImplementedError(f"the interpreter does not implement {target}")
    name = target[len("torch.ops.aten."):]
    name = IN_PLACE.get(name, name)
    if name == "_native_batch_norm_legit_no_training.default":
        return _batch_norm_no_training
    if name in ("dropout.default", "dropout_.default"):
        return _dropout
    if name in ATEN_DIRECT:
        return _op(name)
    raise NotImplementedError(f"the interpreter does not implement {target}")


def interpret(archive, state, inputs, observe=None):
    """Runs the graph on inputs (user inputs in order); state {state name: tensor}.
    observe(name, tensor) sees every float tensor computed or given. Returns the user
    outputs in order."""
    graph, signature = archive.graph, archive.signature
    env = {}
    user = iter(inputs)
    for spec, inp in zip(signature["input_specs"], graph["inputs"]):
        (kind, body), = spec.items()
        name = arg_names(inp)[0]
        if kind == "user_input":
            env[name] = next(user)
        else:
            env[name] = state[body[{"parameter": "parameter_name", "buffer": "buffer_name",
                                    "tensor_constant": "tensor_constant_name"}[kind]]]
        if observe and kind == "user_input":
            observe(name, env[name])
    for node in graph["nodes"]:
        fn = kernel(node["target"])
        args, kwargs = [], {}
        for a in node["inputs"]:
            value = decode(a["arg"], env)
            if a.get("kind", 1) == 2:
                kwargs[a["name"]] = value
            else:
                args.append(value)
        try:
            result = fn(*args, **kwargs)
        except Exception as error:
            raise RuntimeError(f"{node['name']} ({node['target']}): {error}") from error
        names = output_names(node)
        results = list(result) if isinstance(result, (tuple, list)) else [result]
        if len(names) == 1 and len(results) != 1:
            results = [result]
        for name, value in zip(names, results):
            if name is not None:
                env[name] = value
                if observe and value.is_floating_point():
                    observe(name, value)
    outs = []
    for spec in signature["output_specs"]:
        (kind, body), = spec.items()
        if kind != "user_output":
            raise NotImplementedError(f"output kind {kind}")
        outs.append(env[arg_names(body["arg"])[0]])
    return outs


# ---------------------------------------------------------------------------
# Graph surgery.
# ---------------------------------------------------------------------------

STATE_KEY = {"parameter": "parameter_name", "buffer": "buffer_name",
             "tensor_constant": "tensor_constant_name"}
CONVS = {"torch.ops.aten.convolution.default", "torch.ops.aten.conv2d.default",
         "torch.ops.aten.conv1d.default", "torch.ops.aten.conv3d.default"}
BATCH_NORMS = {"torch.ops.aten.batch_norm.default",
               "torch.ops.aten._native_batch_norm_legit_no_training.default"}
RELUS = {"torch.ops.aten.relu.default", "torch.ops.aten.relu_.default",
         "torch.ops.aten.relu6.default"}
HARDTANHS = {"torch.ops.aten.hardtanh.default", "torch.ops.aten.hardtanh_.default"}
ADDS = {"torch.ops.aten.add.Tensor", "torch.ops.aten.add_.Tensor"}
MAX_POOLS = {"torch.ops.aten.max_pool2d.default", "torch.ops.aten.max_pool2d_with_indices.default"}
MEANS = {"torch.ops.aten.mean.dim", "torch.ops.aten.adaptive_avg_pool2d.default",
         "torch.ops.aten._adaptive_avg_pool2d.default"}
VIEWS = {"torch.ops.aten.view.default", "torch.ops.aten.reshape.default",
         "torch.ops.aten._unsafe_view.default", "torch.ops.aten.flatten.using_ints"}
MATMULS = {"torch.ops.aten.addmm.default", "torch.ops.aten.mm.default"}


def named(node, name):
    for a in node["inputs"]:
        if a["name"] == name:
            return a
    return None


def positional(name, arg):
    return {"name": name, "arg": arg, "kind": 1}


class Surgery:
    """Edits one archive's graph in place; state holds its tensors by state name."""

    def __init__(self, archive):
        self.a = archive
        self.state = {}
        for spec in archive.signature["input_specs"]:
            (kind, body), = spec.items()
            if kind in STATE_KEY:
                self.state[body[STATE_KEY[kind]]] = archive.load(body[STATE_KEY[kind]])
        self.counters = {}
        self.constant_count = 0

    # -- lookups ------------------------------------------------------------
    @property
    def nodes(self):
        return self.a.graph["nodes"]

    @property
    def tv(self):
        return self.a.graph["tensor_values"]

    def placeholders(self):
        """placeholder name -> (kind, state name or None)."""
        out = {}
        for spec, inp in zip(self.a.signature["input_specs"], self.a.graph["inputs"]):
            (kind, body), = spec.items()
            out[arg_names(inp)[0]] = (kind, body.get(STATE_KEY.get(kind, ""), None))
        return out

    def producer(self, name):
        for node in self.nodes:
            if name in output_names(node):
                return node
        return None

    def users(self, name):
        return [n for n in self.nodes if any(name in arg_names(a["arg"]) for a in n["inputs"])]

    def graph_output_uses(self, name):
        return sum(name in arg_names(o) for o in self.a.graph["outputs"])

    def only_user(self, name):
        users = self.users(name)
        if len(users) == 1 and not self.graph_output_uses(name):
            return users[0]
        return None

    def fresh(self, base):
        n = self.counters.get(base, 0)
        self.counters[base] = n + 1
        name = base if n == 0 else f"{base}_{n}"
        while name in self.tv:
            n = self.counters[base]
            self.counters[base] = n + 1
            name = f"{base}_{n}"
        return name

    def rename_uses(self, old, new, only=None):
        for node in self.nodes if only is None else only:
            for a in node["inputs"]:
                rename_arg(a["arg"], old, new)
        if only is None:
            for out in self.a.graph["outputs"]:
                rename_arg(out, old, new)
            for spec in self.a.signature["output_specs"]:
                (_, body), = spec.items()
                rename_arg(body["arg"], old, new)

    def add_state(self, kind, state_name, placeholder, tensor):
        """A new parameter or tensor constant (signature, graph input, meta, state)."""
        specs, inputs = self.a.signature["input_specs"], self.a.graph["inputs"]
        order = {"parameter": 0, "buffer": 1, "tensor_constant": 2, "user_input": 3}
        at = len(specs)
        for i, spec in enumerate(specs):
            if order.get(next(iter(spec)), 9) > order[kind]:
                at = i
                break
        body = {"arg": {"name": placeholder}, STATE_KEY[kind]: state_name}
        if kind == "buffer":
            body["persistent"] = True
        specs.insert(at, {kind: body})
        inputs.insert(at, {"as_tensor": {"name": placeholder}})
        self.tv[placeholder] = tensor_meta(tensor.shape, tensor.dtype, kind == "parameter")
        self.state[state_name] = tensor

    def remove_placeholder(self, placeholder):
        specs, inputs = self.a.signature["input_specs"], self.a.graph["inputs"]
        for i, inp in enumerate(inputs):
            if arg_names(inp) == [placeholder]:
                (kind, body), = specs[i].items()
                self.state.pop(body.get(STATE_KEY.get(kind, ""), None), None)
                del specs[i], inputs[i]
                self.tv.pop(placeholder, None)
                return
        raise KeyError(placeholder)

    def new_constant(self, stem, tensor):
        """_frozen_paramN / _scale_N / _zero_point_N as convert_pt2e names them, lifted by
        torch.export as tensor constants c_<name>; returns the placeholder name."""
        name = f"{stem}{self.counters.setdefault('const:' + stem, 0)}"
        self.counters["const:" + stem] += 1
        self.add_state("tensor_constant", name, "c_" + name, tensor)
        return "c_" + name

    def insert_node(self, index, target, inputs, out_name, meta):
        node = {"target": target, "inputs": inputs,
                "outputs": [{"as_tensor": {"name": out_name}}],
                "metadata": {}, "is_hop_single_tensor_return": None, "name": out_name}
        self.nodes.insert(index, node)
        self.tv[out_name] = meta
        return node

    # -- 1. BatchNorm folding ------------------------------------------------
    def fold_batch_norms(self):
        ph = self.placeholders()
        folded = 0
        for bn in [n for n in self.nodes if n["target"] in BATCH_NORMS]:
            src = arg_names(named(bn, "input")["arg"])[0]
            conv = self.producer(src)
            if conv is None or conv["target"] not in CONVS or self.only_user(src) is not bn:
                continue
            if conv["target"] == "torch.ops.aten.convolution.default" and \
                    named(conv, "transposed")["arg"]["as_bool"]:
                continue
            state = lambda arg: ph[arg_names(named(bn, arg)["arg"])[0]][1]  # noqa: E731
            eps = named(bn, "eps")["arg"]["as_float"]
            w_ph = arg_names(named(conv, "weight")["arg"])[0]
            bias_arg = named(conv, "bias")
            b_ph = arg_names(bias_arg["arg"])[0] if bias_arg and "as_tensor" in bias_arg["arg"] \
                else None
            w_name = ph[w_ph][1]
            w = self.state[w_name]
            b = self.state[ph[b_ph][1]] if b_ph else None
            fw, fb = torch.nn.utils.fusion.fuse_conv_bn_weights(
                w, b, self.state[state("running_mean")], self.state[state("running_var")], eps,
                self.state[state("weight")], self.state[state("bias")])
            self.state[w_name] = fw.detach().to(torch.float32)
            if b_ph:
                self.state[ph[b_ph][1]] = fb.detach().to(torch.float32)
            else:
                bias_name = w_name[:-len("weight")] + "bias" if w_name.endswith("weight") \
                    else w_name + "_bias"
                placeholder = "p_" + bias_name.replace(".", "_")
                self.add_state("parameter", bias_name, placeholder, fb.detach().float())
                arg = {"name": "bias", "arg": {"as_tensor": {"name": placeholder}}, "kind": 1}
                if bias_arg:
                    bias_arg["arg"] = arg["arg"]
                else:
                    conv["inputs"].insert(2, arg)
            # Remove the BN: its users read the conv's output; its state goes.
            outs = output_names(bn)
            self.rename_uses(outs[0], src)
            for out in outs:
                self.tv.pop(out, None)
            self.nodes.remove(bn)
            prefixes = set()
            for arg in ("weight", "bias", "running_mean", "running_var"):
                a = named(bn, arg)
                if a and "as_tensor" in a["arg"]:
                    p = arg_names(a["arg"])[0]
                    prefixes.add(ph[p][1].rsplit(".", 1)[0] + ".")
                    if not self.users(p):
                        self.remove_placeholder(p)
            for p, (kind, state_name) in list(self.placeholders().items()):
                if kind == "buffer" and state_name.endswith("num_batches_tracked") and \
                        state_name.rsplit(".", 1)[0] + "." in prefixes and not self.users(p):
                    self.remove_placeholder(p)
            ph = self.placeholders()
            folded += 1
        return folded

    # -- 2. what to quantize -------------------------------------------------
    def fused_output(self, name):
        """name, or the ReLU/ReLU6 that is its only user."""
        user = self.only_user(name)
        if user is None:
            return name
        if user["target"] in RELUS:
            return output_names(user)[0]
        if user["target"] in HARDTANHS:
            bounds = [named(user, "min_val"), named(user, "max_val")]
            if None not in bounds and [decode(b["arg"], {}) for b in bounds] == [0, 6]:
                return output_names(user)[0]
        return name

    def plan(self, float_outputs=()):
        """(points, weights): points is an ordered list of (tensor, own-or-source tensor);
        weights the (compute node, weight placeholder) pairs to quantize."""
        ph = self.placeholders()
        points = {}  # tensor -> None (own qparams) or the tensor whose qparams it shares
        order = []
        keep_float = set(float_outputs)

        def need(t):
            if t not in points:
                points[t] = None
                order.append(t)

        def mark(t, shared=None):
            if t in keep_float:
                return
            if t not in points:
                points[t] = shared
                order.append(t)

        in_group = set()
        weights = []
        for node in self.nodes:
            target = node["target"]
            if node["name"] in in_group:
                continue
            out = output_names(node)[0] if output_names(node) else None
            if target in CONVS or target == "torch.ops.aten.linear.default":
                w = arg_names(named(node, "weight")["arg"])[0]
                if ph.get(w, ("",))[0] != "parameter":
                    continue
                need(arg_names(named(node, "input")["arg"])[0])
                weights.append((node, w))
                mark(self.fused_output(out))
            elif target in MATMULS:
                w_src = arg_names(named(node, "mat2")["arg"])[0]
                perm = self.producer(w_src)
                if perm is None or perm["target"] not in ("torch.ops.aten.permute.default",
                                                          "torch.ops.aten.t.default"):
                    continue
                w = arg_names(perm["inputs"][0]["arg"])[0]
                if ph.get(w, ("",))[0] != "parameter":
                    continue
                act = arg_names(named(node, "mat1")["arg"])[0]
                after = self.only_user(out)
                v_in = self.producer(act)
                if after is not None and after["target"] in VIEWS and v_in is not None and \
                        v_in["target"] in VIEWS:
                    # linear on an N-D input, decomposed: view -> addmm -> view
                    in_group.update({after["name"], v_in["name"]})
                    act = arg_names(v_in["inputs"][0]["arg"])[0]
                    out = output_names(after)[0]
                need(act)
                weights.append((perm, w))
                mark(self.fused_output(out))
            elif target in ADDS:
                operands = [named(node, "self"), named(node, "other")]
                if all(o and "as_tensor" in o["arg"] for o in operands):
                    for o in operands:
                        need(arg_names(o["arg"])[0])
                    mark(self.fused_output(out))
            elif target in MAX_POOLS:
                src = arg_names(node["inputs"][0]["arg"])[0]
                need(src)
                mark(out, src)
            elif target in MEANS:
                need(arg_names(node["inputs"][0]["arg"])[0])
                mark(out)
            elif target in VIEWS:
                src = arg_names(node["inputs"][0]["arg"])[0]
                if src in points:
                    mark(out, src)
        for o in self.a.graph["outputs"]:
            for t in arg_names(o):
                mark(t)
        # shared points take the qparams of the point they share with, transitively
        return [(t, points[t]) for t in order], weights

    # -- 3. the edit ---------------------------------------------------------
    def quantize_weights(self, weights):
        ph = self.placeholders()
        for node, w in weights:
            kind, state_name = ph[w]
            q, scale, zp = eq.quantize_weight(self.state[state_name])
            cq = self.new_constant("_frozen_param", q)
            cs = self.new_constant("_scale_", scale)
            cz = self.new_constant("_zero_point_", zp)
            out = self.fresh("dequantize_per_channel_default")
            idx = self.nodes.index(node)
            self.insert_node(idx, QD_PREFIX + "dequantize_per_channel.default", [
                positional("input", {"as_tensor": {"name": cq}}),
                positional("scales", {"as_tensor": {"name": cs}}),
                positional("zero_points", {"as_tensor": {"name": cz}}),
                positional("axis", {"as_int": 0}),
                positional("quant_min", {"as_int": eq.WQMIN}),
                positional("quant_max", {"as_int": eq.WQMAX}),
                positional("dtype", {"as_scalar_type": CODES[torch.int8]})],
                out, tensor_meta(q.shape, torch.float32))
            self.rename_uses(w, out, only=[node])
            if not self.users(w):
                self.remove_placeholder(w)

    def insert_qdq(self, points, qparams, tensor_overloads=False):
        """points [(tensor, shared)], qparams {tensor: (scale, zp)}: after each tensor's
        producer, q then one dq per user (graph outputs included)."""
        if tensor_overloads:
            pairs = {}
        for t, _ in points:
            scale, zp = qparams[t]
            users = self.users(t)
            n_out = self.graph_output_uses(t)
            prod = self.producer(t)
            idx = self.nodes.index(prod) + 1 if prod is not None else 0
            meta = self.tv[t]
            if tensor_overloads:
                if (scale, zp) not in pairs:
                    pairs[(scale, zp)] = (
                        self.new_constant("_scale_", torch.tensor(scale, dtype=torch.float32)),
                        self.new_constant("_zero_point_", torch.tensor(zp, dtype=torch.int64)))
                s_arg, z_arg = ({"as_tensor": {"name": n}} for n in pairs[(scale, zp)])
                overload = "tensor"
            else:
                s_arg, z_arg = {"as_float": scale}, {"as_int": zp}
                overload = "default"
            common = [positional("scale", s_arg), positional("zero_point", z_arg),
                      positional("quant_min", {"as_int": eq.QMIN}),
                      positional("quant_max", {"as_int": eq.QMAX}),
                      positional("dtype", {"as_scalar_type": CODES[torch.int8]})]
            q = self.fresh(f"quantize_per_tensor_{overload}")
            self.insert_node(idx, f"{QD_PREFIX}quantize_per_tensor.{overload}",
                             [positional("input", {"as_tensor": {"name": t}})] + common, q,
                             dict(copy.deepcopy(meta), dtype=CODES[torch.int8],
                                  requires_grad=False))
            idx += 1
            consumers = [(u, None) for u in users] + [(None, i) for i in range(n_out)]
            for user, _ in consumers:
                dq = self.fresh(f"dequantize_per_tensor_{overload}")
                self.insert_node(idx, f"{QD_PREFIX}dequantize_per_tensor.{overload}",
                                 [positional("input", {"as_tensor": {"name": q}})]
                                 + copy.deepcopy(common), dq,
                                 dict(copy.deepcopy(meta), dtype=CODES[torch.float32],
                                      requires_grad=False))
                idx += 1
                if user is not None:
                    self.rename_uses(t, dq, only=[user])
                else:
                    self.replace_one_output(t, dq)

    def replace_one_output(self, old, new):
        for o, spec in zip(self.a.graph["outputs"], self.a.signature["output_specs"]):
            if arg_names(o) == [old]:
                rename_arg(o, old, new)
                (_, body), = spec.items()
                rename_arg(body["arg"], old, new)
                return
        raise KeyError(old)


# ---------------------------------------------------------------------------
# Fixture-specific edits before quantization.
# ---------------------------------------------------------------------------


def view_linear_input_8d(s, lead8):
    """q_linear_8d: the linear's input is viewed to 8-D (lead8 + [K]) first, its output
    stays 8-D and is viewed back to the old shape for the rest of the graph."""
    if s.a.flavour() == "TRAINING":
        lin = next(n for n in s.nodes if n["target"] == "torch.ops.aten.linear.default")
        src = arg_names(named(lin, "input")["arg"])[0]
        out = output_names(lin)[0]
        first, last = lin, lin
    else:
        mm = next(n for n in s.nodes if n["target"] in MATMULS)
        v_in = s.producer(arg_names(named(mm, "mat1")["arg"])[0])
        v_out = s.only_user(output_names(mm)[0])
        assert v_in["target"] in VIEWS and v_out["target"] in VIEWS
        src = arg_names(v_in["inputs"][0]["arg"])[0]
        out = output_names(v_out)[0]
        first, last = v_in, v_out
    in_sizes, out_sizes = meta_sizes(s.tv[src]), meta_sizes(s.tv[out])
    k, n = in_sizes[-1], out_sizes[-1]
    assert int(np.prod(lead8)) == int(np.prod(in_sizes[:-1])) and len(lead8) == 7
    x8 = s.fresh("view")
    s.insert_node(s.nodes.index(first), "torch.ops.aten.view.default", [
        positional("self", {"as_tensor": {"name": src}}),
        positional("size", {"as_ints": list(lead8) + [k]})], x8,
        tensor_meta(list(lead8) + [k], torch.float32))
    s.rename_uses(src, x8, only=[first])
    if last is not first or s.a.flavour() != "TRAINING":
        named(last, "size")["arg"] = {"as_ints": list(lead8) + [n]}
    users = s.users(out)
    n_out = s.graph_output_uses(out)
    s.tv[out] = tensor_meta(list(lead8) + [n], torch.float32)
    back = s.fresh("view")
    s.insert_node(s.nodes.index(last) + 1, "torch.ops.aten.view.default", [
        positional("self", {"as_tensor": {"name": out}}),
        positional("size", {"as_ints": out_sizes})], back,
        tensor_meta(out_sizes, torch.float32))
    s.rename_uses(out, back, only=users)
    for _ in range(n_out):
        s.replace_one_output(out, back)


def last_output_float(s):
    """q_conv_float_out: the graph's (last) output stays float."""
    return [arg_names(s.a.graph["outputs"][-1])[0]]


# ---------------------------------------------------------------------------
# Float fixtures that no 2.11 export exists of, built by surgery on a real archive.
# ---------------------------------------------------------------------------


def sample_inputs_pt(old, inputs):
    """data/sample_inputs/model.pt (torch.save of ((x,), {}), PyTorch's zip layout) with
    its one float32 tensor replaced: the pickle's storage size, sizes and strides
    rewritten in place, the other records kept."""
    (x,) = inputs
    with zipfile.ZipFile(io.BytesIO(old)) as z:
        entries = [(i.filename, z.read(i.filename)) for i in z.infolist()]
    records = dict(entries)
    prefix = entries[0][0].split("/", 1)[0]
    pkl = records[f"{prefix}/data.pkl"]
    storage = b"X\x03\x00\x00\x00cpuq\x04"
    at = pkl.index(storage) + len(storage)
    size_end = at + {b"K": 2, b"M": 3, b"J": 5}[pkl[at:at + 1]]
    # ... storage size, t q5 Q K0 ( sizes t q6 ( strides t q7 ...
    head = pkl[at:].index(b"Q\x4b\x00(") + at + 4
    t1 = pkl.index(b"tq\x06(", head)
    t2 = pkl.index(b"tq\x07", t1 + 4)

    def ints(values):
        out = b""
        for v in values:
            out += b"K" + bytes([v]) if v < 256 else b"M" + struct.pack("<H", v) \
                if v < 65536 else b"J" + struct.pack("<i", v)
        return out

    assert x.dtype == torch.float32 and b"torch\nFloatStorage" in pkl
    pkl = (pkl[:at] + ints([x.numel()]) + pkl[size_end:head] + ints(x.shape) + pkl[t1:t1 + 4]
           + ints(contiguous_strides(list(x.shape))) + pkl[t2:])
    records[f"{prefix}/data.pkl"] = pkl
    records[f"{prefix}/data/0"] = x.contiguous().numpy().tobytes()
    buffer = io.BytesIO()
    write_zip(buffer, [(n, records[n]) for n, _ in entries])
    return buffer.getvalue()


def conv_node(base_node, flavour, name, x, w, b, stride, padding, dilation, groups):
    """A conv3d node as 2.11 writes one: TRAINING aten.conv3d.default with the trailing
    arguments that equal their defaults left out (as the conv2d nodes are), ATEN
    aten.convolution.default with all nine. Metadata: the base conv2d node's, renamed
    for a Conv3d module, without the stack trace (no such source line exists)."""
    tensor = lambda n: {"as_tensor": {"name": n}}  # noqa: E731
    args = [("input", tensor(x)), ("weight", tensor(w)),
            ("bias", tensor(b) if b else {"as_none": True}),
            ("stride", {"as_ints": list(stride)}), ("padding", {"as_ints": list(padding)}),
            ("dilation", {"as_ints": list(dilation)})]
    if flavour == "ATEN":
        target = "torch.ops.aten.convolution.default"
        args += [("transposed", {"as_bool": False}),
                 ("output_padding", {"as_ints": [0] * len(stride)}),
                 ("groups", {"as_int": groups})]
    else:
        target = "torch.ops.aten.conv3d.default"
        args.append(("groups", {"as_int": groups}))
        defaults = [None, None, {"as_none": True}, {"as_ints": [1] * 3}, {"as_ints": [0] * 3},
                    {"as_ints": [1] * 3}, {"as_int": 1}]
        while args and args[-1][1] == defaults[len(args) - 1]:
            args.pop()
    node = copy.deepcopy(base_node)
    node.update(target=target, inputs=[positional(n, a) for n, a in args],
                outputs=[{"as_tensor": {"name": name}}], name=name)
    node["metadata"] = renamed_metadata(base_node["metadata"])
    return node


def renamed_metadata(metadata):
    text = json.dumps({k: v for k, v in metadata.items() if k != "stack_trace"})
    for old, new in (("ConvBnRelu", "Conv3dRelu"), ("Conv2d", "Conv3d"), ("conv2d", "conv3d")):
        text = text.replace(old, new)
    return json.loads(text)


def build_conv3d(s, model, inputs):
    """conv_bn_relu -> conv3d (export_fixtures.Conv3dRelu): x [1,2,4,6,6] -> conv3d(2->3,
    3x3x3, stride (1,2,2), pad 1, bias) -> relu -> conv3d(3->4, (1,3,3), pad (0,1,1), no
    bias). The graph, its tensor
    values, the signature, the module call graph and the sample inputs are rewritten;
    the version fields and every other record stay the base's. Returns the state."""
    a, flavour = s.a, s.a.flavour()
    convs = [n for n in s.nodes if n["target"] in CONVS]
    relu = next(n for n in s.nodes if n["target"] == "torch.ops.aten.relu.default")
    stem = "conv3d" if flavour == "TRAINING" else "convolution"
    c1, c2 = model.conv1, model.conv2
    nodes = [conv_node(convs[0], flavour, stem, "x", "p_conv1_weight", "p_conv1_bias",
                       c1.stride, c1.padding, c1.dilation, c1.groups),
             dict(copy.deepcopy(relu), inputs=[positional("self", {"as_tensor": {"name": stem}})],
                  outputs=[{"as_tensor": {"name": "relu"}}], name="relu",
                  metadata=renamed_metadata(relu["metadata"])),
             conv_node(convs[1], flavour, stem + "_1", "relu", "p_conv2_weight", None,
                       c2.stride, c2.padding, c2.dilation, c2.groups)]
    state = {"conv1.weight": c1.weight.detach().clone(), "conv1.bias": c1.bias.detach().clone(),
             "conv2.weight": c2.weight.detach().clone()}
    with torch.no_grad():
        y1 = c1(inputs[0])
        y2 = c2(y1)
    user = next(sp for sp in a.signature["input_specs"] if "user_input" in sp)
    a.signature["input_specs"] = [
        {"parameter": {"arg": {"name": "p_" + n.replace(".", "_")}, "parameter_name": n}}
        for n in state] + [user]
    a.signature["output_specs"] = [{"user_output": {"arg": {"as_tensor": {"name": stem + "_1"}}}}]
    g = a.graph
    g["inputs"] = [{"as_tensor": {"name": "p_" + n.replace(".", "_")}} for n in state] + \
        [{"as_tensor": {"name": "x"}}]
    g["outputs"] = [{"as_tensor": {"name": stem + "_1"}}]
    g["nodes"] = nodes
    g["tensor_values"] = dict(
        [("p_" + n.replace(".", "_"), tensor_meta(t.shape, t.dtype, True))
         for n, t in state.items()]
        + [("x", tensor_meta(inputs[0].shape, torch.float32)),
           (stem, tensor_meta(y1.shape, torch.float32)),
           ("relu", tensor_meta(y1.shape, torch.float32)),
           (stem + "_1", tensor_meta(y2.shape, torch.float32))])
    calls = a.model["graph_module"]["module_call_graph"]
    a.model["graph_module"]["module_call_graph"] = [c for c in calls
                                                    if c["fqn"] in ("", "conv1", "conv2")]
    name = f"{a.prefix}/data/sample_inputs/model.pt"
    a.data[name] = sample_inputs_pt(a.data[name], inputs)
    a.entries = [(n, a.data[n]) for n, _ in a.entries]
    return state


# name -> (base, the surgery); the model, its input and its description are
# export_fixtures.py's builder of that name (its real export replaces the fixture).
FLOAT_FIXTURES = {
    "conv3d": dict(base="test/models/conv_bn_relu", build=build_conv3d),
}
FLOAT_TEXT = ("built by graph surgery on the real 2.11 export of {base} by "
              "tools/quantize_archive.py (its conv2d/BatchNorm nodes replaced by conv3d "
              "nodes written as 2.11 writes conv nodes, the parameters, signature, tensor "
              "values and sample inputs rewritten, the archive's versions and zip layout "
              "kept): no 2.11 export with a conv3d exists in the tree and no torch.export "
              "machine was lent this session; reference outputs from PyTorch 1.13 "
              "interpreting the written archive node by node (torch.ops.aten.conv3d / "
              "convolution), equal to the eager nn.Conv3d model's")


def float_one(name, spec, out_dir):
    """Writes a float fixture built by surgery (archives, npy files); returns its entry."""
    torch.manual_seed(fx.SEED)  # as export_fixtures.export_fixture seeds its builders
    description, model, inputs = fx.FIXTURES[name]()
    model, inputs = model.eval(), list(inputs)
    with torch.no_grad():
        eager = fx.as_tuple(model(*inputs))
    flavours, reference = {}, None
    for flavour in ("training", "aten"):
        archive = Archive(base_path(spec["base"], flavour, False))
        state = spec["build"](Surgery(archive), model, inputs)
        path = os.path.join(out_dir, f"{name}.{flavour}.pt2")
        archive.save(path, state)
        back = Archive(path)
        with torch.no_grad():
            outs = interpret(back, Surgery(back).state, inputs)
        reference = reference or outs
        ops, _ = fx.archive_ops(path)
        flavours[flavour] = {
            "file": os.path.basename(path), "verifiers": back.model["verifiers"],
            "bytes": os.path.getsize(path), "ops": ops,
            "max_abs_diff_vs_eager": max(float((a - b).abs().max())
                                         for a, b in zip(outs, eager)),
            "base": os.path.relpath(base_path(spec["base"], flavour, False), REPO)}
    for i, t in enumerate(inputs):
        np.save(os.path.join(out_dir, f"{name}.input{i}.npy"), t.numpy())
    for i, t in enumerate(reference):
        np.save(os.path.join(out_dir, f"{name}.output{i}.npy"), fx.to_numpy(t))
    return {"name": name, "generator": GENERATOR,
            "description": description + "; weights of the nn.Conv3d modules after "
                           f"torch.manual_seed({fx.SEED}), the input torch.randn after them "
                           "(export_fixtures.py's builder); "
                           + FLOAT_TEXT.format(base=spec["base"]),
            "inputs": [{"file": f"{name}.input{i}.npy", **fx.tensor_info(t),
                        "npy_dtype": str(t.numpy().dtype)} for i, t in enumerate(inputs)],
            "outputs": [{"file": f"{name}.output{i}.npy", **fx.tensor_info(t),
                         "npy_dtype": str(fx.to_numpy(t).dtype)}
                        for i, t in enumerate(reference)],
            "flavours": flavours}


# ---------------------------------------------------------------------------
# Fixtures.
# ---------------------------------------------------------------------------

SURGERY_TEXT = ("graph surgery on the real 2.11 export of {base} by tools/quantize_archive.py; "
                "not a torch.export of a quantized model (no PyTorch 2.x machine this "
                "session); reference outputs from PyTorch 1.13 eager interpreting the same "
                "graph")

FIXTURES = {
    "q_conv_relu": dict(
        base="test/models/conv_bn_relu", flavours=("training", "aten"),
        what="int8 [1,3,16,16]: Conv2d(3->8, 3x3, s2, p1) with its BatchNorm folded + ReLU, "
             "Conv2d(8->8, 3x3, p1, no bias: a folded bias parameter added) with its "
             "BatchNorm folded + ReLU6 (relu6 / hardtanh(0,6)); one q/dq after each "
             "conv+activation, the input quantized"),
    "q_mobilenet_block": dict(
        base="test/models/mobilenet_block", flavours=("training", "aten"),
        what="int8 MobileNetV3-style block: pointwise and depthwise (groups 16) convs with "
             "BatchNorm folded, each conv's output q/dq; hardswish, the squeeze-excite's "
             "hardsigmoid and mul, dropout in float between dq and q; the SE's "
             "adaptive_avg_pool2d (ATEN: mean.dim) with its own qparams, SE convs (+ReLU "
             "fused), the residual add + ReLU fused (both inputs from dq), flatten, "
             "Linear(512->10) with its output q/dq. In ATEN, hardswish is decomposed "
             "(add/clamp/mul/div, scalar adds not quantized)"),
    "q_linear": dict(
        base="test/models/linear_bn_3d", flavours=("training", "aten"),
        what="int8 Linear(16->16) on a 3-D input [4,10,16] (ATEN: view -> addmm -> view, "
             "the q/dq outside the views), its output q/dq; the BatchNorm1d(10) after it "
             "normalizes axis 1 and cannot fold, so it runs in float between a dq and the "
             "output's q/dq"),
    "q_linear_8d": dict(
        base="test/models/linear_bn_3d", flavours=("training", "aten"),
        edit=lambda s: view_linear_input_8d(s, [2, 2, 1, 5, 2, 1, 1]),
        what="int8 Linear(16->16) on an 8-D input: the [4,10,16] input is viewed to "
             "[2,2,1,5,2,1,1,16] (a view node inserted), quantized there (q/dq on 8-D "
             "tensors), the linear's 8-D output q/dq, viewed back to [4,10,16] (re-"
             "quantized with the same qparams), then the float BatchNorm1d and the output "
             "q/dq. XNNPACK allows at most 6 dimensions: the 8-D q/dq must stay separate "
             "portable ops"),
    "q_conv_float_out": dict(
        base="test/models/conv_bn_relu", flavours=("training", "aten"),
        float_outputs=last_output_float,
        what="as q_conv_relu, but the last conv+ReLU6's output is NOT re-quantized: the "
             "graph output is float32 straight from the conv (int8 per-channel weight, "
             "dequantized int8 input) and ReLU6, so it has no int8 step and the fixture "
             "keeps duet run's float32 default tolerance"),
    "q_pool": dict(
        base="test/models/pooling", flavours=("training", "aten"),
        what="int8 [1,4,15,15] input quantized once, dequantized per user: max_pool2d(3, "
             "s2, p1) and max_pool2d(2, ceil) (ATEN: max_pool2d_with_indices) re-quantized "
             "with the input's qparams; avg_pool2d(3, s2, p1, count_include_pad=False) and "
             "avg_pool2d(2, ceil) in float between dq and q (own qparams), "
             "adaptive_avg_pool2d to (1,1) (ATEN: mean.dim) and to (2,3) with their own "
             "qparams; every output dq(q(y))"),
    "q_tensor_overloads": dict(
        base="test/models/linear_bn_3d", flavours=("training", "aten"),
        tensor_overloads=True,
        what="as q_linear, with quantize_per_tensor.tensor / dequantize_per_tensor.tensor: "
             "scale a 0-d float32 and zero point a 0-d int64 tensor constant per "
             "quantization point"),
    "q_mobilenet_v2": dict(
        base="test/zoo/mobilenet_v2", flavours=("aten",),
        what="int8 MobileNetV2 (the zoo's width 0.2, 10 classes, [1,3,64,64]): every "
             "BatchNorm folded into its conv, per-channel int8 weights (depthwise "
             "included), ReLU6 (hardtanh) fused into the q/dq after its conv, residual adds "
             "(both inputs from dq), mean.dim with its own qparams, flatten (view) with "
             "the mean's, dropout (clone) in float, classifier addmm with its output q/dq"),
    "q_conv3d": dict(
        base="test/models/conv3d", flavours=("training", "aten"),
        what="int8 3-D convolutions on [1,2,4,6,6]: Conv3d(2->3, 3x3x3, stride (1,2,2), pad "
             "1) + ReLU fused into one q/dq, Conv3d(3->4, (1,3,3), pad (0,1,1), no bias) with "
             "its output q/dq, the input quantized; per-channel int8 weights [3,2,3,3,3] and "
             "[4,3,1,3,3] through dequantize_per_channel (axis 0), bias float32. XNNPACK has "
             "no 3-D convolution: the convs run on portable in float from the dequantized "
             "values and their q/dq nodes must stay separate ops. The base conv3d is itself "
             "built by graph surgery (see its entry): no 2.11 export with a conv3d exists"),
}
BENCH = dict(
    name="q_mobilenet_v2", base="bench/models/mobilenet_v2",
    what="int8 MobileNetV2 at full size ([1,3,224,224], 1000 classes; its float twin is "
         "bench/models/mobilenet_v2 itself): 52 convs with BatchNorm folded and per-channel "
         "int8 weights, ReLU6 (hardtanh_) fused, 10 residual adds, adaptive_avg_pool2d with "
         "its own qparams, flatten with the pool's, dropout in float, classifier Linear "
         "(1280->1000) with its output q/dq")


def base_path(base, flavour, single):
    return f"{REPO}/{base}.pt2" if single else f"{REPO}/{base}.{flavour}.pt2"


def base_inputs(base):
    folder, stem = os.path.split(f"{REPO}/{base}")
    out, i = [], 0
    while os.path.exists(f"{folder}/{stem}.input{i}.npy"):
        out.append(torch.from_numpy(np.load(f"{folder}/{stem}.input{i}.npy")))
        i += 1
    return out


class Point:
    """An output's quantization (for eq.tolerance / eq.output_quantization)."""

    def __init__(self, scale, zero_point):
        self.scale, self.zero_point = scale, zero_point


def quantize_one(name, spec, out_dir, single=False):
    """Writes the fixture's archives, npy files; returns its manifest entry."""
    base = spec["base"]
    inputs = base_inputs(base)
    calibration = eq.calibration_batches([tuple(t.shape) for t in inputs])
    reference, qparams_by_index, entry_flavours = None, None, {}
    records = {}
    for flavour in spec["flavours"]:
        archive = Archive(base_path(base, flavour, single))
        s = Surgery(archive)
        folded = s.fold_batch_norms()
        if spec.get("edit"):
            spec["edit"](s)
        float_outputs = spec["float_outputs"](s) if spec.get("float_outputs") else ()
        points, weights = s.plan(float_outputs)
        # calibrate the float graph (folded, edited) on the calibration batches
        seen = {}

        def observe(t, value):
            if t in dict(points):
                lo, hi = torch.aminmax(value.detach().float())
                if t in seen:
                    lo, hi = torch.min(lo, seen[t][0]), torch.max(hi, seen[t][1])
                seen[t] = (lo, hi)

        with torch.no_grad():
            float_outs = None
            for batch in calibration:
                interpret(archive, s.state, list(batch), observe)
            float_outs = interpret(archive, s.state, inputs)
        own = [t for t, shared in points if shared is None]
        if qparams_by_index is None:
            qparams_by_index = []
            for t in own:
                scale, zp = eq.activation_qparams_tensors(seen[t][0], seen[t][1], eq.QMIN,
                                                          eq.QMAX, eq.EPS)
                qparams_by_index.append((float(scale), int(zp), meta_sizes(s.tv[t]),
                                         float(seen[t][0]), float(seen[t][1])))
        if len(qparams_by_index) != len(own) or any(
                q[2] != meta_sizes(s.tv[t]) for q, t in zip(qparams_by_index, own)):
            raise RuntimeError(f"{name} {flavour}: its quantization points do not match the "
                               "first flavour's")
        qparams = {t: q[:2] for t, q in zip(own, qparams_by_index)}
        for t, shared in points:
            while shared is not None and shared not in qparams:
                shared = dict(points)[shared]
            if shared is not None:
                qparams[t] = qparams[shared]
        out_points = []
        for o in s.a.graph["outputs"]:
            t = arg_names(o)[0]
            out_points.append(Point(*qparams[t]) if t in qparams else None)
        s.quantize_weights(weights)
        s.insert_qdq(points, qparams, spec.get("tensor_overloads", False))
        path = os.path.join(out_dir, f"{name}.pt2" if single else f"{name}.{flavour}.pt2")
        archive.save(path, s.state)
        # read back and run
        back = Archive(path)
        state = Surgery(back).state
        with torch.no_grad():
            outs = interpret(back, state, inputs)
        if reference is None:
            reference, ref_points, ref_float = outs, out_points, float_outs
            # How much the reference itself moves with another float conv/matmul
            # summation order (PyTorch's non-mkldnn kernels): in a deep network a value
            # near a rounding boundary flips an int8 level, and the flip propagates.
            with torch.no_grad(), torch.backends.mkldnn.flags(enabled=False):
                other = interpret(back, state, inputs)
            sensitivity = []
            for a, b, p in zip(other, outs, out_points):
                d = (a.double() - b.double()).abs()
                sensitivity.append({"max_abs": float(d.max()),
                                    "max_steps": None if p is None else
                                    float(d.max()) / p.scale,
                                    "fraction_differing": float((d > 0).double().mean())})
        diff = max(float((a - b).abs().max()) for a, b in zip(outs, reference))
        ops, _ = fx.archive_ops(path)
        check = eq.qdq_check(path)
        entry_flavours[flavour] = {
            "file": os.path.basename(path), "verifiers": back.model["verifiers"],
            "bytes": os.path.getsize(path), "ops": ops, "max_abs_diff_vs_eager": diff,
            "base": os.path.relpath(base_path(base, flavour, single), REPO),
            "batch_norms_folded": folded, "quantized_weights": len(weights),
            "activation_points": len(points), "qdq_check": check}
        records[flavour] = (len(points), len(own))
    for i, t in enumerate(inputs):
        np.save(os.path.join(out_dir, f"{name}.input{i}.npy"), t.numpy())
    for i, t in enumerate(reference):
        np.save(os.path.join(out_dir, f"{name}.output{i}.npy"), fx.to_numpy(t))
    entry = {"name": name, "generator": GENERATOR,
             "description": spec["what"] + "; " + SURGERY_TEXT.format(base=base),
             "inputs": [{"file": f"{name}.input{i}.npy", **fx.tensor_info(t),
                         "npy_dtype": str(t.numpy().dtype)} for i, t in enumerate(inputs)],
             "outputs": [{"file": f"{name}.output{i}.npy", **fx.tensor_info(t),
                          "npy_dtype": str(fx.to_numpy(t).dtype)}
                         for i, t in enumerate(reference)]}
    if any(p is not None for p in ref_points):
        tol = eq.tolerance(ref_points)
        if None in ref_points:
            tol["why"] += "; the float outputs are held to it too"
        entry["tolerance"] = tol
    quant_float_diff = [float((a - b).abs().max()) for a, b in zip(reference, ref_float)]
    entry["quantized"] = {
        "method": "graph surgery (tools/quantize_archive.py) on " + base,
        "activations": f"per-tensor affine int8 [{eq.QMIN}, {eq.QMAX}], MinMax observer, "
                       f"eps {eq.EPS!r}",
        "weights": f"per-channel (axis 0) symmetric int8 [{eq.WQMIN}, {eq.WQMAX}] tensor "
                   "constants through dequantize_per_channel; bias float32",
        "calibration": eq.CALIBRATION_TEXT + "; the float graph (BatchNorm folded) "
                       "interpreted by PyTorch 1.13",
        "ops_registered_by": eq.OPS_SOURCE, "reference": f"PyTorch {torch.__version__} "
        "interpreting the written archive node by node (the first flavour listed)",
        "activation_points": records[spec["flavours"][0]][0],
        "own_qparams": records[spec["flavours"][0]][1],
        "outputs": eq.output_quantization(reference, ref_points),
        "max_abs_diff_vs_float_graph": quant_float_diff,
        "reference_vs_mkldnn_off": sensitivity,
    }
    entry["flavours"] = entry_flavours
    return entry


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.path.join(REPO, "test", "models"))
    parser.add_argument("--bench-out", default=os.path.join(REPO, "bench", "models"))
    parser.add_argument("--only", default="", help="comma-separated fixture names")
    parser.add_argument("--skip-bench", action="store_true")
    options = parser.parse_args()
    torch.set_num_threads(min(8, os.cpu_count() or 1))
    print(f"torch {torch.__version__}: quantized_decomposed from {eq.register_ops()}")
    # export_quantized.py's real exports replaced the surgery fixtures of its names; a
    # run must not overwrite them.
    surgery = [n for n in FIXTURES if n not in eq.FIXTURES]
    wanted = [n for n in options.only.split(",") if n] or list(FLOAT_FIXTURES) + surgery
    real = [n for n in wanted if n in eq.FIXTURES]
    if real:
        sys.exit(f"{', '.join(real)}: test/models holds tools/export_quantized.py's real "
                 "export of these; this tool writes only " + ", ".join(surgery))
    entries = []
    # the float fixtures first: q_conv3d's base is conv3d (read from test/models)
    for name in sorted(wanted, key=lambda n: n not in FLOAT_FIXTURES):
        if name == "bench":
            continue
        if name in FLOAT_FIXTURES:
            entry = float_one(name, FLOAT_FIXTURES[name], options.out)
            eq.merge_manifest(os.path.join(options.out, "MANIFEST.json"), "fixtures", [entry],
                              {})
            for flavour, info in entry["flavours"].items():
                print(f"{name} {flavour}: {info['bytes']} bytes, diff vs eager "
                      f"{info['max_abs_diff_vs_eager']}\n    "
                      + " ".join(op.replace("torch.ops.", "") for op in info["ops"]), flush=True)
            continue
        entry = quantize_one(name, FIXTURES[name], options.out)
        entries.append(entry)
        report(entry)
    if entries:
        eq.merge_manifest(os.path.join(options.out, "MANIFEST.json"), "fixtures", entries, {})
    if not options.skip_bench and (not options.only or "bench" in wanted):
        entry = quantize_one(BENCH["name"], dict(BENCH, flavours=("training",)),
                             options.bench_out, single=True)
        report(entry)
        eq.merge_manifest(os.path.join(options.bench_out, "MANIFEST.json"), "models", [entry],
                          {})


def report(entry):
    q = entry["quantized"]
    print(f"{entry['name']}: tolerance {entry.get('tolerance', {}).get('atol')}; outputs "
          + "; ".join(f"scale {o.get('scale')} zp {o.get('zero_point')}" for o in q["outputs"])
          + f"; |q - float| {q['max_abs_diff_vs_float_graph']}; mkldnn off: "
          + str([s['max_steps'] for s in q['reference_vs_mkldnn_off']]), flush=True)
    for flavour, info in entry["flavours"].items():
        print(f"  {flavour}: {info['bytes']} bytes, diff {info['max_abs_diff_vs_eager']}, "
              f"{info['quantized_weights']} weights, {info['activation_points']} points, "
              f"problems {info['qdq_check']['problems']}\n    "
              + " ".join(op.replace("torch.ops.", "") for op in info["ops"]), flush=True)


if __name__ == "__main__":
    main()
