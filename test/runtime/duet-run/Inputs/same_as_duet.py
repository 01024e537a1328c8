"""Runs `duet ARGS...` and `duet-run ARGS...` (both from PATH) and checks
that they exit with the same code and print the same stdout and stderr,
timings aside ("in 1.23 ms" is compared as "in N ms"). Prints duet-run's
stderr, stdout and "exit=N" for FileCheck; exits 1 when the two differ.

usage: python3 same_as_duet.py ARGS...
"""
import re
import subprocess
import sys


def run(tool, args):
    proc = subprocess.run([tool] + args, capture_output=True, text=True)
    mask = lambda text: re.sub(r"\b[0-9]+(\.[0-9]+)? ms\b", "N ms", text)
    return proc.returncode, mask(proc.stdout), mask(proc.stderr)


def main():
    args = sys.argv[1:]
    duet = run("duet", args)
    duet_run = run("duet-run", args)
    code, out, err = duet_run
    sys.stdout.write(err + out + f"exit={code}\n")
    if duet != duet_run:
        sys.stdout.write(f"DIFFERENT from duet: exit={duet[0]}\n{duet[2]}{duet[1]}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
