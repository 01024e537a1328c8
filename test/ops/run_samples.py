#!/usr/bin/env python3
"""Runs the core ATen reference samples (tools/op_samples.py) through duet.

    run_samples.py DIR --backends portable[,xnnpack,vulkan] [--jobs N]
        [--only NAME,...]

For each program of DIR/samples.json and each backend set, compiles
DIR/NAME.pt2 (`duet compile --backends SET`), runs it on the inputs of
DIR/NAME.npz and checks every output against PyTorch's with `duet run
--expect` (element by element, the default bound of the output's dtype). It
prints one line per program and set, names each sample outside the bound with
its dtype, and exits 1 when any program fails to compile or any output is
outside its bound. `duet` must be on PATH.
"""

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile


def check(directory, program, backends, work):
    name = program["name"]
    members = os.path.join(work, name)
    os.makedirs(members, exist_ok=True)
    with zipfile.ZipFile(os.path.join(directory, f"{name}.npz")) as npz:
        npz.extractall(members)
    inputs = [os.path.join(members, f"input{i}.npy") for i in range(program["inputs"])]
    outputs = [os.path.join(members, f"output{i}.npy") for i in range(program["outputs"])]
    lines, failed = [], False
    for backend in backends:
        compiled = os.path.join(work, f"{name}.{backend}.duet")
        done = subprocess.run(["duet", "compile", os.path.join(directory, f"{name}.pt2"),
                               "-o", compiled, "--backends", backend, "-q"],
                              capture_output=True, text=True)
        if done.returncode != 0:
            failed = True
            lines.append(f"FAIL {name} [{backend}]: compile: {done.stderr.strip()[:600]}")
            continue
        command = ["duet", "run", compiled]
        for path in inputs:
            command += ["--input", path]
        command.append("--expect")
        command += outputs
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode == 0:
            lines.append(f"ok   {name} [{backend}]: {len(program['samples'])} samples")
            continue
        failed = True
        text = (done.stdout + done.stderr).strip()
        bad = sorted({int(i) for i in re.findall(r"output (\d+)\b[^\n]*outside", text)})
        owners = [f"{s['dtype']}{' (edge values)' if s['edge'] else ''}"
                  for s in program["samples"]
                  if any(s["outputs"][0] <= i < s["outputs"][1] for i in bad)]
        lines.append(f"FAIL {name} [{backend}]: samples {', '.join(owners) or '?'}: "
                     + text[-800:])
    return failed, lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("directory")
    parser.add_argument("--backends", default="portable")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--only", default="")
    options = parser.parse_args()
    with open(os.path.join(options.directory, "samples.json")) as f:
        manifest = json.load(f)
    only = set(filter(None, options.only.split(",")))
    programs = [p for p in manifest["programs"] if not only or p["name"] in only]
    if only - {p["name"] for p in programs}:
        sys.exit(f"run_samples: no program named {sorted(only - {p['name'] for p in programs})}")
    backends = options.backends.split(",")
    failures = 0
    with tempfile.TemporaryDirectory() as work, \
            concurrent.futures.ThreadPoolExecutor(options.jobs) as pool:
        for failed, lines in pool.map(lambda p: check(options.directory, p, backends, work),
                                      programs):
            failures += failed
            for line in lines:
                print(line, flush=True)
    samples = sum(len(p["samples"]) for p in programs)
    print(f"{len(programs) - failures} of {len(programs)} programs ({samples} samples) pass on "
          f"{', '.join(backends)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
