#!/usr/bin/env python3
"""Writes the core ATen opset of the installed PyTorch, and the ops its export
decomposes, as the list duet's coverage is measured against.

    python3 tools/core_aten_ops.py --out dialects/aten/core_aten_ops.json

The file holds:
  torch        the PyTorch version it was read from
  core         every overload of torch.ops.aten tagged `core` (the opset that
               ExecuTorch's portable library covers), with its schema
  decomposed   every overload that `ExportedProgram.run_decompositions()` with
               the default table rewrites into other ops: an op of this list
               that duet refuses may import after re-exporting that way

Run it on the machine the fixtures are exported on (PyTorch 2.11); nothing else
in it depends on that machine.
"""

import argparse
import json

import torch


def overloads():
    for name in sorted(dir(torch.ops.aten)):
        packet = getattr(torch.ops.aten, name, None)
        if not isinstance(packet, torch._ops.OpOverloadPacket):
            continue
        for overload in sorted(packet.overloads()):
            yield f"{name}.{overload}", getattr(packet, overload)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    core = [{"op": name, "schema": str(op._schema)}
            for name, op in overloads() if torch.Tag.core in op.tags]
    table = torch.export.default_decompositions()
    decomposed = sorted(str(op).removeprefix("aten.") for op in table.keys()
                        if str(op).startswith("aten."))
    with open(args.out, "w") as f:
        json.dump({"torch": torch.__version__, "core": core, "decomposed": decomposed},
                  f, indent=1)
        f.write("\n")
    print(f"{args.out}: {len(core)} core overloads, {len(decomposed)} decomposed")


if __name__ == "__main__":
    main()
