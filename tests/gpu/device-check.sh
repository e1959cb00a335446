#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# One-shot check on a machine with an NVIDIA GPU, nvcc, CMake and ninja but no Debian packages
# and no network: builds the engine, the CLI, the gpu tests and the GPU benchmark for sm_90
# from the .deb files that fetch-debs.sh put in .debs/, runs the benchmark (the figures
# docs/gpu.md and tests/gpu/results quote), the gpu tests, the benchmark's peers (CuPy, cuDNN through
# PyTorch), the CLI, checks CUDA-OpenGL interop through a headless EGL context, measures what a
# CLI user pays end to end (end_to_end.py), runs the workbench in a window when the bundle of
# make-window-bundle.sh has been carried (window-check.sh), and profiles with nsys/ncu where
# installed; the sanitizer runs come last, so that a run cut short by the machine's time limit
# still brings back the figures and the tests. Logs and tables go to $OUT (default
# ./device-out), each written as its step runs.
#
# DEADLINE_S (default 540) is the whole script's budget in seconds, so that one call of the
# device tool (at most 600 s) brings everything back: every step, the builds included, runs
# under a timeout cut to what is left, and a step that would start with less than its minimum
# is skipped and says so. Every step is timed and ends with one line of the summary at the end
# (ok, FAILED with its exit status, timed out, skipped and why); the script's exit status is
# non-zero when any step failed or timed out, so it cannot pass by accident. Without .debs/ it
# stops at once, saying so; a failed configure or build leaves its log under $OUT.
set -uo pipefail
start=$(date +%s)
deadline=$((start + ${DEADLINE_S:-540}))
export PATH="$PATH:/usr/local/cuda/bin"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${OUT:-$root/device-out}
mkdir -p "$out"
prefix=/tmp/convlab-prefix
build=/tmp/convlab-build
exec > >(tee "$out/device-check.log") 2>&1
cd "$root"

elapsed() { echo "[$(($(date +%s) - start)) s]"; }
summary=()
failed=0
declare -A noted
note() { summary+=("$(printf '%-44s %s' "$1" "$2")"); noted[$1]=1; }
# Every step, in order: a step the script stopped before shows in the summary as not run.
all_steps=("prefix from .debs" "configure (sm_90)" "build CLI, test_gpu, benchmark" "build interop check" "benchmark"
  "gpu tests (test_gpu)" "peers (CuPy, PyTorch)" "python GPU arrays" "CLI on the GPU" "CUDA-OpenGL interop (headless EGL)"
  "end to end (CLI per image and in batch)" "the workbench in a window" "profile (Nsight Systems)"
  "profile (Nsight Compute, 3x3 at 4096²)" "tiled kernel's SASS" "memcheck (persistent grid, small cases)"
  "racecheck (histogram)" "memcheck (fused FFT callbacks)")
for grid in block persistent edges occ6 edges-occ6 tall edges8; do all_steps+=("memcheck ($grid grid)" "racecheck ($grid grid)"); done

# step NAME LIMIT MIN COMMAND...: runs COMMAND under a timeout of LIMIT seconds or what is left
# before the deadline (less 10 s for the steps after it); skipped when less than MIN is left.
# Records one summary line: ok, FAILED (exit N), timed out, or skipped; a failure or timeout
# makes the script's exit status non-zero.
step() {
  local name=$1 limit=$2 min=$3 left t0 rc
  shift 3
  left=$((deadline - $(date +%s) - 10))
  echo "== $name $(elapsed)"
  if ((left < min)); then
    echo "skipped: ${left}s left before the deadline, this step needs ${min}s"
    note "$name" "skipped (deadline)"
    return 0
  fi
  t0=$(date +%s)
  STEP_TIMEOUT=$((limit < left ? limit : left)) "$@"
  rc=$?
  local took=$(($(date +%s) - t0))
  if ((rc == 0)); then note "$name" "ok (${took} s)"
  elif ((rc == 124 || rc == 137)); then note "$name" "TIMED OUT (${took} s)"; failed=1
  elif ((rc == 200)); then note "$name" "skipped ($(cat /tmp/convlab-step-skip 2>/dev/null))"
  else note "$name" "FAILED (exit $rc, ${took} s)"; failed=1
  fi
  echo "$name: exit $rc in ${took} s"
}
# skip WHY: inside a step, ends it as skipped (not a failure) and says why.
skip() { echo "skipped: $1"; echo "$1" > /tmp/convlab-step-skip; return 200; }
finish() {
  local name
  for name in "${all_steps[@]}"; do [[ -n ${noted[$name]:-} ]] || note "$name" "not run (the script stopped before it)"; done
  echo "== summary $(elapsed)"
  printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
  ((failed == 0)) && echo "device check: every step that ran passed" || echo "device check: FAILED"
  exit "$failed"
}
run_timed() { timeout "$STEP_TIMEOUT" "$@"; }

if ! compgen -G ".debs/*.deb" > /dev/null; then
  echo "device-check: no .debs/*.deb here: run tests/gpu/fetch-debs.sh on a machine with the network and carry"
  echo "  .debs (the device tool's carry) - nothing was configured, built or run"
  note "prefix from .debs" "FAILED (no .debs/ carried)"
  failed=1
  finish
fi

echo "== machine"
if ! nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; then
  echo "device-check: no NVIDIA GPU answers (nvidia-smi failed): the builds run, the device steps are skipped"
  no_gpu=1
fi
nvcc --version | tail -1

prefix_from_debs() {
  mkdir -p "$prefix"
  for f in .debs/*.deb; do dpkg -x "$f" "$prefix" || return 1; done
}
step "prefix from .debs" 120 5 prefix_from_debs
lib="$prefix/usr/lib/x86_64-linux-gnu"
export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PKG_CONFIG_LIBDIR="$lib/pkgconfig:$prefix/usr/share/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$prefix"

# The Python module too, where fetch-debs.sh carried nanobind and this python3 has its headers.
python_headers() { python3 -c 'import sysconfig,os,sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; }
python_flags=(-DCONVLAB_WITH_PYTHON=OFF)
python_why=""
if [[ ! -d .debs/nanobind/cmake ]]; then python_why="nanobind was not carried (tests/gpu/fetch-debs.sh copies it from .venv)"
elif ! python_headers; then python_why="$(command -v python3) has no Python.h (python3-dev is not installed)"
else python_flags=(-DCONVLAB_WITH_PYTHON=AUTO -DPython_EXECUTABLE="$(command -v python3)" -Dnanobind_DIR="$root/.debs/nanobind/cmake")
fi

# keep_log LOG: a failed configure or build's log, under $OUT and its tail here.
keep_log() { cp "$1" "$out/" 2>/dev/null; tail -40 "$1"; }
configure() {
  run_timed cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCONVLAB_WITH_GUI=OFF -DCONVLAB_WITH_OPENCV=OFF \
    -DCONVLAB_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH="$prefix/usr" \
    -DCMAKE_EXE_LINKER_FLAGS="-Wl,--disable-new-dtags" "${python_flags[@]}" > "$build.configure.log" 2>&1 ||
    { local rc=$?; keep_log "$build.configure.log"; return $rc; }
}
build_targets() {
  run_timed cmake --build "$build" -j"$(nproc)" --target "$@" >> "$build.log" 2>&1 || { local rc=$?; keep_log "$build.log"; return $rc; }
}
step "configure (sm_90)" 120 30 configure
step "build CLI, test_gpu, benchmark" 300 60 build_targets convlab-cli test_gpu convlab-gpu-bench
built() { [[ -x "$build/tests/test_gpu" && -x "$build/app/convlab-cli" ]]; }
if ! built; then
  echo "device-check: the build did not finish (logs in $out): nothing can run"
  finish
fi
build_interop() { build_targets convlab-interop-check || { skip "interop check not built (no EGL/OpenGL found)"; return; }; }
step "build interop check" 120 20 build_interop
device() { [[ -z ${no_gpu:-} ]] || { skip "no GPU"; return; }; }

benchmark() {
  device || return
  run_timed "$build/tests/convlab-gpu-bench" --runs "${BENCH_RUNS:-5}" --json "$out/gpu-bench.json" > "$out/gpu-bench.txt" 2>&1
  local rc=$?; cat "$out/gpu-bench.txt"; return $rc
}
step "benchmark" 200 60 benchmark

gpu_tests() {
  device || return
  run_timed "$build/tests/test_gpu" -o "$out/test_gpu.txt,txt" -o -,txt | grep -v "^PASS"
  return "${PIPESTATUS[0]}"
}
step "gpu tests (test_gpu)" 300 60 gpu_tests

peers() {
  device || return
  [[ -f $out/gpu-bench.json ]] || { skip "no benchmark figures to compare with"; return; }
  PYTHONUNBUFFERED=1 run_timed python3 tests/gpu/peers_gpu.py --runs "${BENCH_RUNS:-5}" --ours "$out/gpu-bench.json" \
    --cli "$build/app/convlab-cli" > "$out/gpu-peers.txt" 2>&1
  local rc=$?; cat "$out/gpu-peers.txt"; return $rc
}
step "peers (CuPy, PyTorch)" 150 40 peers

python_arrays() {
  [[ -z $python_why ]] || { skip "$python_why"; return; }
  build_targets _convlab || return
  device || return
  PYTHONPATH="$build/python" run_timed python3 tests/gpu/python_gpu_arrays.py --json "$out/python-gpu-arrays.json" \
    > "$out/python-gpu-arrays.txt" 2>&1
  local rc=$?; cat "$out/python-gpu-arrays.txt"; return $rc
}
step "python GPU arrays" 240 60 python_arrays

cli_gpu() {
  device || return
  python3 -c "import numpy as np; np.save('/tmp/in.npy', np.random.default_rng(1).standard_normal((2048, 2048)).astype(np.float32))" || return
  run_timed "$build/app/convlab-cli" /tmp/in.npy /tmp/out.npy -k "1 1 1; 1 -8 1; 1 1 1" -d cuda --compare reference@cpu \
    --json > "$out/cli-gpu.json" || return
  echo "cli ok: $(python3 -c "import json;d=json.load(open('$out/cli-gpu.json'));print(d['device'],d['compare'])")"
}
step "CLI on the GPU" 60 10 cli_gpu

interop() {
  device || return
  local vendor=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  [[ -f $vendor ]] && export __EGL_VENDOR_LIBRARY_FILENAMES=$vendor
  [[ -x "$build/tests/convlab-interop-check" ]] || { skip "interop check not built"; return; }
  run_timed "$build/tests/convlab-interop-check" > "$out/interop.txt" 2>&1
  local rc=$?; cat "$out/interop.txt"; return $rc
}
step "CUDA-OpenGL interop (headless EGL)" 120 20 interop

end_to_end() {
  device || return
  run_timed python3 tests/gpu/end_to_end.py --cli "$build/app/convlab-cli" --json "$out/end-to-end.json" > "$out/end-to-end.md" 2>&1
  local rc=$?; cat "$out/end-to-end.md"; return $rc
}
step "end to end (CLI per image and in batch)" 150 40 end_to_end

# The workbench in a window: needs the bundle of make-window-bundle.sh, whose parts arrive in
# calls of their own (they and .debs do not fit one call's carry); window-check.sh keeps the
# parts a call brings and runs once all are there.
window() {
  device || return
  [[ -f .window-bundle/manifest || -f /tmp/convlab-window-parts/manifest ]] || { skip "no window bundle carried"; return; }
  OUT="$out" DEADLINE_S="$STEP_TIMEOUT" tests/gpu/window-check.sh > /dev/null 2>&1
  local rc=$?; cat "$out/window-check.md" 2>/dev/null || tail -5 "$out/window-check.log"; return $rc
}
step "the workbench in a window" 150 60 window

nsys_profile() {
  device || return
  command -v nsys > /dev/null || { skip "nsys absent"; return; }
  python3 -c "import numpy as np; np.save('/tmp/p4096.npy', np.random.default_rng(2).standard_normal((4096, 4096)).astype(np.float32))"
  run_timed nsys profile -o /tmp/convlab-cli --force-overwrite true --stats=true \
    "$build/app/convlab-cli" /tmp/p4096.npy /tmp/p-out.npy -k "1 2 1; 2 4 2; 1 2 1" -d cuda --repeat 5 > "$out/nsys-cli.txt" 2>&1
  local rc=$?; grep -A12 "cuda_gpu_kern_sum\|cuda_gpu_mem_time_sum" "$out/nsys-cli.txt" | head -40; return $rc
}
step "profile (Nsight Systems)" 60 30 nsys_profile
ncu_profile() {
  device || return
  command -v ncu > /dev/null || { skip "ncu absent"; return; }
  run_timed ncu --kernel-name regex:directTiled --launch-count 1 --section SpeedOfLight --section Occupancy \
    --section LaunchStats --section MemoryWorkloadAnalysis \
    "$build/app/convlab-cli" /tmp/p4096.npy /tmp/p-out.npy -k "1 2 1; 2 4 2; 1 2 1" -m direct -d cuda > "$out/ncu-direct3x3.txt" 2>&1
  local rc=$?
  grep -E "Duration|Registers Per|Achieved Occupancy|DRAM Throughput|Memory Throughput|L2 Hit" "$out/ncu-direct3x3.txt" | head -12
  return $rc
}
step "profile (Nsight Compute, 3x3 at 4096²)" 60 30 ncu_profile

# The sanitizer runs come last, so that a run cut short still brings back the rest.
# sanitize VAR=VALUE TOOL TEST...: one compute-sanitizer run of test_gpu (a step's body).
sanitize() {
  device || return
  command -v compute-sanitizer > /dev/null || { skip "compute-sanitizer absent"; return; }
  local env=$1 tool=$2
  shift 2
  env "$env" timeout "$STEP_TIMEOUT" compute-sanitizer --tool "$tool" --error-exitcode 9 "$build/tests/test_gpu" "$@" \
    >> "$out/sanitizer.txt" 2>&1
  local rc=$?; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/sanitizer.txt" | tail -1; return $rc
}
sass_counts() {
  command -v cuobjdump > /dev/null || { skip "cuobjdump absent"; return; }
  local obj; obj=$(find "$build/core" -name 'kernels.cu.o' | head -1)
  echo "directTiled<1> SASS instruction counts:"
  cuobjdump --dump-sass "$obj" | awk '/Function : .*directTiledILi1/{f=1; next} /Function : /{f=0} f' |
    grep -oE '(LDS|LDG|STS|STG|LDL|STL|FFMA|LDC)[.A-Z0-9]*' | sort | uniq -c
}
step "tiled kernel's SASS" 30 5 sass_counts
step "memcheck (persistent grid, small cases)" 120 30 sanitize CONVLAB_GPU_TILED_GRID=persistent memcheck \
  matchesCpu:31x29x1 matchesCpu:17x1x4 tiledDirectAtBlockEdges packedUploadMatchesFloat residentRunThenDownload \
  zeroKernelGivesOffset alphaPassesThrough histogramIsCountedOnTheDevice
step "racecheck (histogram)" 60 20 sanitize CONVLAB_GPU_TILED_GRID=block racecheck histogramIsCountedOnTheDevice
step "memcheck (fused FFT callbacks)" 90 30 sanitize CONVLAB_GPU_FFT_LAYOUT=plane-fused memcheck fftSidesAreChosenAndAgree
# Every tiled candidate the session can pick (tiles.h kVariants), memcheck and racecheck each.
for grid in block persistent edges occ6 edges-occ6 tall edges8; do
  step "memcheck ($grid grid)" 45 15 sanitize CONVLAB_GPU_TILED_GRID=$grid memcheck tiledDirectAtBlockEdges
  step "racecheck ($grid grid)" 45 15 sanitize CONVLAB_GPU_TILED_GRID=$grid racecheck tiledDirectAtBlockEdges
done

finish
