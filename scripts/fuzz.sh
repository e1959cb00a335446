#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the libFuzzer targets of tests/fuzz with clang (core instrumented: coverage, ASan,
# UBSan) in a build of their own, then either runs the short repeatable runs (ctest -L fuzz) or
# fuzzes one target for a while.
#
# Usage: scripts/fuzz.sh                     build, then every target's short run
#        scripts/fuzz.sh TARGET [SECONDS]    build, then fuzz TARGET (kernel_text, kernel_json,
#                                            npy, image_decode, convolve) for SECONDS (1800)
#        scripts/fuzz.sh --list              the targets
# Environment: CONVLAB_FUZZ_BUILD (build dir, default build-fuzz), CONVLAB_FUZZ_CXX (compiler,
# default clang++-14, else clang++). A long run keeps its corpus in
# BUILD/tests/fuzz/long/TARGET/corpus (reused by the next run) and any crash input beside it.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CONVLAB_FUZZ_BUILD:-$root/build-fuzz}
[[ $build = /* ]] || build="$root/$build"
targets=(kernel_text kernel_json npy image_decode convolve)

if [[ ${1:-} = --list ]]; then
  printf '%s\n' "${targets[@]}"
  exit 0
fi

find_clang() {
  local c
  for c in "${CONVLAB_FUZZ_CXX:-}" clang++-14 clang++; do
    [[ -n $c ]] && command -v "$c" >/dev/null 2>&1 && { command -v "$c"; return 0; }
  done
  return 1
}

cxx=$(find_clang) || { echo "fuzz: no clang++ found (libFuzzer needs clang; install clang-14)" >&2; exit 1; }

cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER="$cxx" \
  -DCONVLAB_WITH_FUZZERS=ON -DCONVLAB_WITH_GUI=OFF -DCONVLAB_WITH_TESTS=OFF -DCONVLAB_WITH_CUDA=OFF \
  -DPython3_EXECUTABLE=/usr/bin/python3 >/dev/null
cmake --build "$build" --target convlab_fuzzers --parallel "$(nproc)"

if (($# == 0)); then
  exec ctest --test-dir "$build" --output-on-failure -L fuzz
fi

target=$1
seconds=${2:-1800}
[[ " ${targets[*]} " == *" $target "* ]] || { echo "fuzz: unknown target '$target' (${targets[*]})" >&2; exit 2; }

work="$build/tests/fuzz/long/$target"
mkdir -p "$work/corpus"
args=(-max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$work/")
dict="$root/tests/fuzz/$target.dict"
[[ -f $dict ]] && args+=(-dict="$dict")
# The same input length limit as the short runs (tests/fuzz/CMakeLists.txt).
max_len=$(grep -oE "\"$target [0-9]+ [0-9]+\"" "$root/tests/fuzz/CMakeLists.txt" | tr -d '"' | cut -d' ' -f3)
[[ -n $max_len ]] && args+=(-max_len="$max_len")
export XDG_CACHE_HOME="$build/tests/fuzz/cache"
echo "fuzz: $target for ${seconds}s; corpus $work/corpus, crashes in $work/"
exec "$build/tests/fuzz/fuzz_$target" "${args[@]}" "$work/corpus" "$root/tests/fuzz/corpus/$target"
