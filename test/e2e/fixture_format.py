"""The lit test format of test/e2e (see lit.local.cfg there). It lives in a
module so that lit can send its tests to worker processes."""
import json
import os
import subprocess

import lit.formats
import lit.Test

# Backend sets that this build can compile and run, in priority order.
BACKEND_SETS = ["portable", "xnnpack", "vulkan", "vulkan,xnnpack", "vulkan+fp16"]

# Extra `duet compile` and `duet run` arguments of a set named
# "<backends>+<variant>". fp16: Vulkan textures stored as RGBA16F
# (--force-fp16). Every value in an image is rounded to fp16 (11-bit
# significand, relative spacing 2^-10 ~ 1e-3) at each op boundary, so errors
# add up through a graph; the tolerance is rtol 1e-2, atol 1e-2 (per element,
# |out - ref| <= atol + rtol * |ref|), about 3x the worst fixture seen under
# the earlier whole-output rule (activations: max diff 8.05 for max|ref| 2740,
# 2.9e-3 of max|ref|). The fp32 sets keep
# duet run's dtype defaults.
VARIANTS = {
    "fp16": (["--force-fp16"], ["--rtol", "1e-2", "--atol", "1e-2"]),
}


def tolerance_args(fixture, run_extra, backends=""):
    """run_extra with the fixture's own "tolerance" (MANIFEST.json: {"rtol", "atol",
    "why"}, e.g. one int8 step of a quantized output) applied to every output, or
    for a backend set with XNNPACK its "tolerance_xnnpack" and for a variant its
    "tolerance_<variant>" when it has them (a deep int8 network computed in
    integers, or through fp16 textures: see docs/quantization.md). A
    variant's --rtol/--atol and the fixture's combine into the looser of each, given
    once. An entry without "tolerance" keeps run_extra as it is."""
    tolerance = fixture.get("tolerance")
    sets, _, variant = backends.partition("+")
    if "xnnpack" in sets.split(",") and fixture.get("tolerance_xnnpack"):
        tolerance = fixture["tolerance_xnnpack"]
    if variant and fixture.get("tolerance_" + variant):
        tolerance = fixture["tolerance_" + variant]
    if not tolerance:
        return list(run_extra)
    wanted = {"--rtol": float(tolerance["rtol"]), "--atol": float(tolerance["atol"])}
    out, i = [], 0
    while i < len(run_extra):
        if run_extra[i] in wanted and i + 1 < len(run_extra):
            wanted[run_extra[i]] = max(wanted[run_extra[i]], float(run_extra[i + 1]))
            i += 2
        else:
            out.append(run_extra[i])
            i += 1
    for flag, value in wanted.items():
        out += [flag, repr(value)]
    return out


def placement_errors(report_path, backends):
    """What the placement report (`duet compile --report`) says against the
    set: an op left on the portable kernels that a backend of the set did not
    reject. Portable is every set's fallback, so without this check a set
    whose backend took nothing would still pass."""
    with open(report_path) as f:
        report = json.load(f)
    errors = []
    for op in report["ops"]:
        if op["backend"] != "portable":
            continue
        said_no = {r["backend"] for r in op.get("rejections", [])}
        for backend in backends:
            if backend != "portable" and backend not in said_no:
                errors.append(f"node '{op['node']}' ({op['op']}) ran on the portable kernels, "
                              f"though {backend} did not reject it")
    return errors


class FixtureFormat(lit.formats.base.TestFormat):
    """One test per manifest entry, flavour and backend set.

    models: the folder of MANIFEST.json and its files; tools: where `duet` is;
    backend_sets: the sets to compile each entry for (default BACKEND_SETS);
    work: the folder under the suite's exec root for the compiled programs."""

    def __init__(self, models, tools, backend_sets=BACKEND_SETS, work="e2e"):
        self.models = models
        self.tools = tools
        self.backend_sets = list(backend_sets)
        self.work = work

    def getTestsInDirectory(self, testSuite, path_in_suite, litConfig, localConfig):
        with open(os.path.join(self.models, "MANIFEST.json")) as f:
            manifest = json.load(f)
        for fixture in manifest["fixtures"]:
            for flavour in sorted(fixture["flavours"]):
                for backends in self.backend_sets:
                    name = f"{fixture['name']}.{flavour}.{backends}"
                    test = lit.Test.Test(testSuite, path_in_suite + (name,), localConfig)
                    test.fixture = (fixture, flavour, backends)
                    yield test

    def execute(self, test, litConfig):
        fixture, flavour, backend_set = test.fixture
        backends, _, variant = backend_set.partition("+")
        compile_extra, run_extra = VARIANTS[variant] if variant else ([], [])
        tmp = os.path.join(test.suite.exec_root, self.work, test.path_in_suite[-1])
        os.makedirs(os.path.dirname(tmp), exist_ok=True)
        program = tmp + ".duet"
        duet = os.path.join(self.tools, "duet")
        report = tmp + ".report.json"
        compile_cmd = [duet, "compile", os.path.join(self.models, fixture["flavours"][flavour]["file"]),
                       "-o", program, "--backends", backends, "--report", report] + compile_extra
        run_cmd = [duet, "run", program] + tolerance_args(fixture, run_extra, backend_set)
        for spec in fixture["inputs"]:
            run_cmd += ["--input", os.path.join(self.models, spec["file"])]
        for spec in fixture["outputs"]:
            run_cmd += ["--expect", os.path.join(self.models, spec["file"])]
        log = ""
        for cmd in (compile_cmd, run_cmd):
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            log += "$ " + " ".join(cmd) + "\n" + proc.stdout
            if proc.returncode != 0:
                return lit.Test.FAIL, log + f"exit code {proc.returncode}\n"
            if cmd is compile_cmd:
                errors = placement_errors(report, backends.split(","))
                if errors:
                    return lit.Test.FAIL, log + "placement: " + "\n  ".join(errors) + "\n"
        return lit.Test.PASS, log
