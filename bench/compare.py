#!/usr/bin/env python3
"""Run-time comparison for docs/performance.md: duet with its XNNPACK delegate
against ONNX Runtime (CPU provider, npm onnxruntime-node) and eager PyTorch
(Debian's python3-torch 1.13), on the same machine, at the same thread counts,
interleaved: every repeat runs each engine once per thread count, in an order
that rotates between repeats, so that a burst of load on a shared machine
hits all of them alike.

Models: MobileNetV3-Small (examples/mobilenet_v3_small.pt2) and MobileNetV2
(bench/models/mobilenet_v2.pt2). duet compiles the .pt2 files; ONNX Runtime
and PyTorch run torchvision's same architectures built by bench/torch_models.py
(same seed, weights need not be identical for latency).

Each measurement is one process: `duet bench --json`, bench/ort_bench.js, or
bench/torch_models.py bench, each printing median/min/max latency and the
load time (file read to ready-to-run; for PyTorch, model construction).

Usage: bench/compare.py [--build-dir build] [--threads 1,2] [--repeats 5]
                        [--iterations 200] [--models NAME,...]
Needs node and npm (ONNX Runtime is installed into bench/ort with
`npm install --ignore-scripts onnxruntime-node` when missing) and
/usr/bin/python3 with torch and torchvision (`apt-get install python3-torch
python3-torchvision`). Prints a Markdown table.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
OUT = os.path.join(BENCH, "out")
ORT = os.path.join(BENCH, "ort")
TORCH_PYTHON = "/usr/bin/python3"

MODELS = {
    "mobilenet_v3_small": os.path.join(REPO, "examples", "mobilenet_v3_small.pt2"),
    "mobilenet_v2": os.path.join(BENCH, "models", "mobilenet_v2.pt2"),
}
INPUT_SHAPE = [1, 3, 224, 224]
ENGINES = ["duet", "onnxruntime", "pytorch"]


def run_json(cmd, env=None):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env=env)
    if proc.returncode != 0:
        sys.exit(f"error: {' '.join(cmd)} failed ({proc.returncode}): "
                 f"{proc.stderr.strip()}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def machine():
    model, cpus = "unknown CPU", os.cpu_count()
    try:
        out = subprocess.run(["lscpu"], stdout=subprocess.PIPE, text=True).stdout
        for line in out.splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "Model name":
                model = value.strip()
    except OSError:
        pass
    return f"{model}, {cpus} cores"


def load_average():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def prepare(args):
    duet = os.path.join(args.build_dir, "bin", "duet")
    if not os.access(duet, os.X_OK):
        sys.exit(f"error: {duet} not found; build duet first or pass --build-dir")
    if not os.path.isdir(os.path.join(ORT, "node_modules", "onnxruntime-node")):
        os.makedirs(ORT, exist_ok=True)
        print("installing onnxruntime-node into bench/ort ...", file=sys.stderr)
        subprocess.run(["npm", "install", "--prefix", ORT, "--ignore-scripts",
                        "--no-audit", "--no-fund", "onnxruntime-node"],
                       check=True, stdout=subprocess.DEVNULL)
    os.makedirs(OUT, exist_ok=True)
    files = {}
    for name in args.models:
        program = os.path.join(OUT, f"{name}.duet")
        subprocess.run([duet, "compile", MODELS[name], "-o", program,
                        "--backends", "xnnpack", "-q"], check=True)
        onnx = os.path.join(OUT, f"{name}.onnx")
        if not os.path.exists(onnx):
            subprocess.run([TORCH_PYTHON, os.path.join(BENCH, "torch_models.py"),
                            "export", name, onnx], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        files[name] = (program, onnx)
    return duet, files


def measure(engine, name, threads, files, duet, args):
    program, onnx = files[name]
    common = ["--threads", str(threads), "--iterations", str(args.iterations),
              "--warmup", str(args.warmup)]
    if engine == "duet":
        return run_json([duet, "bench", program, "--json"] + common)
    if engine == "onnxruntime":
        env = dict(os.environ, NODE_PATH=os.path.join(ORT, "node_modules"),
                   DUET_BENCH_SHAPES=json.dumps({"x": INPUT_SHAPE}))
        return run_json(["node", os.path.join(BENCH, "ort_bench.js"), onnx]
                        + common, env=env)
    # Eager PyTorch 1.13 is an order of magnitude slower here: a tenth of the
    # runs keeps a repeat short enough for the engines to stay interleaved.
    few = ["--threads", str(threads), "--iterations",
           str(max(10, args.iterations // 10)), "--warmup",
           str(max(2, args.warmup // 10))]
    return run_json([TORCH_PYTHON, os.path.join(BENCH, "torch_models.py"),
                     "bench", name] + few)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", default=os.path.join(REPO, "build"))
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--models", default=",".join(MODELS))
    args = parser.parse_args()
    args.models = args.models.split(",")
    threads = [int(t) for t in args.threads.split(",")]

    duet, files = prepare(args)
    results = {}
    loads = [load_average()]
    started = time.time()
    order = list(ENGINES)
    for repeat in range(args.repeats):
        for name in args.models:
            for t in threads:
                for engine in order:
                    r = measure(engine, name, t, files, duet, args)
                    results.setdefault((name, t, engine), []).append(r)
        order = order[1:] + order[:1]
        loads.append(load_average())
        print(f"repeat {repeat + 1}/{args.repeats} done", file=sys.stderr)

    print(f"Machine: {machine()}. {args.repeats} interleaved repeats of "
          f"{args.iterations} timed runs (after {args.warmup} warm-up; PyTorch "
          f"a tenth of that) per engine, model and thread count, "
          f"{time.time() - started:.0f} s; 1-minute load average "
          f"{min(loads)} to {max(loads)}.\n")
    print("| model | threads | engine | median ms | best median ms | min ms | load ms |")
    print("|---|---|---|---|---|---|---|")
    for name in args.models:
        for t in threads:
            for engine in ENGINES:
                runs = results[(name, t, engine)]
                medians = [r["median_ms"] for r in runs]
                print(f"| {name} | {t} | {engine} "
                      f"| {statistics.median(medians):.2f} "
                      f"| {min(medians):.2f} "
                      f"| {min(r['min_ms'] for r in runs):.2f} "
                      f"| {statistics.median(r['load_ms'] for r in runs):.1f} |")


if __name__ == "__main__":
    main()
