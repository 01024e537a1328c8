"""Plants a fault at delegate nodes drawn at random and checks that
`duet-run bisect` names each one.

usage: bisect_trials.py BACKEND SEED WORKDIR MODEL.pt2:INPUT.npy:TRIALS...

Each model is compiled with `--backends BACKEND`; its candidate nodes are the
"node" of every op of its BACKEND partitions (`duet inspect --json`). Nodes
are drawn without replacement from a generator seeded with SEED, and each
gets one fault, the kinds taking turns (nan, add 100, zero). A node the
delegate cannot fault is refused at load with one of the two documented
messages (its op is fused into a later op's node; it has no floating-point
result); it is counted as refused and another is drawn. Any other outcome of
a trial (bisect naming another node, or nothing, or failing otherwise) is a
failure. Prints one line per model and the totals.
"""

import json
import os
import random
import subprocess
import sys

REFUSALS = ("computes no value of its own", "computes no tensor of its own",
            "has no floating-point result")
KINDS = ("nan", "add:100", "zero")


def run(args):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)


def nodes_of(program, backend):
    out = run(["duet", "inspect", program, "--json"])
    if out.returncode != 0:
        sys.exit(f"duet inspect {program} failed: {out.stderr}")
    nodes = []
    for partition in json.loads(out.stdout)["partitions"]:
        if partition["backend"] != backend:
            continue
        for op in partition["ops"]:
            node = op.get("node")
            if node and node not in nodes:
                nodes.append(node)
    return nodes


def main():
    backend, seed, workdir = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    rng = random.Random(seed)
    failures, total, refused_total = [], 0, 0
    for spec in sys.argv[4:]:
        model, inputs, trials = spec.rsplit(":", 2)
        trials = int(trials)
        name = os.path.basename(model).split(".")[0]
        program = os.path.join(workdir, f"{name}.{backend}.duet")
        out = run(["duet", "compile", model, "-o", program, "--backends",
                   backend, "-q"])
        if out.returncode != 0:
            sys.exit(f"duet compile {model} failed: {out.stderr}")
        candidates = nodes_of(program, backend)
        rng.shuffle(candidates)
        done = refused = 0
        for node in candidates:
            if done == trials:
                break
            kind = KINDS[(total + done) % len(KINDS)]
            out = run(["duet-run", "bisect", program, "-i", inputs, "--json",
                       "--inject-fault", f"{node}:{kind}"])
            if out.returncode == 2 and any(r in out.stderr for r in REFUSALS):
                refused += 1
                continue
            named = None
            if out.returncode == 6:
                first = json.loads(out.stdout)["first_divergent"]
                named = first["node"] if first else None
            if named != node:
                failures.append(f"{name} {node}:{kind}: exit {out.returncode}, "
                                f"bisect named {named!r}: {out.stderr.strip()}")
            done += 1
        if done < trials:
            failures.append(f"{name}: only {done} of {len(candidates)} nodes "
                            f"could be faulted, {trials} wanted")
        print(f"{name}: {done} nodes faulted and named, {refused} refused "
              f"(fused or not floating-point)")
        total += done
        refused_total += refused
    print(f"{backend}: {total} trials, {len(failures)} failed")
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
