"""Checks the output of examples/cmake-build-step's `classify` against the
eager PyTorch reference (.npy): the same top-5 classes with the same scores,
and the reported max abs difference within the fp32 tolerance of docs/cli.md,
max |out - ref| <= 1e-4 * max|ref| + 1e-5.

usage: classify ... | python3 check_classify.py reference.npy
"""
import ast
import re
import struct
import sys


def read_npy_float32(path):
    """The values of a little-endian float32 .npy file (format 1.0-3.0)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        sys.exit(f"{path}: not a .npy file")
    major = data[6]
    if major == 1:
        (length,), start = struct.unpack("<H", data[8:10]), 10
    else:
        (length,), start = struct.unpack("<I", data[8:12]), 12
    header = ast.literal_eval(data[start:start + length].decode("latin1"))
    if header["descr"] != "<f4" or header["fortran_order"]:
        sys.exit(f"{path}: expected C-order <f4, got {header}")
    body = data[start + length:]
    return list(struct.unpack(f"<{len(body) // 4}f", body))


def main():
    ref = read_npy_float32(sys.argv[1])
    text = sys.stdin.read()
    rows = [(int(c), float(v)) for c, v in re.findall(r"class (\d+): (\S+)", text)]
    diff = re.search(r"max abs diff from \S+: (\S+) \(max \|ref\| (\S+)\)", text)
    if len(rows) != 5 or not diff:
        sys.exit(f"unexpected output from classify:\n{text}")
    max_ref = max(abs(v) for v in ref)
    bound = 1e-4 * max_ref + 1e-5
    expected = sorted(range(len(ref)), key=lambda i: -ref[i])[:5]
    got = [c for c, _ in rows]
    if got != expected:
        sys.exit(f"top-5 classes {got}, the reference has {expected}")
    for cls, value in rows:
        # The app prints six decimals.
        if abs(value - ref[cls]) > bound + 5e-7:
            sys.exit(f"class {cls}: {value} vs reference {ref[cls]}")
    reported = float(diff.group(1))
    if not reported <= bound:
        sys.exit(f"max abs diff {reported} > bound {bound}")
    print(f"ok: top-5 {got} match the reference; max abs diff {reported:.3g} <= {bound:.3g}")


if __name__ == "__main__":
    main()
