"""Checks the "profile" array of `duet-run bench --profile --json` against
`duet inspect --json` of the same program: one row per instruction (a
delegated partition is one, each op of a portable partition one), each row
with the documented keys, kernel rows naming the ops of the program,
percentages that sum to 100 and parts that fit inside their row.

usage: python3 check_profile.py <inspect.json> <bench.json>
Prints "ok: N instructions (K kernel, D delegate, P parts), percent sum S".
"""
import json
import sys

ROW_KEYS = ["instruction", "kind", "name", "node", "median_ms", "percent", "parts"]
PART_KEYS = ["name", "median_ms", "percent"]


def fail(message):
    print(f"error: {message}")
    sys.exit(1)


def main():
    inspect = json.load(open(sys.argv[1]))
    bench = json.load(open(sys.argv[2]))
    expected_ops, delegates = [], 0
    for partition in inspect["partitions"]:
        if "delegate" in partition:
            delegates += 1
        else:
            expected_ops += [op["op"] for op in partition["ops"]]
    count = delegates + len(expected_ops)

    rows = bench["profile"]
    if sorted(r["instruction"] for r in rows) != list(range(count)):
        fail(f"instructions {sorted(r['instruction'] for r in rows)}, "
             f"expected 0..{count - 1}")
    for row in rows:
        if list(row) != ROW_KEYS:
            fail(f"row keys {list(row)}")
        if row["kind"] not in ("kernel", "delegate"):
            fail(f"kind {row['kind']}")
        for part in row["parts"]:
            if list(part) != PART_KEYS:
                fail(f"part keys {list(part)}")
        if sum(p["median_ms"] for p in row["parts"]) > row["median_ms"] * 1.5 + 0.05:
            fail(f"the parts of instruction {row['instruction']} take more than it")
    ms = [r["median_ms"] for r in rows]
    if ms != sorted(ms, reverse=True):
        fail("rows are not sorted by time")
    kernels = sorted(r["name"] for r in rows if r["kind"] == "kernel")
    if kernels != sorted(expected_ops):
        fail(f"kernel rows {kernels}, the program's ops {sorted(expected_ops)}")
    total = sum(r["percent"] for r in rows)
    if abs(total - 100) > 0.01:
        fail(f"percentages sum to {total}")
    parts = sum(len(r["parts"]) for r in rows)
    print(f"ok: {count} instructions ({len(expected_ops)} kernel, {delegates} "
          f"delegate, {parts} parts), percent sum {round(total)}")


main()
