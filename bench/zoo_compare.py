#!/usr/bin/env python3
"""CPU run time of the model zoo: duet with its XNNPACK delegate against ONNX
Runtime's CPU provider (npm onnxruntime-node, bench/ort_bench.js), on the
zoo's own inputs, at each thread count (issue #14).

Models: every test/zoo fixture (test/zoo/MANIFEST.json) that has an ONNX twin
in the ONNX folder (default bench/zoo-onnx, written on the GPU machine by
`tools/export_zoo.py --onnx DIR`; git-ignored) whose recorded pt2_sha256 is the
sha256 of the tree's .pt2, i.e. the same weights. Twins the exporter refused
(an "error" in ONNX_MANIFEST.json), missing files and hash mismatches are
listed and skipped.

duet: `duet compile NAME.aten.pt2 --backends xnnpack`, then `duet bench
--json --input test/zoo/NAME.inputK.npy ...`. ONNX Runtime: `node
bench/ort_bench.js NAME.onnx --input ...` (the same .npy files: int64 token ids
and masks for the transformers) with intra-op threads = N, sequential
execution, all graph optimisations. Each measurement is one process printing
the median of --iterations timed runs after --warmup.

Method: --repeats interleaved rounds; in each round, for every model and
thread count, duet and ONNX Runtime run back to back as a pair, duet first in
even rounds and ONNX Runtime first in odd ones. A pair's ratio is duet's
median / ONNX Runtime's median; the reported ratio is the median of the pair
ratios (below 1: duet faster), the reported ms the median of the rounds'
medians. 2t/1t is, per round, the last thread count's median over the
first's (above 1: more threads slower). The summary gives the geometric mean
of the ratios and the worst. Before the rounds, an Identity model times
onnxruntime-node's own per-run cost (promise, setImmediate, tensor wrapping),
which duet's in-process loop does not pay; it is reported, not subtracted.

--busy runs one `yes > /dev/null` beside the measurement (started after
compiling, killed at the end, on an exception or on Ctrl-C/SIGTERM): the check
that 2 threads are never slower than 1 with one other busy process.

Usage: bench/zoo_compare.py [--duet build/bin/duet] [--onnx-dir bench/zoo-onnx]
           [--ort-dir bench/ort] [--models a,b] [--threads 1,2] [--repeats 5]
           [--iterations 100] [--warmup 10] [--busy] [--json FILE]
Prints a Markdown table on stdout, progress on stderr. Needs node and npm
(onnxruntime-node 1.30.0 is installed into --ort-dir with `npm install
--ignore-scripts` when missing). Run it alone on the machine: under
`flock /tmp/duet-build.lock` on the shared development machine.
"""
import argparse
import hashlib
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
ORT_VERSION = "1.30.0"
ENGINES = ("duet", "onnxruntime")
RUN_TIMEOUT_S = 600


sys.path.insert(0, BENCH)
from compare import machine  # noqa: E402  (the same lscpu line as the MobileNet table)


class Failure(Exception):
    pass


def load_average():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def first_line(text, limit=160, last=True):
    """One line of text, shortened: by default the last (a failing tool's
    error is usually its last line), else the first."""
    lines = [l.strip() for l in text.strip().splitlines() if l.strip()]
    line = (lines[-1] if last else lines[0]) if lines else "no output"
    return line if len(line) <= limit else line[:limit - 3] + "..."


def run_json(cmd, env=None):
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, text=True, env=env,
                              timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise Failure(f"timed out after {RUN_TIMEOUT_S} s")
    if proc.returncode != 0:
        raise Failure(f"exit {proc.returncode}: {first_line(proc.stderr or proc.stdout)}")
    try:
        return json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        raise Failure(f"no JSON in output: {first_line(proc.stdout)}")


# --- a one-node ONNX model (Identity on a float[1]), written by hand -------
def _varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number, payload):
    if isinstance(payload, int):
        return _varint(number << 3) + _varint(payload)
    if isinstance(payload, str):
        payload = payload.encode()
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def identity_onnx():
    dim = _field(1, _field(1, 1))                       # Dimension.dim_value = 1
    tensor = _field(1, 1) + _field(2, dim)              # elem_type FLOAT, shape [1]
    type_proto = _field(1, tensor)                      # TypeProto.tensor_type

    def value_info(name):
        return _field(1, name) + _field(2, type_proto)

    node = _field(1, "x") + _field(2, "y") + _field(4, "Identity")
    graph = (_field(1, node) + _field(2, "identity") + _field(11, value_info("x"))
             + _field(12, value_info("y")))
    opset = _field(1, "") + _field(2, 17)
    return (_field(1, 8) + _field(2, "duet zoo_compare.py") + _field(7, graph)
            + _field(8, opset))


# --- set-up ----------------------------------------------------------------
def ensure_ort(ort_dir):
    if not os.path.isdir(os.path.join(ort_dir, "node_modules", "onnxruntime-node")):
        os.makedirs(ort_dir, exist_ok=True)
        print(f"installing onnxruntime-node {ORT_VERSION} into {ort_dir} ...",
              file=sys.stderr)
        subprocess.run(["npm", "install", "--prefix", ort_dir, "--ignore-scripts",
                        "--no-audit", "--no-fund", f"onnxruntime-node@{ORT_VERSION}"],
                       check=True, stdout=subprocess.DEVNULL)
    env = dict(os.environ, NODE_PATH=os.path.join(ort_dir, "node_modules"))
    env.pop("DUET_BENCH_SHAPES", None)
    return env


def select_models(args):
    with open(os.path.join(args.zoo_dir, "MANIFEST.json")) as f:
        zoo = {m["name"]: m for m in json.load(f)["fixtures"]}
    manifest = os.path.join(args.onnx_dir, "ONNX_MANIFEST.json")
    if not os.path.exists(manifest):
        sys.exit(f"error: {manifest} not found: the ONNX twins come from "
                 "`tools/export_zoo.py --onnx DIR` (on the GPU machine); pass --onnx-dir")
    with open(manifest) as f:
        twins = {m["name"]: m for m in json.load(f)["models"]}
    names = list(zoo) if args.models is None else args.models
    unknown = [n for n in names if n not in zoo]
    if unknown:
        sys.exit(f"error: not in {args.zoo_dir}/MANIFEST.json: {', '.join(unknown)}")
    chosen, skipped = [], {}
    for name in names:
        fixture, twin = zoo[name], twins.get(name)
        pt2 = os.path.join(args.zoo_dir, fixture["flavours"]["aten"]["file"])
        inputs = [os.path.join(args.zoo_dir, i["file"]) for i in fixture["inputs"]]
        if twin is None:
            skipped[name] = "no ONNX twin in the manifest"
        elif "error" in twin:
            skipped[name] = "ONNX export failed: " + first_line(twin["error"], 90, last=False)
        elif not os.path.exists(os.path.join(args.onnx_dir, twin["file"])):
            skipped[name] = f"{twin['file']} missing"
        elif twin.get("pt2") != os.path.basename(pt2) or twin.get("pt2_sha256") != sha256(pt2):
            skipped[name] = ("pt2_sha256 mismatch: the tree's .pt2 is not the one the "
                             "ONNX twin was exported with")
        elif len(twin.get("inputs", [])) != len(inputs):
            skipped[name] = (f"the twin has {len(twin.get('inputs', []))} inputs, "
                             f"the fixture {len(inputs)}")
        else:
            chosen.append({"name": name, "pt2": pt2, "inputs": inputs,
                           "onnx": os.path.join(args.onnx_dir, twin["file"])})
    return chosen, skipped


def compile_models(args, models):
    os.makedirs(args.work_dir, exist_ok=True)
    failed = {}
    for m in models:
        m["program"] = os.path.join(args.work_dir, f"{m['name']}.xnnpack.duet")
        proc = subprocess.run([args.duet, "compile", m["pt2"], "--backends", "xnnpack",
                               "-o", m["program"], "-q"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
        if proc.returncode != 0:
            failed[m["name"]] = ("duet compile failed: "
                                 + first_line(proc.stderr or proc.stdout))
            print(f"{m['name']}: {failed[m['name']]}", file=sys.stderr)
    return failed


def measure(engine, m, threads, args, env):
    common = ["--threads", str(threads), "--iterations", str(args.iterations),
              "--warmup", str(args.warmup)]
    inputs = [a for i in m["inputs"] for a in ("--input", i)]
    if engine == "duet":
        return run_json([args.duet, "bench", m["program"], "--json"] + common + inputs)
    return run_json(["node", os.path.join(BENCH, "ort_bench.js"), m["onnx"]]
                    + common + inputs, env=env)


# --- background load -------------------------------------------------------
class Busy:
    """One `yes > /dev/null` for the duration of a with block."""

    def __init__(self, enabled):
        self.enabled, self.proc = enabled, None

    def __enter__(self):
        if self.enabled:
            self.proc = subprocess.Popen(["yes"], stdout=subprocess.DEVNULL,
                                         stdin=subprocess.DEVNULL)
            print(f"busy: yes > /dev/null running as pid {self.proc.pid}", file=sys.stderr)
            time.sleep(1.0)
        return self

    def __exit__(self, *exc):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
            print(f"busy: pid {self.proc.pid} killed", file=sys.stderr)
        return False


def _terminate(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


# --- report ----------------------------------------------------------------
def fmt_ms(v):
    return "-" if v is None else (f"{v:.3f}" if v < 1 else f"{v:.2f}")


def fmt_ratio(v):
    return "-" if v is None else f"{v:.2f}"


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def summarise(models, threads, results, failed):
    rows = {}
    for m in models:
        name = m["name"]
        row = {"duet_ms": {}, "ort_ms": {}, "ratio": {}, "pair_ratios": {}}
        for t in threads:
            d = [r["median_ms"] for r in results[name][t]["duet"]]
            o = [r["median_ms"] for r in results[name][t]["onnxruntime"]]
            pairs = [a / b for a, b in zip(d, o) if b > 0]
            row["duet_ms"][t] = statistics.median(d) if d else None
            row["ort_ms"][t] = statistics.median(o) if o else None
            row["pair_ratios"][t] = pairs
            row["ratio"][t] = statistics.median(pairs) if pairs and name not in failed else None
        if len(threads) > 1:
            lo, hi = threads[0], threads[-1]
            for key, engine in (("duet_scaling", "duet"), ("ort_scaling", "onnxruntime")):
                a = [r["median_ms"] for r in results[name][lo][engine]]
                b = [r["median_ms"] for r in results[name][hi][engine]]
                per_round = [y / x for x, y in zip(a, b) if x > 0]
                row[key] = statistics.median(per_round) if per_round and name not in failed else None
                row[key + "_rounds"] = per_round
        rows[name] = row
    summary = {}
    for t in threads:
        ratios = {n: r["ratio"][t] for n, r in rows.items() if r["ratio"][t] is not None}
        if ratios:
            worst = max(ratios, key=ratios.get)
            best = min(ratios, key=ratios.get)
            summary[t] = {"geomean": geomean(list(ratios.values())), "models": len(ratios),
                          "worst": [worst, ratios[worst]], "best": [best, ratios[best]],
                          "duet_faster": sum(v < 1 for v in ratios.values())}
    if len(threads) > 1:
        for key in ("duet_scaling", "ort_scaling"):
            s = {n: r[key] for n, r in rows.items() if r.get(key) is not None}
            if s:
                worst = max(s, key=s.get)
                summary[key] = {"geomean": geomean(list(s.values())),
                                "worst": [worst, s[worst]],
                                "slower_with_more_threads": sorted(n for n, v in s.items() if v > 1)}
    return rows, summary


def report(args, threads, models, rows, summary, skipped, failed, floor, info):
    out = []
    busy = " with one `yes > /dev/null` running beside it" if args.busy else ""
    out.append(f"Machine: {info['machine']}{busy}. duet + XNNPACK (`--backends xnnpack`) "
               f"against ONNX Runtime {ORT_VERSION} CPU (onnxruntime-node), zoo inputs; "
               f"{args.repeats} interleaved round{'s' if args.repeats > 1 else ''} of "
               f"{args.iterations} timed runs after "
               f"{args.warmup} warm-up per engine, model and thread count; "
               f"{info['elapsed_s']:.0f} s; 1-minute load average "
               f"{min(info['loadavg']):.2f} to {max(info['loadavg']):.2f}. "
               "ms: median of the rounds' medians; ratio: median of the per-round "
               "duet / ONNX Runtime ratios (below 1: duet faster).")
    if floor:
        out.append("onnxruntime-node's own cost per run (an Identity model): "
                   + ", ".join(f"{fmt_ms(v)} ms at {t} thread{'s' if t > 1 else ''}"
                               for t, v in floor.items())
                   + "; included in the ONNX Runtime figures, not subtracted.")
    out.append("")
    head = ["model"]
    for t in threads:
        label = f"{t} thread{'s' if t > 1 else ''}"
        head += [f"{label} duet ms", f"{label} ORT ms", f"{label} ratio"]
    if len(threads) > 1:
        head += [f"{threads[-1]}t/{threads[0]}t duet", f"{threads[-1]}t/{threads[0]}t ORT"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    for m in models:
        name, row = m["name"], rows[m["name"]]
        if name in failed:
            out.append(f"| {name} | {failed[name]} |" + " |" * (len(head) - 2))
            continue
        cells = [name]
        for t in threads:
            cells += [fmt_ms(row["duet_ms"][t]), fmt_ms(row["ort_ms"][t]),
                      fmt_ratio(row["ratio"][t])]
        if len(threads) > 1:
            cells += [fmt_ratio(row["duet_scaling"]), fmt_ratio(row["ort_scaling"])]
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    for t in threads:
        s = summary.get(t)
        if s:
            out.append(f"- {t} thread{'s' if t > 1 else ''}: geometric mean of the ratios "
                       f"{s['geomean']:.3f} over {s['models']} model{'s' if s['models'] > 1 else ''}; worst "
                       f"{s['worst'][0]} {s['worst'][1]:.2f}, best {s['best'][0]} "
                       f"{s['best'][1]:.2f}; duet faster on {s['duet_faster']}.")
    for key, who in (("duet_scaling", "duet"), ("ort_scaling", "ONNX Runtime")):
        s = summary.get(key)
        if s:
            slower = s["slower_with_more_threads"]
            out.append(f"- {who} {threads[-1]}t/{threads[0]}t: geometric mean "
                       f"{s['geomean']:.3f}, worst {s['worst'][0]} {s['worst'][1]:.2f}; "
                       f"slower with {threads[-1]} threads on {len(slower)}"
                       + (f" ({', '.join(slower)})" if slower else "") + ".")
    for name, why in skipped.items():
        out.append(f"- skipped {name}: {why}")
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.split("\n")[1:]))
    parser.add_argument("--duet", default=os.path.join(REPO, "build", "bin", "duet"),
                        help="the duet binary (default build/bin/duet)")
    parser.add_argument("--onnx-dir", default=os.path.join(REPO, "bench", "zoo-onnx"),
                        help="the ONNX twins and ONNX_MANIFEST.json (default bench/zoo-onnx)")
    parser.add_argument("--zoo-dir", default=os.path.join(REPO, "test", "zoo"))
    parser.add_argument("--ort-dir", default=os.path.join(BENCH, "ort"),
                        help="npm prefix holding onnxruntime-node (default bench/ort)")
    parser.add_argument("--work-dir", default=os.path.join(BENCH, "out", "zoo"),
                        help="where the compiled programs go (default bench/out/zoo)")
    parser.add_argument("--models", help="comma-separated zoo names (default: all)")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--busy", action="store_true",
                        help="run one `yes > /dev/null` during the measurement")
    parser.add_argument("--json", metavar="FILE", help="write every raw figure to FILE")
    args = parser.parse_args()
    args.models = args.models.split(",") if args.models else None
    threads = [int(t) for t in args.threads.split(",")]
    if args.repeats < 1 or args.iterations < 1 or args.warmup < 0 or min(threads) < 1:
        sys.exit("error: --repeats and --iterations must be at least 1, --threads "
                 "positive, --warmup not negative")
    if not os.access(args.duet, os.X_OK):
        sys.exit(f"error: {args.duet} not found; build duet or pass --duet")

    signal.signal(signal.SIGTERM, _terminate)
    signal.signal(signal.SIGHUP, _terminate)
    env = ensure_ort(args.ort_dir)
    models, skipped = select_models(args)
    failed = compile_models(args, models)
    results = {m["name"]: {t: {e: [] for e in ENGINES} for t in threads} for m in models}
    info = {"machine": machine(), "loadavg": [load_average()]}
    floor, floor_runs = {}, {}
    started = time.time()
    with Busy(args.busy):
        identity = os.path.join(args.work_dir, "identity.onnx")
        with open(identity, "wb") as f:
            f.write(identity_onnx())
        for t in threads:
            try:
                r = run_json(["node", os.path.join(BENCH, "ort_bench.js"), identity,
                              "--threads", str(t), "--iterations", "1000",
                              "--warmup", "100"], env=env)
                floor[t], floor_runs[t] = r["median_ms"], r
            except Failure as e:
                print(f"identity model: {e}", file=sys.stderr)
        for repeat in range(args.repeats):
            order = ENGINES if repeat % 2 == 0 else ENGINES[::-1]
            for m in models:
                if m["name"] in failed:
                    continue
                for t in threads:
                    for engine in order:
                        try:
                            r = measure(engine, m, t, args, env)
                        except Failure as e:
                            what = "duet bench" if engine == "duet" else "ONNX Runtime"
                            failed[m["name"]] = (f"{what} failed at {t} thread"
                                                 f"{'s' if t > 1 else ''}: {e}")
                            print(f"{m['name']}: {failed[m['name']]}", file=sys.stderr)
                            break
                        r["round"], r["order"] = repeat, list(order)
                        results[m["name"]][t][engine].append(r)
                    if m["name"] in failed:
                        break
            info["loadavg"].append(load_average())
            print(f"round {repeat + 1}/{args.repeats} done, "
                  f"{time.time() - started:.0f} s, load {info['loadavg'][-1]:.2f}",
                  file=sys.stderr)
    info["elapsed_s"] = time.time() - started

    rows, summary = summarise(models, threads, results, failed)
    print(report(args, threads, models, rows, summary, skipped, failed, floor, info))
    if args.json:
        dump = {
            "machine": info["machine"], "busy": args.busy, "ort_version": ORT_VERSION,
            "duet": args.duet, "onnx_dir": args.onnx_dir,
            "settings": {"threads": threads, "repeats": args.repeats,
                         "iterations": args.iterations, "warmup": args.warmup},
            "elapsed_s": info["elapsed_s"], "loadavg": info["loadavg"],
            "ort_identity_floor": {str(t): r for t, r in floor_runs.items()},
            "skipped": skipped, "failed": failed,
            "summary": {str(k): v for k, v in summary.items()},
            "models": {
                m["name"]: {
                    "pt2": m["pt2"], "onnx": m["onnx"], "inputs": m["inputs"],
                    "runs": {str(t): results[m["name"]][t] for t in threads},
                    **{k: ({str(t): x for t, x in v.items()} if isinstance(v, dict) else v)
                       for k, v in rows[m["name"]].items()},
                } for m in models},
        }
        with open(args.json, "w") as f:
            json.dump(dump, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt as e:
        sys.exit(f"interrupted ({str(e) or 'Ctrl-C'}); the background load, if any, was stopped")
