#!/usr/bin/env python3
"""Regenerates a built-in target profile's costs from measurements, in one command.

    python3 bench/regenerate_costs.py --profile host-cpu [--backends xnnpack,portable]
        [--models test/zoo] [--limit N] [--iterations N] [--threads N] [--write]

For every zoo model (`MODELS/*.aten.pt2`), it compiles one program per backend with
`duet compile --backends B --target-profile PROFILE`, then times them all with
`duet-run tune` (docs/profiles.md, "Tuning"), which scales each backend's costs by
measured over estimated time. The result's `costs` replace those of
`partitioners/vulkan/profiles/PROFILE.json` when `--write` is given (the limits, name
and source of the profile stay); without it the old and new numbers are only printed.
The new `costs.source` says what was measured, on which machine (CPU model, Vulkan
device), when, from which tree and which programs, followed by tune's own account of
its scales.

Run it where the profile's device is: `host-cpu` and `lavapipe` on the build machine
(`VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json` for lavapipe's Vulkan
half), `nvidia-desktop` on the GPU machine with the runtime-only tools carried there
(`--duet-run`, and programs compiled here with `--compile-only`, then `--programs`).
Rerun it whenever kernels change, then `duet-docgen profiles --update docs/profiles.md`
if a source changed the generated table, and the placement tests.

Needs only the standard library.
"""

import argparse
import datetime
import glob
import json
import os
import platform
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROFILES = os.path.join(ROOT, "partitioners", "vulkan", "profiles")
DEFAULT_BACKENDS = {"host-cpu": "xnnpack,portable"}
KEYS = ("call_us", "op_us", "transfer_us", "transfer_bytes_per_us", "gemm_macs_per_us",
        "elementwise_per_us", "reduce_per_us", "data_per_us")


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "an unknown CPU"


def vulkan_device(duet):
    """The device duet's Vulkan delegate would run on here, or None."""
    try:
        out = subprocess.run([duet, "devices", "--json"], capture_output=True, text=True,
                             timeout=60)
        listing = json.loads(out.stdout)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None
    for device in listing if isinstance(listing, list) else []:
        if device.get("selected"):
            return device.get("name")
    return None


def tree():
    try:
        rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "-uno"],
                               capture_output=True, text=True).stdout.strip()
        return rev + (" with uncommitted changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "an unknown tree"


def compile_programs(args, backends, work):
    models = sorted(glob.glob(os.path.join(args.models, "*.aten.pt2")))
    if args.limit:
        models = models[:args.limit]
    if not models:
        sys.exit(f"regenerate_costs.py: no *.aten.pt2 in {args.models}")
    programs, failed = [], []
    for model in models:
        stem = os.path.basename(model)[: -len(".aten.pt2")]
        for backend in backends:
            out = os.path.join(work, f"{stem}.{backend}.duet")
            result = subprocess.run(
                [args.duet, "compile", model, "-o", out, "--backends", backend,
                 "--target-profile", args.profile], capture_output=True, text=True)
            if result.returncode != 0:
                failed.append(f"{stem} ({backend}): {result.stderr.strip().splitlines()[-1:]}")
                continue
            programs.append(out)
    return models, programs, failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", required=True, help="a built-in profile's name")
    parser.add_argument("--backends", help="comma-separated (default: vulkan,xnnpack,portable; "
                        "xnnpack,portable for host-cpu)")
    parser.add_argument("--models", default=os.path.join(ROOT, "test", "zoo"))
    parser.add_argument("--limit", type=int, default=0, help="only the first N models")
    parser.add_argument("--duet", default=os.path.join(ROOT, "build", "bin", "duet"))
    parser.add_argument("--duet-run", default=None, help="default: beside --duet")
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--threads", type=int, default=1,
                        help="XNNPACK threads while timing (default 1: the costs are "
                             "one thread's, as the built-in profiles state)")
    parser.add_argument("--compile-only", metavar="DIR",
                        help="compile the programs into DIR and stop (to time them elsewhere)")
    parser.add_argument("--programs", metavar="DIR",
                        help="time the programs already in DIR instead of compiling")
    parser.add_argument("--write", action="store_true",
                        help="write the new costs into the built-in profile")
    args = parser.parse_args()

    path = os.path.join(PROFILES, f"{args.profile}.json")
    if not os.path.exists(path):
        names = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(PROFILES, "*.json")))
        sys.exit(f"regenerate_costs.py: no built-in profile '{args.profile}' "
                 f"({PROFILES}); the built-in profiles are {', '.join(names)}")
    backends = (args.backends or DEFAULT_BACKENDS.get(args.profile,
                                                      "vulkan,xnnpack,portable")).split(",")
    duet_run = args.duet_run or os.path.join(os.path.dirname(args.duet), "duet-run")

    with tempfile.TemporaryDirectory() as scratch:
        failed = []
        if args.programs:
            programs = sorted(glob.glob(os.path.join(args.programs, "*.duet")))
            models = sorted({os.path.basename(p).split(".")[0] for p in programs})
        else:
            work = args.compile_only or scratch
            os.makedirs(work, exist_ok=True)
            models, programs, failed = compile_programs(args, backends, work)
            for line in failed:
                print(f"not compiled: {line}", file=sys.stderr)
            if args.compile_only:
                print(f"{len(programs)} programs in {work}")
                return 0
        if not programs:
            sys.exit("regenerate_costs.py: no program to time")
        tuned_path = os.path.join(scratch, "tuned.json")
        command = [duet_run, "tune", *programs, "-o", tuned_path, "--name", args.profile,
                   "--iterations", str(args.iterations), "--threads", str(args.threads)]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"regenerate_costs.py: duet-run tune failed:\n{result.stderr}")
        with open(tuned_path) as f:
            tuned = json.load(f)["costs"]

    with open(path) as f:
        profile = json.load(f)
    old = profile.get("costs", {})
    device = vulkan_device(args.duet) if "vulkan" in backends else None
    when = datetime.date.today().isoformat()
    tuned["source"] = (
        f"Regenerated by bench/regenerate_costs.py on {when} from tree {tree()}: "
        f"{len(programs)} programs ({', '.join(backends)}) of {len(models)} models of "
        f"{os.path.relpath(args.models, ROOT)}, timed on {cpu_model()} "
        f"({os.cpu_count()} CPUs, XNNPACK on {args.threads} thread(s))"
        + (f" and the Vulkan device {device}" if device else "")
        + ". duet-run tune: " + tuned.get("source", ""))

    print(f"{'backend':10} {'key':24} {'old':>12} {'new':>12}")
    for backend in ("vulkan", "xnnpack", "portable"):
        for key in KEYS:
            before = old.get(backend, {}).get(key)
            after = tuned.get(backend, {}).get(key)
            print(f"{backend:10} {key:24} {before!s:>12} {after!s:>12}")
    print(tuned["source"])

    if args.write:
        profile["costs"] = tuned
        temporary = path + ".tmp"
        with open(temporary, "w") as f:
            json.dump(profile, f, indent=2)
            f.write("\n")
        os.replace(temporary, path)
        print(f"wrote {os.path.relpath(path, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
