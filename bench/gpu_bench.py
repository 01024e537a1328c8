#!/usr/bin/env python3
"""duet's Vulkan delegate against PyTorch CUDA on the GPU machine, in one run.

For each model it times, interleaved (the order rotates between repeats, so a
burst of load on the shared machine hits every engine alike):
  - duet:  `duet-run bench PROGRAM --json` on a program compiled here with
           `duet compile MODEL.pt2 --backends vulkan` (runtime-only binary, the
           carried Vulkan loader, the NVIDIA driver); its run includes staging
           the input to the GPU and the output back;
  - eager: torchvision's same architecture on CUDA, fp32, batch 1, the input
           already on the GPU, torch.cuda.synchronize() after each run;
  - graph: the same model captured once as a CUDA graph and replayed.
Each figure is the median over the repeats of each repeat's median. Before
timing, `duet-run run --expect` checks the program's output against the eager
output stored beside the .pt2 (computed on the CPU when it was exported).
Load time (file to ready) is measured cold (an empty pipeline-cache folder)
and warm (the folder the cold load filled), each the median of three loads;
the timed runs use the warm cache.

Usage (on the GPU machine; see docs/performance.md for the whole command):
  bench/gpu_bench.py --duet-run DIR/duet-run --programs DIR [--models a,b]
                     [--repeats 3] [--iterations 200] [--warmup 20]
Programs are DIR/<model>.vulkan.duet; the stored input and eager output are
DIR/<model>.input0.npy and DIR/<model>.output0.npy. Prints a Markdown table.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

import torch


def torch_model(name):
    import torchvision

    torch.manual_seed(0)
    return getattr(torchvision.models, name)(weights=None).eval().cuda()


def time_eager(model, x, iterations, warmup):
    times = []
    with torch.no_grad():
        for i in range(warmup + iterations):
            start = time.perf_counter()
            model(x)
            torch.cuda.synchronize()
            if i >= warmup:
                times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def time_graph(model, x, iterations, warmup):
    static = x.clone()
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.no_grad(), torch.cuda.stream(stream):
        for _ in range(3):
            model(static)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.no_grad(), torch.cuda.graph(graph):
        model(static)
    times = []
    for i in range(warmup + iterations):
        start = time.perf_counter()
        graph.replay()
        torch.cuda.synchronize()
        if i >= warmup:
            times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def duet_bench(duet_run, program, iterations, warmup, cache):
    env = dict(os.environ, DUET_VULKAN_PIPELINE_CACHE=cache)
    proc = subprocess.run([duet_run, "bench", program, "--iterations", str(iterations),
                           "--warmup", str(warmup), "--json"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if proc.returncode != 0:
        sys.exit(f"duet-run bench {program} failed ({proc.returncode}): {proc.stderr}")
    return json.loads(proc.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duet-run", required=True)
    parser.add_argument("--programs", required=True)
    parser.add_argument("--models", default="mobilenet_v3_small")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--cache", default="/tmp/duet-gpu-bench-cache",
                        help="pipeline-cache folder (emptied per model for the cold loads)")
    options = parser.parse_args()

    rows = []
    print(f"# {torch.cuda.get_device_name(0)}, PyTorch {torch.__version__}", flush=True)
    for name in filter(None, options.models.split(",")):
        program = os.path.join(options.programs, f"{name}.vulkan.duet")
        check = subprocess.run(
            [options.duet_run, "run", program, "--input",
             os.path.join(options.programs, f"{name}.input0.npy"), "--expect",
             os.path.join(options.programs, f"{name}.output0.npy")],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print(check.stdout.strip(), flush=True)
        if check.returncode != 0:
            sys.exit(f"{name}: the Vulkan program does not match eager")
        cold, warm = [], []
        for _ in range(3):
            shutil.rmtree(options.cache, ignore_errors=True)
            cold.append(duet_bench(options.duet_run, program, 1, 0, options.cache)["load_ms"])
            warm.append(duet_bench(options.duet_run, program, 1, 0, options.cache)["load_ms"])
        model = torch_model(name)
        x = torch.randn(1, 3, 224, 224, device="cuda")
        results = {"duet": [], "eager": [], "graph": [], "cold": cold, "warm": warm}
        engines = ["duet", "eager", "graph"]
        for repeat in range(options.repeats):
            for engine in engines[repeat % 3:] + engines[:repeat % 3]:
                if engine == "duet":
                    out = duet_bench(options.duet_run, program, options.iterations,
                                     options.warmup, options.cache)
                    results["duet"].append(out["median_ms"])
                elif engine == "eager":
                    results["eager"].append(time_eager(model, x, options.iterations,
                                                       options.warmup))
                else:
                    results["graph"].append(time_graph(model, x, options.iterations,
                                                       options.warmup))
        med = {k: statistics.median(v) for k, v in results.items()}
        rows.append((name, med))
        print(f"{name}: {json.dumps(results)}", flush=True)

    print("\n| model | duet Vulkan ms | PyTorch CUDA eager ms | CUDA graph replay ms "
          "| duet / eager | duet / graph | load cold ms | load warm ms |")
    print("|---|---|---|---|---|---|---|---|")
    for name, m in rows:
        print(f"| {name} | {m['duet']:.2f} | {m['eager']:.2f} | {m['graph']:.2f} | "
              f"{m['duet'] / m['eager']:.2f} | {m['duet'] / m['graph']:.1f} | "
              f"{m['cold']:.0f} | {m['warm']:.0f} |")


if __name__ == "__main__":
    main()
