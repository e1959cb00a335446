#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Images per second of `convlab-cli -O DIR` (one process, decoding, filtering and writing
# overlapped) against a shell loop of single `convlab-cli IN OUT` runs over the same files, for
# PNG photos of 1-1.7 megapixels and for 2048x2048 float32 .npy files. Each form runs ROUNDS
# times, alternating, each round into a fresh folder; the median round is reported, and the
# fastest. The
# outputs of both forms are compared byte for byte (the bench stops if they differ).
# Usage: tests/bench/batch_vs_loop.sh [BUILD_DIR] [PNG_COUNT] [NPY_COUNT] [ROUNDS]
#   (defaults: build 32 24 5; the files are made in a temporary folder, removed at the end)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-build}
[[ $build = /* ]] || build="$root/$build"
png_count=${2:-32}
npy_count=${3:-24}
rounds=${4:-5}
cli="$build/app/convlab-cli"
chart="$build/app/convlab-make-test-chart"
kernel=${KERNEL:-"1 2 1; 2 4 2; 1 2 1"} # the filter is not what is measured: a small one
# An explicit method: under auto a batch may move to another method as the planner learns from
# its runs (slower while decoding and writing share the cores), and its outputs would then
# differ from the loop's by float rounding instead of not at all.
method=${METHOD:-direct}
for tool in "$cli" "$chart"; do
  [[ -x $tool ]] || { echo "batch_vs_loop: $tool not built" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/convlab-batch-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# PNG: the two bundled photos extended by their own border rule to 1-1.7 MP, in four border
# modes, so that every file differs and none is synthetic flat colour.
mkdir -p "$work/png" "$work/npy"
modes=(reflect mirror wrap replicate)
for ((i = 0; i < png_count; i++)); do
  if ((i % 2)); then src="$root/resources/chelsea.png" m=$((300 + 5 * i)); else src="$root/resources/coffee.png" m=$((250 + 5 * i)); fi
  "$cli" "$src" "$work/png/img$(printf %02d "$i").png" --pad-preview "$m" -b "${modes[i % 4]}" >/dev/null 2>&1
done
# .npy: the test chart at 2048x2048 (RGB), each file a different blur of it, as float32.
"$chart" "$work/chart.png" 2048 2048 >/dev/null
for ((i = 0; i < npy_count; i++)); do
  "$cli" "$work/chart.png" "$work/npy/img$(printf %02d "$i").npy" -k "preset:box:size=$((1 + 2 * (i % 4)))" --normalize >/dev/null
done

now() { date +%s.%N; }

# Seconds of one round of each form, into fresh folders.
loop_round() { # KIND OUTDIR
  local f t0
  mkdir -p "$2"
  t0=$(now)
  for f in "$work/$1"/*; do "$cli" "$f" "$2/$(basename "$f")" -k "$kernel" -m "$method" >/dev/null; done
  echo "$(now) - $t0" | bc -l
}
batch_round() { # KIND OUTDIR
  local t0
  mkdir -p "$2"
  t0=$(now)
  "$cli" -k "$kernel" -m "$method" "$work/$1"/* -O "$2" >/dev/null
  echo "$(now) - $t0" | bc -l
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
fastest() { sort -g | head -1; }

"$cli" "$work/png/img00.png" "$work/warm.png" -k "$kernel" >/dev/null # the planner's calibration, once per machine

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
echo "CPU: $cpu, $(nproc) cores; kernel '$kernel', method $method"
# Median rounds, and in brackets the fastest: on a shared virtual machine the kernel's cost of
# fresh pages (page cache for the outputs above all) varies from round to round.
printf '%-34s %18s %18s %14s\n' "inputs" "loop img/s" "batch img/s" "speed-up"
for kind in png npy; do
  count=$(ls "$work/$kind" | wc -l)
  loops=() batches=()
  for ((r = 0; r < rounds; r++)); do
    rm -rf "$work/out-loop" "$work/out-batch"
    # Each round starts with nothing dirty in the page cache, so that neither form is slowed by
    # writing back what the other wrote.
    sync
    loops+=("$(loop_round "$kind" "$work/out-loop")")
    sync
    batches+=("$(batch_round "$kind" "$work/out-batch")")
    diff -r "$work/out-loop" "$work/out-batch" >/dev/null || { echo "batch_vs_loop: $kind outputs differ" >&2; exit 1; }
  done
  loop_s=$(printf '%s\n' "${loops[@]}" | median)
  batch_s=$(printf '%s\n' "${batches[@]}" | median)
  loop_min=$(printf '%s\n' "${loops[@]}" | fastest)
  batch_min=$(printf '%s\n' "${batches[@]}" | fastest)
  if [[ $kind = png ]]; then what="$count PNG RGB 8-bit, 0.95-1.7 MP"; else what="$count .npy RGB float32 2048x2048"; fi
  awk -v w="$what" -v n="$count" -v l="$loop_s" -v b="$batch_s" -v lm="$loop_min" -v bm="$batch_min" \
    'BEGIN { printf "%-34s %8.2f (%6.2f) %8.2f (%6.2f) %5.2fx (%5.2fx)\n", w, n / l, n / lm, n / b, n / bm, l / b, lm / bm }'
done
