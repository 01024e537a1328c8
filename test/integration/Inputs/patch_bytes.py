"""Replaces bytes of a file in place, keeping its length, to make a program
with unusual names (a FlatBuffer string keeps its length prefix valid).

usage: python3 patch_bytes.py FILE OLD_HEX NEW_HEX
OLD_HEX must occur exactly once in FILE; NEW_HEX has the same length.
"""
import sys


def main():
    path, old, new = sys.argv[1], bytes.fromhex(sys.argv[2]), bytes.fromhex(sys.argv[3])
    if len(old) != len(new):
        sys.exit("error: the old and new bytes differ in length")
    data = open(path, "rb").read()
    if data.count(old) != 1:
        sys.exit(f"error: {path}: {old!r} occurs {data.count(old)} times, not once")
    open(path, "wb").write(data.replace(old, new))


if __name__ == "__main__":
    main()
