#!/usr/bin/env python3
"""Checks that every #include of duet's own sources points down the layers.

Usage: check_layers.py SOURCE_ROOT [--list]

The layers, lowest first, and what each may include besides itself
(docs/architecture.md, "Layout as built"; README.md of each folder):

  runtime/schema      nothing of duet
  runtime/core        runtime/schema, include/
  runtime/kernels     runtime/core, and the generated aten tables
  runtime/backends    runtime/core, runtime/kernels
  runtime/api         the runtime below it
  runtime/cli         the runtime below it
  runtime/duet-run    the runtime below it
  dialects            the runtime (its schema, limits and formulas)
  passes              dialects
  partitioners        passes
  compiler            everything

"The runtime below it" is every runtime folder listed above it. An include
from a layer to one listed after it is an arrow pointing back up, and fails.
The generated tables (`dialects/aten/Aten*.inc`, plain C++ written from the
ODS at build time) are the one way the runtime reads the dialect's facts; they
are allowed there. Exits 1 naming each offending line; --list prints every
folder-to-folder arrow found.
"""

import os
import re
import sys

LAYERS = [
    "runtime/schema", "runtime/core", "runtime/kernels", "runtime/backends",
    "runtime/api", "runtime/cli", "runtime/duet-run", "dialects", "passes",
    "partitioners", "compiler",
]
# Includes the runtime may make of the compiler side: plain C++ tables
# generated from the ODS.
GENERATED = re.compile(r"^dialects/aten/Aten\w*\.inc$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(path):
    for index, layer in enumerate(LAYERS):
        if path == layer or path.startswith(layer + "/"):
            return index
    return None


def main():
    root = sys.argv[1]
    listing = "--list" in sys.argv[2:]
    arrows = {}
    bad = []
    for layer in LAYERS:
        for folder, _, files in os.walk(os.path.join(root, layer)):
            for name in sorted(files):
                if not name.endswith((".h", ".cpp", ".inc", ".comp", ".glsl")):
                    continue
                path = os.path.join(folder, name)
                source = os.path.relpath(path, root)
                here = layer_of(source)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        match = INCLUDE.match(line)
                        if not match:
                            continue
                        target = match.group(1)
                        there = layer_of(target)
                        if there is None or there == here:
                            continue
                        arrows.setdefault((LAYERS[here], LAYERS[there]), 0)
                        arrows[(LAYERS[here], LAYERS[there])] += 1
                        if there > here and not (LAYERS[here].startswith("runtime/")
                                                 and GENERATED.match(target)):
                            bad.append(f"{source}:{number}: includes {target}: "
                                       f"{LAYERS[here]} is below {LAYERS[there]}")
    if listing:
        for (a, b), count in sorted(arrows.items()):
            print(f"{a} -> {b}: {count}")
    for line in bad:
        print(line)
    if bad:
        print(f"check_layers.py: {len(bad)} include(s) point back up the layers")
        return 1
    print(f"check_layers.py: {sum(arrows.values())} includes across "
          f"{len(arrows)} folder pairs, all pointing down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
