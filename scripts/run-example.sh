#!/usr/bin/env bash
# `make run`: the main job of duet on the bundled example. Until the compile and
# run path exists, it shows what the built tool offers.
set -euo pipefail
build=${1:-build}
"$build/bin/duet" --help
