"""Edits a float32 .npy file without NumPy (the test machine has none).

usage: python3 edit_npy.py nudge IN OUT   adds 5e-5 * max|x| to the element of
                                          smallest magnitude; prints its flat index
       python3 edit_npy.py widen IN OUT   the same values as float64
"""
import ast
import struct
import sys
from array import array


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        sys.exit(f"{path}: not a .npy file")
    major = data[6]
    size_format, start = ("<H", 8) if major == 1 else ("<I", 8)
    (header_len,) = struct.unpack_from(size_format, data, start)
    body = start + struct.calcsize(size_format) + header_len
    header = ast.literal_eval(data[start + struct.calcsize(size_format):body].decode("latin1"))
    if header["descr"] != "<f4" or header["fortran_order"]:
        sys.exit(f"{path}: expected little-endian float32 in C order, got {header}")
    values = array("f")
    values.frombytes(data[body:])
    return header["shape"], values


def write(path, shape, values, descr):
    header = repr({"descr": descr, "fortran_order": False, "shape": tuple(shape)})
    header += " " * (-(10 + len(header) + 1) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(values.tobytes())


def main():
    verb, source, target = sys.argv[1:4]
    shape, values = read(source)
    if verb == "nudge":
        largest = max(abs(v) for v in values)
        index = min(range(len(values)), key=lambda i: abs(values[i]))
        values[index] += 5e-5 * largest
        write(target, shape, values, "<f4")
        print(index)
    elif verb == "widen":
        write(target, shape, array("d", values), "<f8")
    else:
        sys.exit(f"unknown verb {verb}")


if __name__ == "__main__":
    main()
