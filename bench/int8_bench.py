#!/usr/bin/env python3
"""int8 against fp32 on the XNNPACK path, for docs/quantization.md: MobileNetV2
at 224x224 in fp32 (bench/models/mobilenet_v2.pt2) and its PT2E int8 export
(test/models/q_mobilenet_v2.aten.pt2), both compiled with --backends xnnpack,
timed with `duet bench` in interleaved rounds per thread count. Each round
runs fp32, int8, and int8 with DUET_XNNPACK_ONLY=1 (every node in XNNPACK,
without duet's own qint8 kernel), in an order that rotates. A ratio is the
median over rounds of the round's fp32 median over the int8 median, with
its range; "best" is the best round's median of each over the other's, which
a shared machine's interference (another tenant of the host) moves least.

Usage: bench/int8_bench.py [--build-dir build] [--rounds 5] [--iterations 60]
       [--warmup 10] [--threads 1 2]
Prints a Markdown table; run it on an otherwise idle machine.
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

from compile_stats import cpu_name

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

VARIANTS = [
    ("fp32", "f32.duet", {}),
    ("int8", "i8.duet", {}),
    ("int8, XNNPACK only", "i8.duet", {"DUET_XNNPACK_ONLY": "1"}),
]


def cpu_has_vnni():
    try:
        flags = set(open("/proc/cpuinfo").read().split())
    except OSError:
        return False
    return {"avx512f", "avx512bw", "avx512vl", "avx512_vnni"} <= flags


def bench(duet, program, threads, iterations, warmup, extra_env):
    env = dict(os.environ)
    env.pop("DUET_XNNPACK_ONLY", None)
    env.update(extra_env)
    out = subprocess.run(
        [duet, "bench", program, "--threads", str(threads), "--iterations",
         str(iterations), "--warmup", str(warmup), "--json"],
        check=True, stdout=subprocess.PIPE, text=True, env=env).stdout
    return json.loads(out)["median_ms"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", default=os.path.join(REPO, "build"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    duet = os.path.join(args.build_dir, "bin", "duet")

    with tempfile.TemporaryDirectory() as tmp:
        sources = {
            "f32.duet": os.path.join(REPO, "bench", "models", "mobilenet_v2.pt2"),
            "i8.duet": os.path.join(REPO, "test", "models",
                                    "q_mobilenet_v2.aten.pt2"),
        }
        for name, source in sources.items():
            subprocess.run([duet, "compile", source, "-o",
                            os.path.join(tmp, name), "--backends", "xnnpack",
                            "--quiet"], check=True)
        print(f"{cpu_name()}, {os.cpu_count()} CPUs, AVX-512 VNNI: "
              f"{'yes' if cpu_has_vnni() else 'no'}; {args.rounds} rounds of "
              f"{args.iterations} runs after {args.warmup} warm-ups\n")
        print("| threads | fp32 median ms | int8 median ms | int8 (XNNPACK only) "
              "median ms | fp32 / int8 | fp32 / int8 (XNNPACK only) | best: "
              "fp32 / int8 | best: fp32 / int8 (XNNPACK only) |")
        print("|---|---|---|---|---|---|---|---|")
        for threads in args.threads:
            times = {label: [] for label, _, _ in VARIANTS}
            for r in range(args.rounds):
                order = VARIANTS[r % 3:] + VARIANTS[:r % 3]
                for label, program, env in order:
                    times[label].append(bench(duet, os.path.join(tmp, program),
                                              threads, args.iterations,
                                              args.warmup, env))

            def ratio(label):
                values = [f / i for f, i in zip(times["fp32"], times[label])]
                return (f"{statistics.median(values):.2f}x "
                        f"({min(values):.2f} to {max(values):.2f})")

            med = {label: statistics.median(v) for label, v in times.items()}
            best = {label: min(v) for label, v in times.items()}
            print(f"| {threads} | {med['fp32']:.2f} | {med['int8']:.2f} | "
                  f"{med['int8, XNNPACK only']:.2f} | {ratio('int8')} | "
                  f"{ratio('int8, XNNPACK only')} | "
                  f"{best['fp32'] / best['int8']:.2f}x | "
                  f"{best['fp32'] / best['int8, XNNPACK only']:.2f}x |")


if __name__ == "__main__":
    main()
