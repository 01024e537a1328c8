#!/usr/bin/env python3
"""Runs every duet test (lit FileCheck tests and the Catch2 unit binaries) and
ends with one summary line, `N passed, N failed`.

Each runner writes JUnit XML; this script reads those files instead of the
runners' human output, so the counts are exact.

A skipped test (lit UNSUPPORTED, Catch2 SKIP) fails the run unless
test/expected-skips.json expects it for this tree ("plain" or "sanitize"), or
for this CPU ("cpu_lacks": expected only where /proc/cpuinfo lacks the flag),
or for this machine ("unless_command": expected only where the command fails,
as the mount of a small tmpfs does without user namespaces).
Tests left out on purpose (--filter, and the integration tests under
--sanitize) are not skips.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

LIT = "/usr/lib/llvm-19/build/utils/lit/lit.py"


def test_key(case, lit):
    """A test's name as test/expected-skips.json spells it: its path under
    test/ for lit (classname "duet.runtime/vulkan", name "fp16.test"), its
    name for Catch2."""
    if not lit:
        return case.get("name", "")
    folder = case.get("classname", "").partition(".")[2]
    return f"{folder}/{case.get('name', '')}".strip("/")


def count_junit(path, lit):
    """Returns (passed, failed names, skipped [(key, message)]) from a JUnit
    XML file. Tests a filter left out are not counted."""
    passed, failed, skipped = 0, [], []
    root = ET.parse(path).getroot()
    for case in root.iter("testcase"):
        name = f"{case.get('classname', '')}.{case.get('name', '')}".strip(".")
        skip = case.find("skipped")
        if case.find("failure") is not None or case.find("error") is not None:
            failed.append(name)
        elif skip is not None:
            message = skip.get("message") or ""
            if not message.startswith("Test not selected"):
                skipped.append((test_key(case, lit), message))
        else:
            passed += 1
    return passed, failed, skipped


def expected_skips(tree):
    """{key: why} of the skips test/expected-skips.json expects in `tree` on
    this machine."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test",
                        "expected-skips.json")
    with open(path) as f:
        table = json.load(f)
    expected = dict(table.get(tree, {}))
    try:
        with open("/proc/cpuinfo") as f:
            flags = set(f.read().split())
    except OSError:
        flags = set()
    for key, flag in table.get("cpu_lacks", {}).items():
        if flag not in flags:
            expected[key] = f"this CPU lacks {flag}"
    for key, command in table.get("unless_command", {}).items():
        try:
            works = subprocess.run(["sh", "-c", command], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, timeout=30).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            works = False
        if not works:
            expected[key] = f"`{command}` fails here"
    return expected


def is_expected(key, expected):
    return any(key == k or (k.endswith("/") and key.startswith(k)) for k in expected)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build-dir", default="build")
    parser.add_argument("--filter", help="only lit tests whose path matches this regex")
    parser.add_argument("--sanitize", action="store_true",
                        help="the build is instrumented (scripts/sanitize-build.sh): run the "
                             "unit, lit and e2e suites under the sanitizers; a report fails the "
                             "test. The install and packaging tests are left to the plain build.")
    args = parser.parse_args()

    build = os.path.abspath(args.build_dir)
    results = os.path.join(build, "test-results")
    os.makedirs(results, exist_ok=True)
    for old in glob.glob(os.path.join(results, "*.xml")):
        os.remove(old)

    env = dict(os.environ)
    # Vulkan tests run on Mesa's CPU device unless the caller chose another.
    lvp = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"
    if os.path.exists(lvp) and "VK_DRIVER_FILES" not in env and "VK_ICD_FILENAMES" not in env:
        env["VK_DRIVER_FILES"] = lvp

    if args.sanitize:
        # allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its slabs in our
        # instrumented code while the uninstrumented libMLIR.so writes into them,
        # a false positive; turning off user poisoning keeps every real report.
        env["ASAN_OPTIONS"] = ("allow_user_poisoning=0:detect_leaks=1:abort_on_error=0:"
                               "halt_on_error=1:exitcode=86")
        env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1:exitcode=86"
        # print_suppressions=0: a matched suppression (lavapipe's own leaks)
        # would otherwise append its summary to stderr, which tests read.
        env["LSAN_OPTIONS"] = "print_suppressions=0:suppressions=" + os.path.join(
            os.path.dirname(os.path.abspath(__file__)), "lsan.supp")

    runs = []
    lit_cmd = [sys.executable, LIT, "-sv", "--xunit-xml-output",
               os.path.join(results, "lit.xml"), os.path.join(build, "test")]
    if args.filter:
        lit_cmd += ["--filter", args.filter]
    if args.sanitize:
        # These install the package and build outside projects with the system
        # compiler, which cannot link instrumented libraries.
        lit_cmd += ["--filter-out", "integration/"]
    runs.append(("lit", lit_cmd, os.path.join(results, "lit.xml")))

    for binary in sorted(glob.glob(os.path.join(build, "bin", "*-tests"))):
        name = os.path.basename(binary)
        xml = os.path.join(results, f"{name}.xml")
        runs.append((name, [binary, "-r", "junit", "-o", xml], xml))

    passed, failed, skipped = 0, [], []
    for name, cmd, xml in runs:
        print(f"== {name}", flush=True)
        proc = subprocess.run(cmd, env=env)
        try:
            p, f, s = count_junit(xml, name == "lit")
        except (OSError, ET.ParseError):
            # The runner died before finishing its report (a sanitizer stops the
            # process at its first finding): that is a failure.
            failed.append(f"{name} (exit {proc.returncode}, no complete report)")
            continue
        if proc.returncode != 0 and not f:
            f = [f"{name} (exit {proc.returncode})"]
        passed, skipped = passed + p, skipped + s
        failed += f
        if name != "lit":
            print(f"   {p} passed, {len(f)} failed")

    expected = expected_skips("sanitize" if args.sanitize else "plain")
    for key, message in skipped:
        if not is_expected(key, expected):
            failed.append(f"{key} (skipped, which test/expected-skips.json does not expect: "
                          f"{message or 'no reason given'})")
            # The Vulkan tests are unsupported when `duet devices` fails:
            # show what it said (test/runtime/vulkan/lit.local.cfg keeps it).
            probe = os.path.join(build, "test", "devices-probe.log")
            if key.startswith("runtime/vulkan/") and os.path.exists(probe):
                with open(probe, errors="replace") as f:
                    failed[-1] += "\n  `duet devices` said:\n  " + f.read().strip().replace("\n", "\n  ")
    for name in failed:
        print(f"FAILED: {name}")
    line = f"{passed} passed, {len(failed)} failed"
    if skipped:
        line += f", {len(skipped)} skipped as expected" if len(skipped) == sum(
            is_expected(k, expected) for k, _ in skipped) else f", {len(skipped)} skipped"
    print(line)
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
