"""Replaces bytes of a file in place, keeping its length, to make a program
with unusual names (a FlatBuffer string keeps its length prefix valid).

usage: python3 patch_bytes.py FILE OLD_HEX NEW_HEX [COUNT]
OLD_HEX must occur exactly COUNT times (default 1) in FILE, and every
occurrence is replaced; NEW_HEX has the same length.
"""
import sys


def main():
    path, old, new = sys.argv[1], bytes.fromhex(sys.argv[2]), bytes.fromhex(sys.argv[3])
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    if len(old) != len(new):
        sys.exit("error: the old and new bytes differ in length")
    data = open(path, "rb").read()
    if data.count(old) != count:
        sys.exit(f"error: {path}: {old!r} occurs {data.count(old)} times, not {count}")
    open(path, "wb").write(data.replace(old, new))


if __name__ == "__main__":
    main()
