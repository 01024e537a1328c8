#!/usr/bin/env python3
"""Damages a duet Vulkan pipeline-cache file in one of the ways a load must
survive (runtime/backends/vulkan/PipelineCache.cpp has the layout).

usage: edit_pipeline_cache.py MODE FILE
  flip     flips a bit of the driver's data (the checksum no longer matches)
  truncate cuts the file in the middle of the driver's data
  foreign  changes the deviceID in the driver's header and fixes the checksum,
           as a file written on another device would be
  garbage  replaces the file with bytes that are no cache at all
"""
import struct
import sys

HEADER = 32


def fnv1a(data):
    h = 0xcbf29ce484222325
    for byte in data:
        h ^= byte
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def main():
    mode, path = sys.argv[1], sys.argv[2]
    data = bytearray(open(path, "rb").read())
    assert data[:8] == b"DUETVKPC", "not a duet pipeline cache"
    if mode == "flip":
        data[HEADER + len(data[HEADER:]) // 2] ^= 0x10
    elif mode == "truncate":
        data = data[:HEADER + (len(data) - HEADER) // 2]
    elif mode == "foreign":
        device = struct.unpack_from("<I", data, HEADER + 12)[0]
        struct.pack_into("<I", data, HEADER + 12, device ^ 0x5A5A)
        struct.pack_into("<Q", data, 24, fnv1a(data[HEADER:]))
    elif mode == "garbage":
        data = bytearray(b"not a pipeline cache\n" * 4)
    else:
        sys.exit(f"unknown mode {mode}")
    open(path, "wb").write(data)


if __name__ == "__main__":
    main()
