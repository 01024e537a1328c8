#!/usr/bin/env python3
"""Packs the output of tools/op_samples.py into test/ops/samples.tar.xz.

    pack_samples.py DIR [--out test/ops/samples.tar.xz]

The programs of DIR/samples.json, less those whose outputs are uninitialized
memory or random draws (op_samples.py's UNDEFINED; a run older than that list
still wrote them), go into one xz-compressed tar under the folder `samples/`,
with samples.json rewritten to name only them. Entries are sorted and carry no
owner or time, so the same samples give the same bytes. One archive, because
the programs' graphs repeat each other: compressed together they take about a
quarter of what they take as files deflated one by one.
"""

import argparse
import io
import json
import lzma
import os
import sys
import tarfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from op_samples import UNDEFINED  # noqa: E402


def add(archive, name, data):
    info = tarfile.TarInfo(f"samples/{name}")
    info.size = len(data)
    info.mode = 0o644
    archive.addfile(info, io.BytesIO(data))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("directory")
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__),
                                                      "samples.tar.xz"))
    options = parser.parse_args()
    with open(os.path.join(options.directory, "samples.json")) as f:
        manifest = json.load(f)
    kept = [p for p in manifest["programs"] if p["opinfo"] not in UNDEFINED]
    manifest["left_out_undefined"] = sorted(p["name"] for p in manifest["programs"]
                                            if p["opinfo"] in UNDEFINED)
    manifest["programs"] = kept
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as archive:
        add(archive, "samples.json", json.dumps(manifest, indent=1, sort_keys=True).encode())
        for program in sorted(kept, key=lambda p: p["name"]):
            for suffix in (".pt2", ".npz"):
                with open(os.path.join(options.directory, program["name"] + suffix), "rb") as f:
                    add(archive, program["name"] + suffix, f.read())
    data = lzma.compress(raw.getvalue(), preset=9 | lzma.PRESET_EXTREME)
    with open(options.out, "wb") as f:
        f.write(data)
    samples = sum(len(p["samples"]) for p in kept)
    print(f"{options.out}: {len(kept)} programs, {samples} samples, {len(data) / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
