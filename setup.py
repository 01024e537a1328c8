"""Builds the duet Python package with the project's own CMake build, for
`pip install .` (pyproject.toml). The extension is the CMake target _duet;
setuptools only copies what CMake built. DUET_CMAKE_ARGS adds configure
arguments; DUET_BUILD_DIR reuses a build folder."""
import os
import shlex
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.environ.get("DUET_BUILD_DIR") or os.path.join(
            os.path.abspath(self.build_temp), "cmake")
        if not os.path.exists(os.path.join(build, "build.ninja")):
            subprocess.check_call(
                ["cmake", "-G", "Ninja", "-S", ROOT, "-B", build,
                 "-DCMAKE_BUILD_TYPE=Release", "-DDUET_PYTHON=ON",
                 "-DDUET_BUILD_TESTS=OFF", "-DPython3_EXECUTABLE=" + sys.executable]
                + shlex.split(os.environ.get("DUET_CMAKE_ARGS", "")))
        subprocess.check_call(["cmake", "--build", build, "--target", "_duet"])
        built = os.path.join(build, "python", "duet")
        target = os.path.dirname(os.path.abspath(self.get_ext_fullpath(ext.name)))
        os.makedirs(target, exist_ok=True)
        for name in os.listdir(built):
            if name.startswith("_duet") and name.endswith(".so"):
                self.copy_file(os.path.join(built, name), os.path.join(target, name))


setup(ext_modules=[Extension("duet._duet", sources=[])],
      cmdclass={"build_ext": CMakeBuild})
