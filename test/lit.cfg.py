# lit configuration for duet's FileCheck tests (.mlir, .test).
import os
import shutil
import subprocess
import tempfile

import lit.formats

config.name = "duet"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.duet_obj_root, "test")
# Fixtures, C++ unit tests and inputs named by RUN lines are not tests themselves.
config.excludes = ["models", "unit", "Inputs", "__pycache__", "lit.cfg.py", "lit.site.cfg.py.in", "CMakeLists.txt"]

# Sanitizer settings (scripts/run_tests.py --sanitize) and the Vulkan driver choice
# reach the tools the tests run.
for name in ["ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "VK_DRIVER_FILES", "VK_ICD_FILENAMES"]:
    if name in os.environ:
        config.environment[name] = os.environ[name]

config.environment["PATH"] = os.pathsep.join(
    [config.duet_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
config.substitutions.append(("%models", os.path.join(config.duet_src_root, "test", "models")))
config.substitutions.append(("%zoo", os.path.join(config.duet_src_root, "test", "zoo")))
config.substitutions.append(("%census", os.path.join(config.duet_src_root, "test", "census")))
config.substitutions.append(("%fuzz_regressions", os.path.join(config.duet_src_root, "test", "fuzz", "regressions")))
config.substitutions.append(("%examples", os.path.join(config.duet_src_root, "examples")))

# The instrumented tree (scripts/sanitize-build.sh): a few suites run a
# cheaper form of themselves there.
if config.duet_sanitize.upper() in ("ON", "TRUE", "1", "YES"):
    config.available_features.add("sanitize")

# duet's own qint8 convolution kernel (runtime/backends/xnnpack/Qs8Convolution)
# runs only on a CPU with AVX-512 VNNI.
try:
    with open("/proc/cpuinfo") as cpuinfo:
        cpu_flags = set(cpuinfo.read().split())
    if {"avx512f", "avx512bw", "avx512vl", "avx512_vnni"} <= cpu_flags:
        config.available_features.add("avx512-vnni")
except OSError:
    pass

# The Python package's tests run where it was built (DUET_PYTHON), with the
# interpreter it was built for, importing it from the build tree.
if config.duet_python.upper() in ("ON", "TRUE", "1", "YES"):
    config.available_features.add("duet-python")
    config.environment["PYTHONPATH"] = os.path.join(config.duet_obj_root, "python")
    config.environment["PYTHONDONTWRITEBYTECODE"] = "1"
    config.substitutions.append(("%python", config.python_executable))

# A small full disk for the tests of duet's file writers: a tmpfs mounted in a
# user namespace of its own (`unshare -rm`), which needs no privileges where
# the kernel allows unprivileged user namespaces. Where it does not, the
# full-disk tests are unsupported and the /dev/full and `ulimit -f` cases of
# output-atomic.test and the Catch2 tests stand for them.
if shutil.which("unshare"):
    probe_dir = tempfile.mkdtemp(prefix="duet-lit-probe-")
    try:
        probe = subprocess.run(
            ["unshare", "-rm", "mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", probe_dir],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if probe.returncode == 0:
            config.available_features.add("tmpfs-mount")
    except OSError:
        pass
    finally:
        os.rmdir(probe_dir)
