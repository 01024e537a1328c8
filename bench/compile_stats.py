#!/usr/bin/env python3
"""Compile-side figures of duet for docs/performance.md: the time `duet compile`
takes on the bundled models (median of several runs, wall clock of the whole
process) and, for every model and fixture, the arena the memory planner chose
against its lower bound (the most bytes alive at once).

Usage: bench/compile_stats.py [--build-dir build] [--runs 11] [--backends LIST]
Prints a Markdown table; run it on an otherwise idle machine.
"""
import argparse
import glob
import json
import os
import platform
import statistics
import subprocess
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def compile_once(duet, model, out, backends):
    cmd = [duet, "compile", model, "-o", out, "--quiet"]
    if backends:
        cmd += ["--backends", backends]
    start = time.perf_counter()
    subprocess.run(cmd, check=True)
    return (time.perf_counter() - start) * 1000


def inspect(duet, program):
    out = subprocess.run([duet, "inspect", program, "--json"], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    doc = json.loads(out)
    return doc["arena_bytes"], doc["arena_lower_bound_bytes"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", default=os.path.join(REPO, "build"))
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--backends", default="")
    args = parser.parse_args()
    duet = os.path.join(args.build_dir, "bin", "duet")

    models = [os.path.join(REPO, "examples", "mobilenet_v3_small.pt2"),
              os.path.join(REPO, "bench", "models", "mobilenet_v2.pt2")]
    fixtures = sorted(glob.glob(os.path.join(REPO, "test", "models", "*.pt2")))
    fixtures = [f for f in fixtures if not os.path.basename(f).startswith("bad_")]

    print(f"Machine: {cpu_name()}, {os.cpu_count()} cores; load average "
          f"{os.getloadavg()[0]:.2f} at start. Backends: {args.backends or 'default'}.\n")
    print("| model | compile median (ms) | min | max | arena (KiB) | lower bound (KiB) | gap |")
    print("|---|---|---|---|---|---|---|")
    worst_gap = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for path in models + fixtures:
            out = os.path.join(tmp, "p.duet")
            runs = args.runs if path in models else 1
            times = [compile_once(duet, path, out, args.backends) for _ in range(runs)]
            arena, bound = inspect(duet, out)
            gap = (arena - bound) / bound if bound else 0.0
            worst_gap = max(worst_gap, gap)
            name = os.path.relpath(path, REPO)
            timing = (f"{statistics.median(times):.1f} | {min(times):.1f} | {max(times):.1f}"
                      if path in models else "- | - | -")
            print(f"| {name} | {timing} | {arena / 1024:.1f} | {bound / 1024:.1f} | "
                  f"{100 * gap:.1f}% |")
    print(f"\nLargest arena gap over the lower bound: {100 * worst_gap:.1f}%")


if __name__ == "__main__":
    main()
