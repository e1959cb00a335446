#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the engine, the CLI and the core test suites with AddressSanitizer and
# UndefinedBehaviorSanitizer (no GUI, no CUDA) in a build of their own and runs the core suites
# (ctest -L core); with clang, also the libFuzzer targets and their short runs (ctest -L fuzz).
# Any sanitizer report is fatal: leaks are checked at exit, UB is not
# recovered from, and a sanitized process exits with 86, so a CLI run that should fail with 1
# cannot pass by failing for the wrong reason.
#
# Left out, because the normal test run covers them and they would double this script's time:
# scipy_conformance (about 2,500 CLI runs; it checks the CLI's numbers against scipy, and
# test_cli already runs the CLI's code paths under the sanitizers here).
#
# Usage: scripts/sanitize.sh [BUILD_DIR] [extra cmake arguments...]   (BUILD_DIR: build-sanitize)
# Environment: CXX picks the compiler; by default clang++-14 where installed (the fuzz targets'
# compiler, so both runs share its sanitizer runtime), else c++.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-build-sanitize}
(($# > 0)) && shift
[[ $build = /* ]] || build="$root/$build"

cxx=${CXX:-}
if [[ -z $cxx ]]; then
  cxx=c++
  command -v clang++-14 >/dev/null 2>&1 && cxx=clang++-14
fi
# With clang the same build also holds the libFuzzer targets (the core compiled once, with the
# fuzzers' coverage hooks added), and their short repeatable runs join the core suites.
fuzz=OFF
labels=core
if "$cxx" --version 2>/dev/null | grep -q clang && [[ ${CONVLAB_FUZZ:-1} != 0 ]]; then
  fuzz=ON
  labels='core|fuzz'
fi
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_MODULE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCONVLAB_WITH_GUI=OFF -DCONVLAB_WITH_CUDA=OFF -DCONVLAB_WITH_TESTS=ON -DCONVLAB_WITH_FUZZERS=$fuzz \
  -DCONVLAB_WITH_PYTHON=OFF \
  -DPython3_EXECUTABLE=/usr/bin/python3 \
  "$@" >/dev/null
cmake --build "$build" --parallel "$(nproc)"

export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:exitcode=86:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=86"
# The planner's constants measured under the sanitizers are not this CPU's: keep them here.
export XDG_CACHE_HOME="$build/cache"
exec ctest --test-dir "$build" --output-on-failure --parallel "$(nproc)" -L "$labels" -E '^scipy_conformance$'
