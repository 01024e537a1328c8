"""The torchvision models of the comparison, built as duet's bundled .pt2 were
(torchvision's architecture, weights=None, initialized after
torch.manual_seed(0), eval mode), for the PyTorch-side measurements: eager
latency and the ONNX file ONNX Runtime runs. Weights need not equal the .pt2
ones for latency; the architecture and shapes do. Runs on Debian's PyTorch 1.13
(python3-torch, python3-torchvision), which has no torch.export.

Usage:
  torch_models.py export NAME out.onnx
  torch_models.py bench NAME --threads N [--iterations N] [--warmup N]
(bench prints one JSON object like `duet bench --json`; load_ms is the model
construction, which is not comparable to a file load and is reported as such.)
"""
import argparse
import json
import statistics
import time

import torch
import torchvision

MODELS = {
    "mobilenet_v3_small": torchvision.models.mobilenet_v3_small,
    "mobilenet_v2": torchvision.models.mobilenet_v2,
}


def build(name):
    torch.manual_seed(0)
    model = MODELS[name](weights=None)
    model.eval()
    return model


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    export = sub.add_parser("export")
    export.add_argument("name", choices=sorted(MODELS))
    export.add_argument("output")
    bench = sub.add_parser("bench")
    bench.add_argument("name", choices=sorted(MODELS))
    bench.add_argument("--threads", type=int, required=True)
    bench.add_argument("--iterations", type=int, default=100)
    bench.add_argument("--warmup", type=int, default=10)
    args = parser.parse_args()

    if args.command == "export":
        model = build(args.name)
        torch.onnx.export(model, torch.randn(1, 3, 224, 224), args.output,
                          input_names=["x"], output_names=["logits"],
                          opset_version=13)
        return

    torch.set_num_threads(args.threads)
    torch.set_num_interop_threads(1)
    start = time.perf_counter()
    model = build(args.name)
    load_ms = (time.perf_counter() - start) * 1e3
    torch.manual_seed(1)
    x = torch.randn(1, 3, 224, 224)
    times = []
    with torch.inference_mode():
        for i in range(args.warmup + args.iterations):
            start = time.perf_counter()
            model(x)
            ms = (time.perf_counter() - start) * 1e3
            if i >= args.warmup:
                times.append(ms)
    print(json.dumps({
        "median_ms": statistics.median(times), "min_ms": min(times),
        "max_ms": max(times), "load_ms": load_ms,
        "iterations": args.iterations, "threads": args.threads,
    }))


if __name__ == "__main__":
    main()
