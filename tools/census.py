#!/usr/bin/env python3
"""A census of architectures duet has never seen: export, compile, compare.

Where the test zoo is a hand-picked list, the census walks the libraries:
  timm          the smallest model (by parameter count) of every model module
                (`timm.list_modules()`), at its default input size
  torchvision   every classification, segmentation, video and optical-flow
                builder (`torchvision.models.list_models`)
  transformers  every model type whose `*Model` class a shrunk config builds
                (2 layers, hidden size 64, 4 heads, vocabulary 128)

Two steps, because the exports need PyTorch and the compiles need duet:

  On the GPU machine (PyTorch 2.11, timm, transformers; CPU only):
      CUDA_VISIBLE_DEVICES= python3 tools/census.py export --out DIR [--jobs N]
          [--only timm,torchvision,transformers] [--limit N] [--seconds S]
  writes DIR/census.json (one entry per candidate: built, exported, or the
  error) and, per exported architecture NAME, NAME.pt2 (the TRAINING IR
  torch.export gives by default), NAME.outputK.npy (eager, eval mode) and
  NAME.inputK.npy for integer inputs. Float inputs are not written: both
  machines generate them from the name (SplitMix64, uniform in [-2, 2), exact
  in float32), and `compile` writes them here, checking each against the sum
  the export recorded; hundreds of 224x224 random images would not fit one
  return of the device tool. Segmentation models take 160x160 inputs (21
  classes a pixel), and an output over 2^18 elements has no float64 twin. Weights are seeded random, every parameter one random block of
  61 values tiled over it (scaled to its fan-in): the archives then compress
  about a hundredfold, so hundreds of full-width models travel back in one
  file. BatchNorm statistics are calibrated on random batches.
  --init default keeps PyTorch's own initialization and statistics instead (the
  archives are then full-size); --models LIB:FAMILY:NAME,... exports those
  candidates only; --float64 also writes NAME.outputK.f64.npy, the same model
  and inputs run in float64, for the float64 rule below.

  Here:
      python3 tools/census.py compile --census DIR --duet build/bin/duet
          [--backends portable,default] [--timeout S] [--jobs N]
  compiles each exported NAME with each backend set ("default" is duet's own
  plan), runs it on the stored inputs and checks the outputs with
  `duet run --expect` (the fp32 bound of docs/cli.md). It writes
  DIR/results.json and prints the table: exported / compiled / correct per
  set, and the ops that refuse the most architectures. An output outside the
  bound that has a float64 reference is classified by `duet-run bisect
  --float64` (docs/reliability.md, "The float64 rule"): "wrong" when duet is
  further from float64 than PyTorch's fp32 is, else "sensitive".
      python3 tools/census.py table --census DIR
  prints that table again from DIR/results.json, and
      python3 tools/census.py merge --census DIR OTHER...
  adds the entries and files of other exports (one per library, say) to DIR.
"""

import argparse
import collections
import json
import os
import re
import struct
import subprocess
import sys
import time
import traceback
import zlib

SEED = 0
BLOCK = 61
VOCAB = 128
TOKENS = 16
# An output with more elements than this travels without its float64 twin.
FLOAT64_LIMIT = 1 << 18


# ---------------------------------------------------------------------------
# Float inputs are not shipped: both machines generate them from the name.
# ---------------------------------------------------------------------------
#
# A 224x224 random image is 600 KB that no compressor shrinks, and hundreds of
# them would not fit one return of the device tool. Every float input is
# instead SplitMix64 of a seed taken from its file name, each value
# (k - 2^23) / 2^22 for the top 24 bits k of one output: uniform in [-2, 2) and
# exact in float32, so NumPy there and plain Python here write the same bytes.

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB


def input_seed(key, index):
    return zlib.crc32(f"{key}.input{index}".encode())


def generated_values_numpy(seed, count):
    import numpy as np

    with np.errstate(over="ignore"):
        z = (np.arange(1, count + 1, dtype=np.uint64) * np.uint64(GOLDEN)) + np.uint64(seed)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(MIX1)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(MIX2)
        z = z ^ (z >> np.uint64(31))
    k = (z >> np.uint64(40)).astype(np.int64)
    return ((k - (1 << 23)).astype(np.float64) / (1 << 22)).astype(np.float32)


def generated_values(seed, count):
    """The same values as generated_values_numpy, without NumPy."""
    out = []
    for i in range(1, count + 1):
        z = (i * GOLDEN + seed) & MASK64
        z = ((z ^ (z >> 30)) * MIX1) & MASK64
        z = ((z ^ (z >> 27)) * MIX2) & MASK64
        z ^= z >> 31
        out.append(((z >> 40) - (1 << 23)) / (1 << 22))
    return out


def write_float32_npy(path, shape, values):
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % dims
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack(f"<{len(values)}f", *values))


def regenerate_inputs(census_dir, entry):
    """Writes the float inputs the export generated and did not ship; checks
    each against the sum the export recorded."""
    for index, spec in entry.get("generated_inputs", {}).items():
        path = os.path.join(census_dir, f"{entry['name']}.input{index}.npy")
        if os.path.exists(path):
            continue
        count = 1
        for d in spec["shape"]:
            count *= d
        values = generated_values(input_seed(entry["name"], int(index)), count)
        if abs(sum(values) - spec["sum"]) > 1e-6 * max(1.0, count):
            raise RuntimeError(f"census: {entry['name']} input {index} regenerated with sum "
                               f"{sum(values)}, the export's was {spec['sum']}")
        write_float32_npy(path, spec["shape"], values)


# ---------------------------------------------------------------------------
# Export (GPU machine)
# ---------------------------------------------------------------------------


def tile_weights(model):
    """Every parameter a 61-value random block tiled over it, scaled like
    PyTorch's default init; norm weights near 1, biases small."""
    import torch

    with torch.no_grad():
        for name, param in model.named_parameters():
            block = torch.rand(BLOCK) * 2 - 1
            values = block.repeat(param.numel() // BLOCK + 1)[: param.numel()]
            values = values.reshape(param.shape)
            if param.dim() >= 2:
                fan_in = param[0].numel()
                param.copy_(values * fan_in ** -0.5)
            elif "norm" in name.lower() or "ln" in name.lower() or "bn" in name.lower():
                param.copy_(1 + 0.25 * values if name.endswith("weight") else 0.1 * values)
            else:
                param.copy_(0.1 * values)
    return model


def calibrate(model, args):
    import torch

    bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return model.eval()
    for bn in bns:
        bn.reset_running_stats()
        bn.momentum = None
    model.train()
    with torch.no_grad():
        for _ in range(2):
            model(*[torch.randn(2, *a.shape[1:]) if a.dtype.is_floating_point
                    else a.expand(2, *a.shape[1:]).clone() for a in args])
    return model.eval()


class FirstTensor:
    """Wraps a model whose output is a dict, dataclass or tuple: the first tensor."""

    @staticmethod
    def wrap(model):
        import torch

        class First(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.model = model

            def forward(self, *args):
                out = self.model(*args)
                if isinstance(out, dict) or hasattr(out, "to_tuple"):
                    out = out["out"] if "out" in out else next(iter(out.values()))
                while isinstance(out, (tuple, list)):
                    out = out[0]
                return out

        return First()


TIMM_HINTS = ("atto", "femto", "pico", "nano", "tiny", "xxs", "xs", "small", "mini",
              "micro", "lite", "s0", "t0", "b0", "_t", "18", "_s")


def timm_candidates():
    """One candidate per timm module; its model is chosen by the worker
    (smallest_timm_model), since counting parameters takes seconds a module."""
    import timm

    return [("timm", module, "") for module in sorted(timm.list_modules())]


def smallest_timm_model(module):
    """The model of `module` with the fewest parameters among the five whose
    names say they are small (counted on the meta device)."""
    import timm
    import torch

    def rank(name):
        return next((i for i, h in enumerate(TIMM_HINTS) if h in name), len(TIMM_HINTS)), len(name)

    best = None
    for name in sorted(timm.list_models(module=module), key=rank)[:5]:
        try:
            with torch.device("meta"):
                m = timm.create_model(name, pretrained=False)
            count = sum(p.numel() for p in m.parameters())
        except Exception:
            continue
        if best is None or count < best[1]:
            best = (name, count)
    if best is None:
        raise RuntimeError(f"timm module {module}: no model builds")
    return best[0]


def torchvision_candidates():
    import torchvision

    out = []
    for module, family in ((torchvision.models, "classification"),
                           (torchvision.models.segmentation, "segmentation"),
                           (torchvision.models.video, "video"),
                           (torchvision.models.optical_flow, "optical_flow")):
        for name in torchvision.models.list_models(module=module):
            out.append(("torchvision", family, name))
    return out


def transformers_candidates():
    from transformers.models.auto import modeling_auto

    return [("transformers", model_type, cls)
            for model_type, cls in sorted(modeling_auto.MODEL_MAPPING_NAMES.items())
            if isinstance(cls, str)]


def shrink(config):
    """Small sizes for every field a transformers config commonly has."""
    small = {"num_hidden_layers": 2, "hidden_size": 64, "intermediate_size": 128,
             "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": VOCAB,
             "max_position_embeddings": 64, "d_model": 64, "encoder_layers": 2,
             "decoder_layers": 2, "encoder_attention_heads": 4,
             "decoder_attention_heads": 4, "encoder_ffn_dim": 128, "decoder_ffn_dim": 128,
             "num_layers": 2, "num_heads": 4, "d_ff": 128, "d_kv": 16, "n_layer": 2,
             "n_head": 4, "n_embd": 64, "head_dim": 16, "image_size": 64,
             "patch_size": 8, "num_channels": 3, "embed_dim": 64, "hidden_act": None}
    for key, value in small.items():
        if value is not None and hasattr(config, key) and isinstance(getattr(config, key), int):
            setattr(config, key, value)
    for sub in ("text_config", "vision_config", "audio_config"):
        if getattr(config, sub, None) is not None:
            shrink(getattr(config, sub))
    return config


def build(library, family, name):
    """(module, args) of a candidate, seeded."""
    import torch

    torch.manual_seed(SEED)
    if library == "timm":
        import timm

        model = timm.create_model(name, pretrained=False)
        size = model.pretrained_cfg.get("input_size", (3, 224, 224))
        args = (torch.randn(1, *size),)
        return FirstTensor.wrap(model), args
    if library == "torchvision":
        import torchvision

        model = torchvision.models.get_model(name, weights=None)
        if family == "video":
            args = (torch.randn(1, 3, 8, 112, 112),)
        elif family == "optical_flow":
            args = (torch.randn(1, 3, 128, 128), torch.randn(1, 3, 128, 128))
        elif family == "segmentation":
            # 21 classes per pixel: at 224x224 each output is 4 MB of noise.
            args = (torch.randn(1, 3, 160, 160),)
        else:
            args = (torch.randn(1, 3, 224, 224),)
        return FirstTensor.wrap(model), args
    import transformers

    config = shrink(transformers.AutoConfig.for_model(family))
    cls = getattr(transformers, name)
    model = cls(config)
    main = getattr(model, "main_input_name", "input_ids")
    if main == "input_ids":
        args = (torch.randint(0, VOCAB, (1, TOKENS)),)
    elif main == "pixel_values":
        size = getattr(config, "image_size", 64)
        size = size if isinstance(size, int) else size[0]
        args = (torch.randn(1, getattr(config, "num_channels", 3), size, size),)
    elif main == "input_features":
        args = (torch.randn(1, getattr(config, "num_mel_bins", 80), 64),)
    elif main == "input_values":
        args = (torch.randn(1, 4000),)
    else:
        raise RuntimeError(f"main input {main} has no census input")
    return FirstTensor.wrap(model), args


def float64_outputs(model, args):
    """The outputs of a float64 copy of `model` on `args` in float64."""
    import copy

    import torch

    wide = copy.deepcopy(model).double()
    with torch.no_grad():
        outputs = wide(*[a.double() if a.dtype.is_floating_point else a for a in args])
    return outputs if isinstance(outputs, tuple) else (outputs,)


def candidate_key(library, family, name):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", f"{library}.{family}.{name}" if name
                  else f"{library}.{family}")


def export_one(candidate, out_dir, settings):
    import numpy as np
    import torch

    library, family, name = candidate
    start = time.time()
    try:
        if library == "timm" and not name:
            name = smallest_timm_model(family)
    except Exception as error:
        return {"name": candidate_key(library, family, name), "library": library,
                "family": family, "model": name, "built": False,
                "error": f"{type(error).__name__}: {error}"[:400]}
    key = candidate_key(library, family, name)
    entry = {"name": key, "library": library, "family": family, "model": name}
    try:
        model, args = build(library, family, name)
        args = tuple(torch.from_numpy(generated_values_numpy(input_seed(key, i), a.numel())
                                      .reshape(tuple(a.shape)))
                     if a.dtype == torch.float32 else a for i, a in enumerate(args))
        if settings["init"] == "tiled":
            tile_weights(model)
            model = calibrate(model, args)
        else:
            model = model.eval()
        with torch.no_grad():
            outputs = model(*args)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        wide = float64_outputs(model, args) if settings["float64"] else ()
        entry["built"] = True
    except Exception as error:
        entry.update(built=False, error=f"{type(error).__name__}: {error}"[:400])
        return entry
    try:
        ep = torch.export.export(model, args)
        for module in ep.graph_module.modules():
            for node in getattr(getattr(module, "graph", None), "nodes", []):
                for k in ("stack_trace", "nn_module_stack", "source_fn_stack", "from_node"):
                    node.meta.pop(k, None)
        torch.export.save(ep, os.path.join(out_dir, f"{key}.pt2"))
        generated = {}
        for i, a in enumerate(args):
            if a.dtype == torch.float32:
                generated[str(i)] = {"shape": list(a.shape), "sum": float(a.double().sum())}
            else:
                np.save(os.path.join(out_dir, f"{key}.input{i}.npy"), a.numpy())
        for i, o in enumerate(outputs):
            np.save(os.path.join(out_dir, f"{key}.output{i}.npy"), o.float().numpy())
        for i, o in enumerate(wide):
            if o.numel() <= FLOAT64_LIMIT:
                np.save(os.path.join(out_dir, f"{key}.output{i}.f64.npy"), o.numpy())
        entry.update(exported=True, inputs=len(args), outputs=len(outputs),
                     generated_inputs=generated)
    except Exception as error:
        entry.update(exported=False, error=f"{type(error).__name__}: {error}"[:400])
    entry["seconds"] = round(time.time() - start, 1)
    return entry


def export_guarded(args):
    candidate, out_dir, settings = args
    try:
        return export_one(candidate, out_dir, settings)
    except BaseException as error:  # a crash in one model must not end the census
        return {"name": candidate_key(*candidate),
                "library": candidate[0], "family": candidate[1], "model": candidate[2],
                "built": False,
                "error": f"{type(error).__name__}: {error}"[:400]}


def run_export(options):
    import multiprocessing

    os.makedirs(options.out, exist_ok=True)
    libraries = options.only.split(",")
    candidates = []
    listing = {"timm": timm_candidates, "torchvision": torchvision_candidates,
               "transformers": transformers_candidates}
    lists = []
    for library in libraries if not options.models else []:
        found = listing[library]()
        lists.append(found[: options.limit] if options.limit else found)
        print(f"{library}: {len(found)} candidates", flush=True)
    # The libraries take turns, so a census cut off by its time limit still
    # samples each of them.
    for turn in range(max((len(found) for found in lists), default=0)):
        candidates += [found[turn] for found in lists if turn < len(found)]
    for spec in options.models.split(",") if options.models else []:
        parts = spec.split(":")
        if len(parts) != 3 or parts[0] not in listing:
            sys.exit(f"census: --models takes LIB:FAMILY:NAME (LIB one of {sorted(listing)}); "
                     f"got '{spec}'")
        candidates.append(tuple(parts))
    settings = {"init": options.init, "float64": options.float64}
    import torch

    # Entries are written as they finish, so a census cut off by its time
    # limit still leaves a census.json of what it did.
    path = os.path.join(options.out, "census.json")
    entries = []

    def save():
        with open(path, "w") as f:
            json.dump({"torch": torch.__version__, "candidates": len(candidates),
                       "entries": entries}, f, indent=1)

    deadline = time.time() + options.seconds
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(options.jobs, maxtasksperchild=16) as pool:
        results = pool.imap_unordered(export_guarded, [(c, options.out, settings) for c in candidates])
        while len(entries) < len(candidates):
            try:
                entry = results.next(timeout=max(deadline - time.time(), 1))
            except Exception:
                break
            entries.append(entry)
            save()
            print(entry["name"], "exported" if entry.get("exported") else
                  entry.get("error", "")[:120], flush=True)
        pool.terminate()
    done = {e["name"] for e in entries}
    finished = {(e["library"], e["family"]) for e in entries}
    for library, family, name in candidates:
        key = candidate_key(library, family, name)
        if key not in done and not (not name and (library, family) in finished):
            entries.append({"name": key, "library": library, "family": family,
                            "model": name, "built": False,
                            "error": "not finished within the census time"})
    save()


# ---------------------------------------------------------------------------
# Compile (here)
# ---------------------------------------------------------------------------

REFUSED = re.compile(r"\((torch\.ops\.[A-Za-z0-9_.]+)\): (higher-order )?op not supported")


def float64_verdict(duet, census, entry, program, timeout):
    """The float64 rule's verdicts ("within", "sensitive", "wrong") of a
    program outside the fp32 bound, from `duet-run bisect --float64`; None when
    the census has no float64 outputs for it."""
    name = entry["name"]
    outputs = range(entry.get("outputs", 1))
    wide = [os.path.join(census, f"{name}.output{i}.f64.npy") for i in outputs]
    if not all(os.path.exists(path) for path in wide):
        return None
    duet_run = os.path.join(os.path.dirname(duet), "duet-run")
    command = [duet_run, "bisect", program, "--json"]
    for i in range(entry.get("inputs", 1)):
        command += ["--input", os.path.join(census, f"{name}.input{i}.npy")]
    for i, path in zip(outputs, wide):
        command += ["--float64", path,
                    "--expect", os.path.join(census, f"{name}.output{i}.npy")]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        return [v["verdict"] for v in json.loads(done.stdout)["float64"]]
    except (subprocess.TimeoutExpired, ValueError, KeyError):
        return None


def compile_one(duet, census, entry, backends, timeout, work):
    name = entry["name"]
    regenerate_inputs(census, entry)
    pt2 = os.path.join(census, f"{name}.pt2")
    result = {}
    for backend in backends:
        program = os.path.join(work, f"{name}.{backend}.duet")
        command = [duet, "compile", pt2, "-o", program, "--quiet"]
        if backend != "default":
            command += ["--backends", backend]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            result[backend] = {"compiled": False, "error": f"compile over {timeout} s"}
            continue
        if done.returncode != 0:
            error = done.stderr.strip()
            refused = REFUSED.findall(error)
            result[backend] = {"compiled": False, "error": error[:600],
                               "refused": sorted({r[0] for r in refused})}
            details = re.findall(r"^\s+(torch\.ops\.[A-Za-z0-9_.]+): node", error, re.M)
            if details:
                result[backend]["refused"] = sorted(set(details))
            continue
        run = [duet, "run", program, "--quiet"]
        for i in range(entry.get("inputs", 1)):
            run += ["--input", os.path.join(census, f"{name}.input{i}.npy")]
        for i in range(entry.get("outputs", 1)):
            run += ["--expect", os.path.join(census, f"{name}.output{i}.npy")]
        try:
            done = subprocess.run(run, capture_output=True, text=True, timeout=timeout)
            result[backend] = {"compiled": True, "correct": done.returncode == 0,
                               "detail": (done.stdout + done.stderr).strip()[-400:]}
            if done.returncode != 0:
                verdict = float64_verdict(duet, census, entry, program, timeout)
                if verdict:
                    result[backend]["float64"] = verdict
        except subprocess.TimeoutExpired:
            result[backend] = {"compiled": True, "correct": False,
                               "detail": f"run over {timeout} s"}
        finally:
            if os.path.exists(program):
                os.remove(program)
    return name, result


def run_compile(options):
    import concurrent.futures
    import tempfile

    with open(os.path.join(options.census, "census.json")) as f:
        census = json.load(f)
    backends = options.backends.split(",")
    results_path = os.path.join(options.census, "results.json")
    results = {}
    if os.path.exists(results_path):
        with open(results_path) as f:
            results = json.load(f)
    todo = [e for e in census["entries"] if e.get("exported") and e["name"] not in results]
    with tempfile.TemporaryDirectory() as work, \
            concurrent.futures.ThreadPoolExecutor(options.jobs) as pool:
        futures = [pool.submit(compile_one, options.duet, options.census, e, backends,
                               options.timeout, work) for e in todo]
        for future in concurrent.futures.as_completed(futures):
            name, result = future.result()
            results[name] = result
            print(name, {b: ("ok" if r.get("correct") else "WRONG" if r.get("compiled")
                             else "refused") for b, r in result.items()}, flush=True)
            with open(results_path, "w") as f:
                json.dump(results, f, indent=1)
    print(table(census, results))


def table(census, results):
    entries = census["entries"]
    backends = sorted({b for r in results.values() for b in r})
    lines = ["| library | candidates | built | exported | " +
             " | ".join(f"{b}: compiled / correct" for b in backends) + " |",
             "|---|---|---|---|" + "---|" * len(backends)]
    refusals = collections.Counter()
    for library in sorted({e.get("library", "?") for e in entries}):
        mine = [e for e in entries if e.get("library") == library]
        exported = [e for e in mine if e.get("exported")]
        cells = []
        for b in backends:
            compiled = sum(1 for e in exported if results.get(e["name"], {}).get(b, {}).get("compiled"))
            correct = sum(1 for e in exported if results.get(e["name"], {}).get(b, {}).get("correct"))
            cells.append(f"{compiled} / {correct}")
        lines.append(f"| {library} | {len(mine)} | {sum(1 for e in mine if e.get('built'))} | "
                     f"{len(exported)} | " + " | ".join(cells) + " |")
    for r in results.values():
        first = r.get("portable") or next(iter(r.values()))
        for op in first.get("refused", []):
            refusals[op] += 1
    lines.append("")
    lines.append("Ops that refuse the most exported architectures (portable):")
    lines.append("")
    for op, count in refusals.most_common(25):
        lines.append(f"- `{op}`: {count}")
    return "\n".join(lines) + "\n"


def run_merge(options):
    """Adds the entries and files of other census folders to one."""
    import shutil

    path = os.path.join(options.census, "census.json")
    os.makedirs(options.census, exist_ok=True)
    merged = {"entries": []}
    if os.path.exists(path):
        with open(path) as f:
            merged = json.load(f)
    names = {e["name"] for e in merged["entries"]}
    for source in options.sources:
        with open(os.path.join(source, "census.json")) as f:
            other = json.load(f)
        merged.setdefault("torch", other.get("torch"))
        fresh = [e for e in other["entries"] if e["name"] not in names]
        merged["entries"] += fresh
        names |= {e["name"] for e in fresh}
        for file in os.listdir(source):
            if file not in ("census.json", "results.json"):
                shutil.copy2(os.path.join(source, file), os.path.join(options.census, file))
        print(f"{source}: {len(fresh)} entries added", flush=True)
    merged["candidates"] = len(merged["entries"])
    with open(path, "w") as f:
        json.dump(merged, f, indent=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    export = sub.add_parser("export")
    export.add_argument("--out", required=True)
    export.add_argument("--only", default="timm,torchvision,transformers")
    export.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) - 2))
    export.add_argument("--limit", type=int, default=0)
    export.add_argument("--seconds", type=float, default=420)
    export.add_argument("--models", default="",
                        help="LIB:FAMILY:NAME,...: these candidates instead of the listing")
    export.add_argument("--init", choices=("tiled", "default"), default="tiled",
                        help="tiled: 61-value blocks and calibrated BatchNorm (small archives); "
                             "default: PyTorch's own initialization, statistics untouched")
    export.add_argument("--float64", action="store_true",
                        help="also write NAME.outputK.f64.npy from a float64 copy of the model")
    comp = sub.add_parser("compile")
    comp.add_argument("--census", required=True)
    comp.add_argument("--duet", required=True)
    comp.add_argument("--backends", default="portable,default")
    comp.add_argument("--timeout", type=float, default=120)
    comp.add_argument("--jobs", type=int, default=2)
    tab = sub.add_parser("table")
    tab.add_argument("--census", required=True)
    merge = sub.add_parser("merge", help="add the entries and files of other census folders")
    merge.add_argument("--census", required=True)
    merge.add_argument("sources", nargs="+")
    options = parser.parse_args()
    if options.step == "export":
        os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
        run_export(options)
    elif options.step == "compile":
        run_compile(options)
    elif options.step == "merge":
        run_merge(options)
    else:
        with open(os.path.join(options.census, "census.json")) as f:
            census = json.load(f)
        with open(os.path.join(options.census, "results.json")) as f:
            results = json.load(f)
        print(table(census, results))


if __name__ == "__main__":
    main()
