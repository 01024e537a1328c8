#!/usr/bin/env python3
"""Placement check for docs/performance.md: is the program `duet compile`
writes by default as fast as the fastest explicit backend set?

For every fixture of test/models/MANIFEST.json (its aten flavour), the bundled
example and the benchmark models of bench/models, compiles

  default   duet compile M            (placement by cost, for this machine)
  xnnpack   duet compile M --backends xnnpack
  vulkan    duet compile M --backends vulkan
  both      duet compile M --backends vulkan,xnnpack

and measures each with `duet bench --json` on the same inputs (the seeded
random ones), interleaved: every repeat runs each variant once, in an order
that rotates between repeats, so that load on a shared machine hits all of
them alike. A variant's time is the smallest median over the repeats. The
number of timed runs per variant is chosen from a first short run, so that
one measurement takes about --budget-ms (at least 5 runs, at most 200).

Prints a Markdown table: each variant's time, the fastest explicit set, and
default / fastest; a ratio above 1 + --margin is marked and makes the script
exit 1 (use it as a check on a quiet machine).

Usage: bench/placement_bench.py [--build-dir build] [--repeats 3]
                                [--budget-ms 300] [--margin 0.10]
                                [--models NAME,...] [--threads N]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
VARIANTS = {
    "default": [],
    "xnnpack": ["--backends", "xnnpack"],
    "vulkan": ["--backends", "vulkan"],
    "both": ["--backends", "vulkan,xnnpack"],
}
EXPLICIT = ["xnnpack", "vulkan", "both"]


def models():
    """(name, .pt2 path) of every model the check covers."""
    found = []
    with open(os.path.join(REPO, "test", "models", "MANIFEST.json")) as f:
        for fixture in json.load(f)["fixtures"]:
            flavour = fixture.get("flavours", {}).get("aten")
            if flavour:
                found.append((fixture["name"],
                              os.path.join(REPO, "test", "models", flavour["file"])))
    found.append(("mobilenet_v3_small",
                  os.path.join(REPO, "examples", "mobilenet_v3_small.pt2")))
    found.append(("mobilenet_v2",
                  os.path.join(BENCH, "models", "mobilenet_v2.pt2")))
    return found


def run(cmd):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    if proc.returncode != 0:
        raise RuntimeError("{} exited {}: {}".format(" ".join(cmd), proc.returncode,
                                                     proc.stderr.strip()))
    return proc.stdout


def bench(duet, program, iterations, threads):
    cmd = [duet, "bench", program, "--json", "--iterations", str(iterations),
           "--warmup", "2"]
    if threads is not None:
        cmd += ["--threads", str(threads)]
    return json.loads(run(cmd))["median_ms"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", default=os.path.join(REPO, "build"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--budget-ms", type=float, default=300)
    parser.add_argument("--margin", type=float, default=0.10)
    parser.add_argument("--models", default="")
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    duet = os.path.join(args.build_dir, "bin", "duet")
    wanted = set(filter(None, args.models.split(",")))

    rows = []
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for name, pt2 in models():
            if wanted and name not in wanted:
                continue
            programs = {}
            for variant, flags in VARIANTS.items():
                path = os.path.join(tmp, "{}.{}.duet".format(name, variant))
                try:
                    run([duet, "compile", pt2, "-o", path, "--quiet"] + flags)
                    programs[variant] = path
                except RuntimeError as error:
                    print("{} {}: not compiled: {}".format(name, variant, error),
                          file=sys.stderr)
            iterations = {}
            for variant, path in programs.items():
                first = bench(duet, path, 3, args.threads)
                iterations[variant] = int(max(5, min(200, args.budget_ms / max(first, 1e-3))))
            best = {variant: float("inf") for variant in programs}
            order = list(programs)
            for repeat in range(args.repeats):
                rotated = order[repeat % len(order):] + order[:repeat % len(order)]
                for variant in rotated:
                    best[variant] = min(best[variant],
                                        bench(duet, programs[variant],
                                              iterations[variant], args.threads))
            explicit = [v for v in EXPLICIT if v in best]
            fastest = min(explicit, key=lambda v: best[v])
            ratio = best["default"] / best[fastest]
            bad = ratio > 1 + args.margin
            failed |= bad
            rows.append((name, best, fastest, ratio, bad))
            print("{}: default {:.3f} ms, fastest {} {:.3f} ms, ratio {:.2f}{}".format(
                name, best["default"], fastest, best[fastest], ratio,
                "  <-- over the margin" if bad else ""), file=sys.stderr)

    print("| model | default ms | xnnpack ms | vulkan ms | vulkan,xnnpack ms | fastest explicit | default / fastest |")
    print("|---|---|---|---|---|---|---|")
    for name, best, fastest, ratio, bad in rows:
        cells = ["{:.3f}".format(best[v]) if v in best else "-"
                 for v in ["default", "xnnpack", "vulkan", "both"]]
        print("| {} | {} | {} | {:.2f}{} |".format(
            name, " | ".join(cells), fastest.replace("both", "vulkan,xnnpack"),
            ratio, " **over**" if bad else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
