#!/usr/bin/env python3
"""duet's Vulkan delegate against PyTorch CUDA on the GPU machine, in one run.

For each model it times, interleaved (the order rotates between repeats, so a
burst of load on the shared machine hits every engine alike):
  - duet:  `duet-run bench PROGRAM --json` on a program compiled with
           `duet compile MODEL.pt2 --backends vulkan --target-profile
           nvidia-desktop` (runtime-only binary, the
           carried Vulkan loader, the NVIDIA driver); its run includes staging
           the input to the GPU and the output back;
  - eager: torchvision's same architecture on CUDA, fp32, batch 1, the input
           already on the GPU, torch.cuda.synchronize() after each run;
  - graph: the same model captured once as a CUDA graph and replayed.
Each figure is the median over the repeats of each repeat's median. Before
timing, `duet-run run --expect` checks the program's output against the eager
output stored beside the .pt2 (computed on the CPU when it was exported).
Load time (file to ready) is measured cold (an empty pipeline-cache folder)
and warm (the folder the cold load filled), each the median of three loads
in a fresh process, which opens the Vulkan instance and device first; and
"open" (`duet-run bench --reload`: a second load in the process of a warm
one, the device open and the pipelines cached), the load an app pays for
each program after its first. The timed runs use the warm cache.

Usage (on the GPU machine; bench/gpu_machine.sh runs the whole table there):
  bench/gpu_bench.py --duet-run DIR/duet-run --programs DIR [--models a,b]
                     [--export --duet PATH/duet] [--profile DIR] [--fp16]
                     [--repeats 3] [--iterations 200] [--warmup 20]
Programs are DIR/<model>.vulkan.duet; the stored input and eager output are
DIR/<model>.input0.npy and DIR/<model>.output0.npy. With --export they are first
written there: each model (MODELS below, at its published size, seeded random
weights, BatchNorm calibrated) exported with torch.export and compiled with
`duet compile --backends vulkan`. Prints a Markdown table.
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


TOOLS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools")


def _torchvision(name):
    def build():
        import torchvision

        return getattr(torchvision.models, name)(weights=None), torch.randn(1, 3, 224, 224)
    return build


def _timm(name):
    def build():
        import timm

        return timm.create_model(name, pretrained=False), torch.randn(1, 3, 224, 224)
    return build


def _whisper_tiny_encoder():
    from transformers import WhisperConfig
    from transformers.models.whisper.modeling_whisper import WhisperEncoder

    class LastHiddenState(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = WhisperEncoder(WhisperConfig(
                d_model=384, encoder_layers=4, encoder_attention_heads=6, encoder_ffn_dim=1536,
                num_mel_bins=80, max_source_positions=1500))

        def forward(self, features):
            return self.encoder(input_features=features).last_hidden_state

    return LastHiddenState(), torch.randn(1, 80, 3000)


# The architectures of issue #13's table, at their published sizes (random weights).
MODELS = {
    "mobilenet_v3_small": _torchvision("mobilenet_v3_small"),
    "mobilenet_v2": _torchvision("mobilenet_v2"),
    "resnet18": _torchvision("resnet18"),
    "efficientnet_b0": _torchvision("efficientnet_b0"),
    "vit_tiny_patch16_224": _timm("vit_tiny_patch16_224"),
    "convnext_atto": _timm("convnext_atto"),
    "mobilenetv4_conv_small": _timm("mobilenetv4_conv_small"),
    "whisper_tiny_encoder": _whisper_tiny_encoder,
}


def build_model(name):
    """The model in eval mode with seeded weights and BatchNorm statistics of its own
    activations (tools/export_zoo.py's calibration, so outputs do not collapse and the
    --expect check says something), and its seeded input."""
    sys.path.insert(0, TOOLS)
    import export_zoo

    torch.manual_seed(0)
    model, x = MODELS[name]()
    export_zoo.enliven(model)
    torch.manual_seed(1)
    export_zoo.calibrate_batchnorm(model, (x,))
    return model.eval(), x


def export_and_compile(name, folder, duet, fp16=False):
    """Writes folder/NAME.pt2 (torch.export's TRAINING form), the input and eager CPU
    output as .npy, and compiles folder/NAME.vulkan.duet with `duet compile
    --backends vulkan --target-profile nvidia-desktop` (this GPU's texture limits: the
    default profile's 2048 texels would keep the Whisper encoder's 3000-frame
    convolutions off the GPU). When duet
    refuses the TRAINING form, the ATEN form (run_decompositions) is tried and the log
    says so."""
    import numpy as np

    model, x = build_model(name)
    with torch.no_grad():
        out = model(x)
    np.save(os.path.join(folder, f"{name}.input0.npy"), x.numpy())
    np.save(os.path.join(folder, f"{name}.output0.npy"), out.numpy())
    program = os.path.join(folder, program_name(name, fp16))
    exported = torch.export.export(model, (x,))
    for flavour in ("training", "aten"):
        archive = os.path.join(folder, f"{name}.{flavour}.pt2")
        torch.export.save(exported if flavour == "training" else exported.run_decompositions(),
                          archive)
        report = os.path.join(folder, f"{name}.report.json")
        proc = subprocess.run([duet, "compile", archive, "--backends", "vulkan",
                               "--target-profile", "nvidia-desktop", "-o", program,
                               "--report", report] + (["--force-fp16"] if fp16 else []),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print(f"{name} ({flavour}): {proc.stdout.strip()}", flush=True)
        if proc.returncode == 0:
            # Every op left off the GPU, with the reasons the report gives.
            with open(report) as f:
                for op in json.load(f)["ops"]:
                    if op["backend"] != "vulkan":
                        why = "; ".join(r.get("reason", "") for r in op["rejections"])
                        print(f"  off the GPU: {op['op']} '{op['node']}' on {op['backend']}: "
                              f"{why}", flush=True)
            return flavour
    print(f"{name}: duet compile refused both forms; left out of the table", flush=True)
    return None


def program_name(name, fp16):
    return f"{name}.vulkan{'-fp16' if fp16 else ''}.duet"


def torch_model(name):
    return build_model(name)[0].cuda()


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


def duet_bench(duet_run, program, iterations, warmup, cache, extra=()):
    env = dict(os.environ, DUET_VULKAN_PIPELINE_CACHE=cache)
    proc = subprocess.run([duet_run, "bench", program, "--iterations", str(iterations),
                           "--warmup", str(warmup), "--json", *extra],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if proc.returncode != 0:
        sys.exit(f"duet-run bench {program} failed ({proc.returncode}): {proc.stderr}")
    return json.loads(proc.stdout)


def print_phases(name, title, phases):
    """`duet-run bench --load-phases`' phases of one load, largest first."""
    print(f"{name}: {title} phases (ms):", flush=True)
    for p in sorted(phases, key=lambda p: -p["ms"])[:12]:
        print(f"  {p['ms']:8.2f}  {p['phase']}", flush=True)


def torch_fp16_error(name, folder):
    """How far PyTorch's own fp16 (the model and input in half on CUDA) is from the stored
    fp32 eager output, against the bound `duet-run run --expect` applies at rtol/atol 1e-2
    (1e-2 * max|reference| + 1e-2)."""
    import numpy as np

    model, x = build_model(name)
    model = model.half().cuda()
    with torch.no_grad():
        out = model(x.half().cuda()).float().cpu().numpy()
    ref = np.load(os.path.join(folder, f"{name}.output0.npy"))
    del model
    torch.cuda.empty_cache()
    err = float(np.abs(out - ref).max())
    bound = 1e-2 * float(np.abs(ref).max()) + 1e-2
    return (f"{name}: PyTorch CUDA fp16 (model.half()) against the fp32 output: max |a - b| "
            f"{err:.4g}, bound {bound:.4g} ({'within' if err <= bound else 'OUT OF'} bound)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duet-run", required=True)
    parser.add_argument("--programs", required=True)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--export", action="store_true",
                        help="first export every model into --programs and compile it there "
                             "with --duet (needs timm and transformers for their models)")
    parser.add_argument("--duet", default="duet", help="the duet compiler, for --export")
    parser.add_argument("--profile", metavar="DIR",
                        help="also write DIR/NAME.profile.json: `duet-run bench --profile "
                             "--json` (device timestamps per dispatch)")
    parser.add_argument("--fp16", action="store_true",
                        help="compile with --force-fp16 (fp16 images, fp16 arithmetic in the "
                             "convolutions and products), check at the fp16 tolerance "
                             "(rtol/atol 1e-2); PyTorch stays fp32")
    parser.add_argument("--cache", default="/tmp/duet-gpu-bench-cache",
                        help="pipeline-cache folder (emptied per model for the cold loads)")
    options = parser.parse_args()

    rows = []
    print(f"# {torch.cuda.get_device_name(0)}, PyTorch {torch.__version__}", flush=True)
    names = list(filter(None, options.models.split(",")))
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        sys.exit(f"unknown model(s) {unknown}; known: {sorted(MODELS)}")
    if options.export:
        os.makedirs(options.programs, exist_ok=True)
        names = [n for n in names
                 if export_and_compile(n, options.programs, options.duet, options.fp16)]
    left_out = []
    for name in names:
        program = os.path.join(options.programs, program_name(name, options.fp16))
        check = subprocess.run(
            [options.duet_run, "run", program, "--input",
             os.path.join(options.programs, f"{name}.input0.npy"), "--expect",
             os.path.join(options.programs, f"{name}.output0.npy")]
            + (["--rtol", "1e-2", "--atol", "1e-2"] if options.fp16 else []),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print(check.stdout.strip(), flush=True)
        if options.fp16:
            print(torch_fp16_error(name, options.programs), flush=True)
        if check.returncode != 0:
            print(f"{name}: the Vulkan program does not match eager; not timed", flush=True)
            left_out.append(name)
            continue
        cold, warm, reopen = [], [], []
        for attempt in range(3):
            shutil.rmtree(options.cache, ignore_errors=True)
            cold.append(duet_bench(options.duet_run, program, 1, 0, options.cache)["load_ms"])
            last = attempt == 2
            out = duet_bench(options.duet_run, program, 1, 0, options.cache,
                             ["--reload"] + (["--load-phases"] if last else []))
            warm.append(out["load_ms"])
            reopen.append(out["reload_ms"])
            if last:
                print_phases(name, "warm load", out["load_phases"])
                print_phases(name, "load, device open", out["reload_phases"])
        if options.profile:
            os.makedirs(options.profile, exist_ok=True)
            env = dict(os.environ, DUET_VULKAN_PIPELINE_CACHE=options.cache)
            proc = subprocess.run([options.duet_run, "bench", program, "--iterations", "50",
                                   "--warmup", "10", "--profile", "--json"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env=env)
            with open(os.path.join(options.profile, f"{name}.profile.json"), "w") as f:
                f.write(proc.stdout if proc.returncode == 0 else proc.stderr)
        model, x = build_model(name)
        model, x = model.cuda(), x.cuda()
        results = {"duet": [], "eager": [], "graph": [], "cold": cold, "warm": warm,
                   "open": reopen}
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
        del model
        torch.cuda.empty_cache()
        med = {k: statistics.median(v) for k, v in results.items()}
        rows.append((name, med))
        print(f"{name}: {json.dumps(results)}", flush=True)

    if options.fp16:
        print("\nduet with --force-fp16 (fp16 images, fp16 arithmetic in the convolutions and "
              "products); PyTorch fp32.")
    print("\n| model | duet Vulkan ms | PyTorch CUDA eager ms | CUDA graph replay ms "
          "| duet / eager | duet / graph | load cold ms | load warm ms | load, device open ms |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, m in rows:
        print(f"| {name} | {m['duet']:.2f} | {m['eager']:.2f} | {m['graph']:.2f} | "
              f"{m['duet'] / m['eager']:.2f} | {m['duet'] / m['graph']:.1f} | "
              f"{m['cold']:.0f} | {m['warm']:.0f} | {m['open']:.1f} |")
    if left_out:
        print(f"\nNot timed (output differs from eager): {', '.join(left_out)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
