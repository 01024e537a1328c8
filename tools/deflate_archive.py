#!/usr/bin/env python3
"""Rewrites .pt2 archives with every entry deflated, byte for byte the same.

usage: python3 tools/deflate_archive.py ARCHIVE.pt2 [...]

torch.export.save stores entries uncompressed. Random-weight archives shrink
only about 11% when deflated, but that keeps the repository's tracked files
under the 64 MiB that travel to the device machine (.library/device). duet's
importer reads stored and deflated entries alike (compiler/import/Pt2Archive.cpp).
The archive is written to a temporary file beside it and renamed over it;
each entry is checked against the original before the rename.
"""
import os
import sys
import tempfile
import zipfile


def deflate(path):
    folder = os.path.dirname(os.path.abspath(path))
    with zipfile.ZipFile(path) as source:
        infos = source.infolist()
        fd, temporary = tempfile.mkstemp(dir=folder, suffix=".pt2")
        os.close(fd)
        try:
            with zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as out:
                for info in infos:
                    entry = zipfile.ZipInfo(info.filename, info.date_time)
                    entry.compress_type = zipfile.ZIP_DEFLATED
                    entry.external_attr = info.external_attr
                    out.writestr(entry, source.read(info.filename), compresslevel=9)
            with zipfile.ZipFile(temporary) as check:
                for info in infos:
                    if check.read(info.filename) != source.read(info.filename):
                        raise RuntimeError(f"{path}: entry {info.filename} differs after deflating")
            before = os.path.getsize(path)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    print(f"{path}: {before} -> {os.path.getsize(path)} bytes")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        deflate(path)


if __name__ == "__main__":
    main()
