#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Configures (Release, Ninja) and builds ConvLab.
# Usage: scripts/build.sh [BUILD_DIR] [extra cmake arguments...]   (BUILD_DIR defaults to build)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${1:-build}
(($# > 0)) && shift
[[ $build_dir = /* ]] || build_dir="$root/$build_dir"

cmake -S "$root" -B "$build_dir" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DPython3_EXECUTABLE=/usr/bin/python3 \
  "$@"
cmake --build "$build_dir" --parallel "$(nproc)"
