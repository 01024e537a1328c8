#!/usr/bin/env python3
"""Writes the seed corpus of one fuzz target from the repository's fixtures:
`make_seeds.py TARGET OUT_DIR [--duet PATH]`.

fuzz-import   test/models/*.pt2 and test/census/*.pt2 as they are.
fuzz-program  each test/models/*.aten.pt2 compiled by `duet compile` for the
              backend sets xnnpack, vulkan, vulkan,xnnpack and portable, and
              each *.training.pt2 for portable: the TRAINING graphs keep ops
              that run_decompositions() rewrites (upsample_bicubic2d, topk),
              so their portable kernels are reached too.
fuzz-npy      test/runtime/core/Inputs/*.npy and test/models/*.npy.

Nothing binary is committed: the seeds are made where the fuzzers run. A
compiled seed is kept while it is newer than its model and the duet binary,
so a second run compiles nothing. Only the standard library is used.
"""
import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = os.path.join(ROOT, "test", "models")
CENSUS = os.path.join(ROOT, "test", "census")
BACKEND_SETS = ["xnnpack", "vulkan", "vulkan,xnnpack", "portable"]


def files(folder, suffix):
    return sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(suffix))


def copy_all(paths, out):
    for path in paths:
        shutil.copyfile(path, os.path.join(out, os.path.basename(path)))
    return len(paths)


def compile_one(duet, model, backends, target):
    if (os.path.exists(target) and os.path.getmtime(target) >= os.path.getmtime(model)
            and os.path.getmtime(target) >= os.path.getmtime(duet)):
        return True
    result = subprocess.run([duet, "compile", model, "-o", target, "--backends", backends],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        # A model one backend set cannot take is no seed; the others are.
        print(f"make_seeds.py: {os.path.basename(model)} --backends {backends}: "
              f"{result.stderr.strip().splitlines()[-1] if result.stderr.strip() else 'failed'}",
              file=sys.stderr)
        return False
    return True


def program_seeds(duet, out):
    if not duet or not os.access(duet, os.X_OK):
        # A machine the fuzz binaries were copied to may have the seeds
        # compiled elsewhere, but no duet.
        made = files(out, ".duet")
        if made:
            print(f"make_seeds.py: no duet binary; keeping the {len(made)} compiled seeds "
                  f"in {out}", file=sys.stderr)
            return len(made)
        sys.exit("make_seeds.py: fuzz-program seeds need a duet binary (--duet PATH), "
                 "or seeds compiled elsewhere in OUT_DIR")
    env_opts = os.environ.get("ASAN_OPTIONS", "")
    # The instrumented duet leaks nothing, but its leak check costs time here.
    os.environ["ASAN_OPTIONS"] = "allow_user_poisoning=0:detect_leaks=0" + (
        ":" + env_opts if env_opts else "")
    jobs = []
    for model in files(MODELS, ".aten.pt2"):
        stem = os.path.basename(model)[: -len(".aten.pt2")]
        for backends in BACKEND_SETS:
            target = os.path.join(out, f"{stem}.{backends.replace(',', '+')}.duet")
            jobs.append((duet, model, backends, target))
    for model in files(MODELS, ".training.pt2"):
        stem = os.path.basename(model)[: -len(".training.pt2")]
        target = os.path.join(out, f"{stem}.training.portable.duet")
        jobs.append((duet, model, "portable", target))
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        done = list(pool.map(lambda job: compile_one(*job), jobs))
    return sum(done)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", choices=["fuzz-import", "fuzz-program", "fuzz-npy"])
    parser.add_argument("out")
    parser.add_argument("--duet", help="the duet binary that compiles fuzz-program's seeds")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.target == "fuzz-import":
        count = copy_all(files(MODELS, ".pt2") + files(CENSUS, ".pt2"), args.out)
    elif args.target == "fuzz-npy":
        count = copy_all(files(os.path.join(ROOT, "test", "runtime", "core", "Inputs"), ".npy")
                         + files(MODELS, ".npy"), args.out)
    else:
        count = program_seeds(args.duet, args.out)
    if count == 0:
        sys.exit(f"make_seeds.py: no seeds for {args.target}")
    print(f"{args.target}: {count} seeds in {args.out}")


if __name__ == "__main__":
    main()
