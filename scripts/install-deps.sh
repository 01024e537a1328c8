#!/usr/bin/env bash
# Installs, on Debian 12 as root, exactly the Debian packages duet needs to build and test.
# Packages already present are skipped; a second run installs nothing.
set -euo pipefail

packages=(
  # build
  cmake ninja-build ccache g++ make python3 pkg-config
  # compiler: LLVM/MLIR 19, lit and FileCheck
  llvm-19-dev llvm-19-tools libmlir-19-dev mlir-19-tools
  # shared libraries and formats
  libflatbuffers-dev flatbuffers-compiler nlohmann-json3-dev libcli11-dev libfmt-dev
  libminizip-dev zlib1g-dev
  # CPU delegate
  libxnnpack-dev libpthreadpool-dev
  # GPU delegate: loader, headers, lavapipe, shader compiler
  libvulkan-dev mesa-vulkan-drivers glslc
  # the Python package (python/) and its tests
  pybind11-dev python3-dev python3-numpy
  # tests and tools; clang 19 and its runtimes for the sanitizer and fuzz build
  catch2 graphviz clang-19 libclang-rt-19-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}; run this script as root (or: sudo $0)" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
