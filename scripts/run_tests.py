#!/usr/bin/env python3
"""Runs every duet test (lit FileCheck tests and the Catch2 unit binaries) and
ends with one summary line, `N passed, N failed`.

Each runner writes JUnit XML; this script reads those files instead of the
runners' human output, so the counts are exact.
"""
import argparse
import glob
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

LIT = "/usr/lib/llvm-19/build/utils/lit/lit.py"


def count_junit(path):
    """Returns (passed, failed names, skipped) from a JUnit XML file."""
    passed, failed, skipped = 0, [], 0
    root = ET.parse(path).getroot()
    for case in root.iter("testcase"):
        name = f"{case.get('classname', '')}.{case.get('name', '')}".strip(".")
        if case.find("failure") is not None or case.find("error") is not None:
            failed.append(name)
        elif case.find("skipped") is not None:
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


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

    passed, failed, skipped = 0, [], 0
    for name, cmd, xml in runs:
        print(f"== {name}", flush=True)
        proc = subprocess.run(cmd, env=env)
        try:
            p, f, s = count_junit(xml)
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

    for name in failed:
        print(f"FAILED: {name}")
    line = f"{passed} passed, {len(failed)} failed"
    if skipped:
        line += f", {skipped} skipped"
    print(line)
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
