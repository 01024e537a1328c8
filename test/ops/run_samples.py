#!/usr/bin/env python3
"""Runs the core ATen reference samples (tools/op_samples.py) through duet.

    run_samples.py DIR|ARCHIVE.tar.xz --backends portable[,xnnpack,vulkan]
        [--jobs N] [--only NAME,...] [--known FILE [--update-known]]
        [--compile-only]

For each program of DIR/samples.json and each backend set, compiles
DIR/NAME.pt2 (`duet compile --backends SET`), runs it on the inputs of
DIR/NAME.npz and checks every output against PyTorch's with `duet run
--expect` (element by element, the default bound of the output's dtype). It
prints one line per program and set, names each sample outside the bound with
its dtype, and exits 1 when any program fails to compile or any output is
outside its bound. The index outputs of sort, argsort and topk may differ from
PyTorch's where elements are equal (PyTorch leaves that order unspecified):
such a program passes when its values equal PyTorch's and each index points,
once per line, at its value (--self-test checks that check). An output outside
the bound for which the samples hold a float64 reference (`outputK_f64`,
written by op_samples.py for float16 and bfloat16 samples) passes when duet is
no further from it than PyTorch is: the float64 rule of docs/reliability.md. `duet` must be on PATH. An archive (test/ops/samples.tar.xz,
written by test/ops/pack_samples.py) is unpacked into a temporary folder first.

--known FILE lists the failures that are known, one per line:
    PROGRAM BACKEND REASON...
(`#` starts a comment; BACKEND may be `*` for every set). A known failure
that fails is reported as XFAIL and does not fail the run; one that passes is
reported as XPASS and fails it, so the list can only shrink as duet improves;
every other failure fails the run as before. --update-known rewrites FILE
instead: lines of programs that now pass go, new failures (and failures of
another kind than their line says) come in with a reason read from the error,
marked "# new: check this reason" (check it, then drop the mark), and the
comments at the top stay.
"""

import argparse
import concurrent.futures
import ast
import json
import math
import os
import re
import struct
import subprocess
import sys
import tarfile
import tempfile
import zipfile

# The OpInfos whose index outputs order equal elements: PyTorch leaves the
# order of ties unspecified (sort's stable=False, topk), so an index output
# that differs from PyTorch's is checked by what it points at instead. The
# value is where each sample's outputs are: values and indices, or indices.
ORDERINGS = {"sort": ("values", "indices"), "topk": ("values", "indices"),
             "argsort": ("indices",), "kthvalue": ("values", "indices"),
             "median": ("values", "indices"), "nanmedian": ("values", "indices")}
NPY_TYPES = {"<f4": "f", "<f2": "e", "<f8": "d", "<i8": "q", "<i4": "i", "<i2": "h",
             "|i1": "b", "|u1": "B", "|b1": "?"}


def load_npy(path):
    """(shape, flat list of values) of a .npy file, without NumPy."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError(f"{path}: not a .npy file")
    length, start = (struct.unpack("<H", data[8:10])[0], 10) if data[6] == 1 else \
        (struct.unpack("<I", data[8:12])[0], 12)
    header = ast.literal_eval(data[start:start + length].decode("latin1"))
    if header["fortran_order"] or header["descr"] not in NPY_TYPES:
        raise ValueError(f"{path}: {header['descr']} (Fortran order {header['fortran_order']})")
    shape = tuple(header["shape"])
    count = math.prod(shape)
    code = NPY_TYPES[header["descr"]]
    return shape, list(struct.unpack(f"<{count}{code}", data[start + length:][:count * struct.calcsize(code)]))


def same_value(a, b):
    return a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b))


def strides(shape):
    out, step = [], 1
    for size in reversed(shape):
        out.insert(0, step)
        step *= size
    return out


def picked(x_shape, x, out_shape, indices, dim):
    """The elements of x that `indices` (of out_shape, x's shape but along
    `dim`) picks along `dim`; None when an index is out of range or repeats
    within its line."""
    if len(out_shape) == len(x_shape) - 1:  # one element per line, dim dropped
        out_shape = tuple(out_shape[:dim]) + (1,) + tuple(out_shape[dim:])
    if len(out_shape) != len(x_shape) or any(
            x_shape[d] != out_shape[d] for d in range(len(x_shape)) if d != dim):
        return None
    x_strides, out_strides = strides(x_shape), strides(out_shape)
    out, seen = [], set()
    for flat, i in enumerate(indices):
        coords = [(flat // out_strides[d]) % out_shape[d] for d in range(len(out_shape))]
        line = tuple(c for d, c in enumerate(coords) if d != dim)
        if not 0 <= i < x_shape[dim] or (line, i) in seen:
            return None
        seen.add((line, i))
        out.append(x[sum((i if d == dim else c) * x_strides[d] for d, c in enumerate(coords))])
    return out


def order_valid(x_shape, x, out_shape, values, indices):
    """Whether `indices` picks `values` out of x along some dim, each line's
    indices distinct: a valid answer of an ordering op whatever order it
    gives ties."""
    if not x_shape:  # a 0-d input is one element, index 0
        return all(i == 0 for i in indices) and all(same_value(v, x[0]) for v in values)
    for dim in range(len(x_shape)):
        got = picked(x_shape, x, out_shape, indices, dim)
        if got is not None and len(got) == len(values) and all(map(same_value, got, values)):
            return True
    return False


def ties_explain(members, ours, program):
    """Whether every sample of an ordering program is right up to the order
    of ties: its values equal PyTorch's, its indices point at them."""
    for sample in program["samples"]:
        # median over every element returns the value alone.
        kinds = ORDERINGS[program["opinfo"]][:len(sample["outputs"])]
        first_in, first_out = sample["inputs"][0], sample["outputs"][0]
        x_shape, x = load_npy(os.path.join(members, f"input{first_in}.npy"))
        ref = {k: load_npy(os.path.join(members, f"output{first_out + n}.npy"))
               for n, k in enumerate(kinds)}
        got = {k: load_npy(os.path.join(ours, f"output{first_out + n}.npy"))
               for n, k in enumerate(kinds)}
        if "indices" not in kinds:
            (_, want), (_, have) = ref["values"], got["values"]
            if len(want) != len(have) or not all(map(same_value, want, have)):
                return False
            continue
        shape, indices = got["indices"]
        if "values" in kinds:
            (_, want), (_, have) = ref["values"], got["values"]
            if len(want) != len(have) or not all(map(same_value, want, have)):
                return False
            if not order_valid(x_shape, x, shape, want, indices):
                return False
            continue
        # argsort: along some dim, both pick the same values.
        _, ref_indices = ref["indices"]
        if not x_shape:
            if not order_valid(x_shape, x, shape, x * len(indices), indices):
                return False
            continue
        if not any(want is not None and order_valid(x_shape, x, shape, want, indices)
                   for want in (picked(x_shape, x, shape, ref_indices, dim)
                                for dim in range(len(x_shape)))):
            return False
    return True


def failure_reason(line):
    """A short reason for a FAIL line, for --update-known."""
    rest = line.split("]: ", 1)[1]
    if not rest.startswith("compile:"):
        dtypes = re.match(r"samples ([^:]*):", rest)
        return f"outside the bound: {dtypes.group(1) if dtypes else '?'}"
    if "mutates its input" in rest:
        return "refused by design: the program updates an input in place"
    if "symbolic dimensions" in rest:
        return "refused by design: an output shape depends on the data"
    if "draws random numbers" in rest:
        return "refused by design: random draws"
    if "a gradient op" in rest:
        return "refused by design: a gradient op"
    if "unsupported dtype 10" in rest:
        return "complex tensors (dtype 10) are not supported"
    unverified = re.search(r"'aten\.(\w+)' op (.*)", rest)
    if "does not verify" in rest and unverified:
        op, message = unverified.groups()
        if "must be statically shaped tensor" in message:
            return f"aten.{op} takes float operands only (integer samples refused)"
        return f"aten.{op}: {message[:80]}"
    target = re.search(r"\((torch\.ops\.[\w.]+)\): (.*)", rest)
    if "op not supported by duet" in rest and target:
        return f"not imported: {target.group(1)[len('torch.ops.'):]}"
    if target:
        return f"refused: {target.group(1)[len('torch.ops.'):]}: {target.group(2)[:90]}"
    return "refused: " + re.sub(r"^compile: error: \S+: ", "", rest)[:100]


def write_known(path, known, results):
    """Rewrites the known-failures file from this run's results."""
    with open(path) as f:
        header = [line for line in f if line.startswith("#")]
    lines = []
    for (name, backend), (failed, line) in sorted(results.items()):
        if not failed:
            continue
        # A reason of the same kind as today's failure stays (it may have
        # been written by hand); else today's, marked for a look.
        reason, fresh = known.get((name, backend)) or known.get((name, "*")), failure_reason(line)
        if reason is None or reason.split(":")[0] != fresh.split(":")[0]:
            reason = fresh + "  # new: check this reason"
        lines.append(f"{name} {backend} {reason}\n")
    with open(path, "w") as f:
        f.writelines(header + lines)
    print(f"{path}: {len(lines)} known failures written")


def unpack(archive, folder):
    """Extracts a samples archive: plain files under one folder only (the
    "data" filter of Python 3.11.4 and later, written out for the 3.11.2 of
    Debian 12)."""
    for member in archive.getmembers():
        parts = member.name.split("/")
        if not member.isfile() or member.name.startswith("/") or ".." in parts:
            sys.exit(f"run_samples: {member.name} in the archive is not a plain file "
                     "inside it")
    archive.extractall(folder)


def read_known(path):
    """{(program, backend): reason} from a --known file."""
    known = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split(None, 2)
            if len(parts) < 3:
                sys.exit(f"run_samples: {path}:{number}: expected 'PROGRAM BACKEND REASON', "
                         f"got '{line}'")
            known[(parts[0], parts[1])] = parts[2]
    return known


def float64_explains(members, ours, outside):
    """The float64 rule (docs/reliability.md) for outputs outside the bound:
    each such output has a float64 reference (outputK_f64 in the samples'
    .npz, the op run on the same inputs in float64) and, over the elements
    where duet differs from PyTorch, duet's non-finite values are the
    reference's and its largest distance from the reference is no larger
    than PyTorch's."""
    for index in outside:
        wide_path = os.path.join(members, f"output{index}_f64.npy")
        if not os.path.exists(wide_path):
            return False
        _, wide = load_npy(wide_path)
        _, theirs = load_npy(os.path.join(members, f"output{index}.npy"))
        _, mine = load_npy(os.path.join(ours, f"output{index}.npy"))
        if not len(wide) == len(theirs) == len(mine):
            return False
        mine_error = theirs_error = 0.0
        for exact, a, b in zip(wide, mine, theirs):
            if same_value(a, b):  # where duet gives PyTorch's value, it is not wrong
                continue
            if not math.isfinite(a) or not math.isfinite(exact):
                if not same_value(a, exact):
                    return False
                continue
            mine_error = max(mine_error, abs(a - exact))
            theirs_error = max(theirs_error, abs(b - exact) if math.isfinite(b) else math.inf)
        if mine_error > theirs_error:
            return False
    return True


def check(directory, program, backends, work, compile_only=False):
    name = program["name"]
    members = os.path.join(work, name)
    os.makedirs(members, exist_ok=True)
    with zipfile.ZipFile(os.path.join(directory, f"{name}.npz")) as npz:
        npz.extractall(members)
    inputs = [os.path.join(members, f"input{i}.npy") for i in range(program["inputs"])]
    outputs = [os.path.join(members, f"output{i}.npy") for i in range(program["outputs"])]
    lines = []
    for backend in backends:
        compiled = os.path.join(work, f"{name}.{backend}.duet")
        done = subprocess.run(["duet", "compile", os.path.join(directory, f"{name}.pt2"),
                               "-o", compiled, "--backends", backend, "-q"],
                              capture_output=True, text=True)
        if done.returncode != 0:
            lines.append((backend, True,
                          f"FAIL {name} [{backend}]: compile: {done.stderr.strip()[:600]}"))
            continue
        if compile_only:
            lines.append((backend, False, f"ok   {name} [{backend}]: compiles"))
            continue
        command = ["duet", "run", compiled]
        for path in inputs:
            command += ["--input", path]
        command.append("--expect")
        command += outputs
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode == 0:
            lines.append((backend, False,
                          f"ok   {name} [{backend}]: {len(program['samples'])} samples"))
            continue
        text = done.stdout + done.stderr
        outside = sorted({int(i) for i in re.findall(r"^output (\d+) .*MISMATCH$", text, re.M)})
        if done.returncode == 6 and outside:
            ours = os.path.join(work, f"{name}.{backend}.outputs")
            os.makedirs(ours, exist_ok=True)
            rerun = command[:command.index("--expect")] + ["--output-dir", ours, "-q"]
            written = subprocess.run(rerun, capture_output=True).returncode == 0
            if written and program["opinfo"] in ORDERINGS and \
                    ties_explain(members, ours, program):
                lines.append((backend, False, f"ok   {name} [{backend}]: "
                              f"{len(program['samples'])} samples (indices differ from "
                              "PyTorch's among equal elements; each points at its value)"))
                continue
            if written and float64_explains(members, ours, outside):
                lines.append((backend, False, f"ok   {name} [{backend}]: "
                              f"{len(program['samples'])} samples ({len(outside)} outputs "
                              "outside the bound are no further from float64 than PyTorch's)"))
                continue
        text = (done.stdout + done.stderr).strip()
        bad = sorted({int(i) for i in re.findall(r"output (\d+)\b[^\n]*outside", text)})
        owners = [f"{s['dtype']}{' (edge values)' if s['edge'] else ''}"
                  for s in program["samples"]
                  if any(s["outputs"][0] <= i < s["outputs"][1] for i in bad)]
        # The outputs outside their bound, not the many within it.
        detail = "\n".join(line for line in text.splitlines()
                           if not line.endswith(" ok") and not line.startswith(("note:", "duet: ran")))
        lines.append((backend, True, f"FAIL {name} [{backend}]: samples "
                      f"{', '.join(owners) or '?'}: " + (detail or text)[:1200]))
    return lines


def self_test():
    """order_valid on answers known right and wrong; exits 1 on a surprise."""
    x = [3.0, 1.0, 3.0, float("nan")]  # sorted descending: nan, 3, 3, 1
    values = [float("nan"), 3.0, 3.0, 1.0]
    cases = [([3, 0, 2, 1], True, "PyTorch's order"),
             ([3, 2, 0, 1], True, "the tie swapped"),
             ([3, 0, 0, 1], False, "one index twice"),
             ([3, 0, 1, 2], False, "an index at another value"),
             ([3, 0, 2, 4], False, "an index past the end")]
    failed = 0
    for indices, expected, what in cases:
        if order_valid((4,), x, (4,), values, indices) != expected:
            failed += 1
            print(f"self-test: {what}: order_valid gave {not expected}")
    # Along dim 1 of [2, 2]: rows [5, 5] and [2, 7], each sorted ascending.
    if not order_valid((2, 2), [5, 5, 2, 7], (2, 2), [5, 5, 2, 7], [1, 0, 0, 1]) or \
            order_valid((2, 2), [5, 5, 2, 7], (2, 2), [5, 5, 2, 7], [1, 0, 1, 0]):
        failed += 1
        print("self-test: a 2-D sort along dim 1 was judged wrongly")
    print("self-test:", "FAILED" if failed else "passed")
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("directory")
    parser.add_argument("--backends", default="portable")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--only", default="")
    parser.add_argument("--known", help="a file of known failures (see above)")
    parser.add_argument("--compile-only", action="store_true",
                        help="compile each program, run none; known failures of running "
                             "(outside the bound) are not judged")
    parser.add_argument("--update-known", action="store_true",
                        help="rewrite the --known file from this run (see above)")
    parser.add_argument("--self-test", action="store_true",
                        help="check the checker of ordering ops, and exit")
    if "--self-test" in sys.argv[1:]:
        return self_test()
    options = parser.parse_args()
    known = read_known(options.known) if options.known else {}
    with tempfile.TemporaryDirectory() as unpacked:
        if os.path.isfile(options.directory):
            with tarfile.open(options.directory) as archive:
                unpack(archive, unpacked)
            folders = [d for d in os.listdir(unpacked)
                       if os.path.isfile(os.path.join(unpacked, d, "samples.json"))]
            if len(folders) != 1:
                sys.exit(f"run_samples: {options.directory} holds no single folder with a "
                         "samples.json")
            options.directory = os.path.join(unpacked, folders[0])
        return run(options, known)


def run(options, known):
    with open(os.path.join(options.directory, "samples.json")) as f:
        manifest = json.load(f)
    only = set(filter(None, options.only.split(",")))
    programs = [p for p in manifest["programs"] if not only or p["name"] in only]
    if only - {p["name"] for p in programs}:
        sys.exit(f"run_samples: no program named {sorted(only - {p['name'] for p in programs})}")
    backends = options.backends.split(",")
    names = {p["name"] for p in programs}
    stale = sorted(k for k in known if k[0] not in names and not only)
    failures, expected, unexpected_passes = 0, 0, []
    results = {}
    with tempfile.TemporaryDirectory() as work, \
            concurrent.futures.ThreadPoolExecutor(options.jobs) as pool:
        for lines in pool.map(lambda p: check(options.directory, p, backends, work,
                                              options.compile_only), programs):
            for backend, failed, line in lines:
                name = line.split()[1]
                results[(name, backend)] = (failed, line)
                reason = known.get((name, backend), known.get((name, "*")))
                if options.compile_only and reason and reason.startswith("outside the bound"):
                    reason = None  # a failure of running, which this run does not judge
                if reason is not None and failed:
                    expected += 1
                    line = f"XFAIL {name} [{backend}]: {reason}"
                elif reason is not None:
                    unexpected_passes.append(f"{name} {backend}")
                    line = (f"XPASS {name} [{backend}]: passes, but the known failures list "
                            f"it ({reason}); remove it from that list")
                failures += failed and reason is None
                print(line, flush=True)
    samples = sum(len(p["samples"]) for p in programs)
    runs = len(programs) * len(backends)
    print(f"{runs - failures - expected} of {runs} program runs ({len(programs)} programs, "
          f"{samples} samples; {', '.join(backends)}) pass; {expected} known failures; "
          f"{failures} unexpected failures; {len(unexpected_passes)} unexpected passes")
    for name, backend in stale:
        print(f"note: the known failures name '{name}', which is not among the programs")
    if options.update_known:
        if not options.known or only or options.compile_only:
            sys.exit("run_samples: --update-known needs --known and every program run (no "
                     "--only, no --compile-only)")
        write_known(options.known, known, results)
        return 0
    return 1 if failures or unexpected_passes else 0


if __name__ == "__main__":
    sys.exit(main())
