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
# device tool (at most 600 s) brings everything back: each step's timeout is cut to what is left
# and a step that would start with less than its minimum is skipped and says so.
set -uo pipefail
start=$(date +%s)
deadline=$((start + ${DEADLINE_S:-540}))

# within SECONDS MIN: prints the timeout for a step, SECONDS or what is left before the deadline
# (less 10 s for the steps after it), or fails when less than MIN is left.
within() {
  local left=$((deadline - $(date +%s) - 10))
  ((left >= $2)) || { echo "skipped: ${left}s left before the deadline, this step needs ${2}s" >&2; return 1; }
  echo $(($1 < left ? $1 : left))
}
elapsed() { echo "[$(($(date +%s) - start)) s]"; }
export PATH="$PATH:/usr/local/cuda/bin"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${OUT:-$root/device-out}
mkdir -p "$out"
prefix=/tmp/convlab-prefix
build=/tmp/convlab-build
exec > >(tee "$out/device-check.log") 2>&1
cd "$root"

echo "== machine"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
nvcc --version | tail -1

echo "== prefix from .debs"
mkdir -p "$prefix"
for f in .debs/*.deb; do dpkg -x "$f" "$prefix"; done
lib="$prefix/usr/lib/x86_64-linux-gnu"
export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PKG_CONFIG_LIBDIR="$lib/pkgconfig:$prefix/usr/share/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$prefix"

# The Python module too, where fetch-debs.sh carried nanobind and this python3 has its headers.
python_flags=(-DCONVLAB_WITH_PYTHON=OFF)
[[ -d .debs/nanobind/cmake ]] && python_flags=(-DCONVLAB_WITH_PYTHON=AUTO -DPython_EXECUTABLE="$(command -v python3)"
                                              -Dnanobind_DIR="$root/.debs/nanobind/cmake")
echo "== configure and build (sm_90) $(elapsed)"
t0=$(date +%s)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCONVLAB_WITH_GUI=OFF -DCONVLAB_WITH_OPENCV=OFF \
  -DCONVLAB_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH="$prefix/usr" \
  -DCMAKE_EXE_LINKER_FLAGS="-Wl,--disable-new-dtags" "${python_flags[@]}" > "$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" --target convlab-cli test_gpu convlab-gpu-bench > "$build.log" 2>&1 || { tail -50 "$build.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" --target convlab-interop-check >> "$build.log" 2>&1 || echo "interop check not built (no EGL/OpenGL found)"
echo "build took $(( $(date +%s) - t0 )) s"

echo "== benchmark $(elapsed)"
if t=$(within 200 60); then
  timeout "$t" "$build/tests/convlab-gpu-bench" --runs "${BENCH_RUNS:-5}" --json "$out/gpu-bench.json" > "$out/gpu-bench.txt" 2>&1
  echo "benchmark exit $?"; cat "$out/gpu-bench.txt"
fi

echo "== gpu tests $(elapsed)"
gpu_rc=1
if t=$(within 300 60); then
  timeout "$t" "$build/tests/test_gpu" -o "$out/test_gpu.txt,txt" -o -,txt | grep -v "^PASS"
  gpu_rc=${PIPESTATUS[0]}
fi
echo "test_gpu exit $gpu_rc"

echo "== peers $(elapsed)"
if [[ -f $out/gpu-bench.json ]] && t=$(within 150 40); then
  PYTHONUNBUFFERED=1 timeout "$t" python3 tests/gpu/peers_gpu.py --runs "${BENCH_RUNS:-5}" --ours "$out/gpu-bench.json" \
    --cli "$build/app/convlab-cli" > "$out/gpu-peers.txt" 2>&1
  echo "peers exit $?"; cat "$out/gpu-peers.txt"
fi

echo "== python GPU arrays $(elapsed)"
if [[ ! -d .debs/nanobind/cmake ]]; then
  echo "skipped: nanobind was not carried (tests/gpu/fetch-debs.sh copies it from .venv)"
elif ! timeout 240 cmake --build "$build" -j"$(nproc)" --target _convlab >> "$build.log" 2>&1; then
  echo "the Python module did not build here:"; grep -i 'python\|nanobind' "$build.configure.log" | tail -5; tail -5 "$build.log"
elif t=$(within 120 40); then
  PYTHONPATH="$build/python" timeout "$t" python3 tests/gpu/python_gpu_arrays.py --json "$out/python-gpu-arrays.json" \
    > "$out/python-gpu-arrays.txt" 2>&1
  echo "python GPU arrays exit $?"; cat "$out/python-gpu-arrays.txt"
fi

echo "== CLI on the GPU $(elapsed)"
"$build/app/convlab-cli" --version
python3 - <<'PY'
import numpy as np; np.save('/tmp/in.npy', np.random.default_rng(1).standard_normal((2048, 2048)).astype(np.float32))
PY
if t=$(within 60 10); then
  timeout "$t" "$build/app/convlab-cli" /tmp/in.npy /tmp/out.npy -k "1 1 1; 1 -8 1; 1 1 1" -d cuda --compare reference@cpu \
    --json > "$out/cli-gpu.json" &&
    echo "cli ok: $(python3 -c "import json;d=json.load(open('$out/cli-gpu.json'));print(d['device'],d['compare'])")"
fi

echo "== CUDA-OpenGL interop (headless EGL) and edit-to-display timing $(elapsed)"
vendor=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[[ -f $vendor ]] && export __EGL_VENDOR_LIBRARY_FILENAMES=$vendor
if [[ -x "$build/tests/convlab-interop-check" ]] && t=$(within 120 20); then
  timeout "$t" "$build/tests/convlab-interop-check" > "$out/interop.txt" 2>&1
  echo "interop check exit $?"; cat "$out/interop.txt"
fi

echo "== what a user pays end to end: the CLI per image and in batch, against pinned copies $(elapsed)"
if t=$(within 150 40); then
  timeout "$t" python3 tests/gpu/end_to_end.py --cli "$build/app/convlab-cli" --json "$out/end-to-end.json" \
    > "$out/end-to-end.md" 2>&1
  echo "end-to-end exit $?"; cat "$out/end-to-end.md"
fi

# The workbench in a window: needs the bundle of make-window-bundle.sh, whose parts arrive in
# calls of their own (they and .debs do not fit one call's carry); window-check.sh keeps the
# parts a call brings and runs once all are there.
echo "== the workbench in a window (Xvfb, NVIDIA GLX) $(elapsed)"
if [[ -f .window-bundle/manifest || -f /tmp/convlab-window-parts/manifest ]] && t=$(within 150 60); then
  OUT="$out" DEADLINE_S="$t" tests/gpu/window-check.sh > /dev/null 2>&1
  echo "window check exit $?"; cat "$out/window-check.md" 2>/dev/null || tail -5 "$out/window-check.log"
else
  echo "window check skipped (no bundle carried, or the deadline)"
fi

echo "== profiles (Nsight Systems of the CLI's runs, Nsight Compute of the 3x3 kernel at 4096²) $(elapsed)"
python3 -c "import numpy as np; np.save('/tmp/p4096.npy', np.random.default_rng(2).standard_normal((4096, 4096)).astype(np.float32))"
if command -v nsys > /dev/null && t=$(within 60 30); then
  timeout "$t" nsys profile -o /tmp/convlab-cli --force-overwrite true --stats=true \
    "$build/app/convlab-cli" /tmp/p4096.npy /tmp/p-out.npy -k "1 2 1; 2 4 2; 1 2 1" -d cuda --repeat 5 \
    > "$out/nsys-cli.txt" 2>&1
  echo "nsys exit $?"; grep -A12 "cuda_gpu_kern_sum\|cuda_gpu_mem_time_sum" "$out/nsys-cli.txt" | head -40
else
  echo "nsys absent or no time left"
fi
if command -v ncu > /dev/null && t=$(within 60 30); then
  timeout "$t" ncu --kernel-name regex:directTiled --launch-count 1 --section SpeedOfLight --section Occupancy \
    --section LaunchStats --section MemoryWorkloadAnalysis \
    "$build/app/convlab-cli" /tmp/p4096.npy /tmp/p-out.npy -k "1 2 1; 2 4 2; 1 2 1" -m direct -d cuda \
    > "$out/ncu-direct3x3.txt" 2>&1
  echo "ncu exit $?"; grep -E "Duration|Registers Per|Achieved Occupancy|DRAM Throughput|Memory Throughput|L2 Hit" \
    "$out/ncu-direct3x3.txt" | head -12
else
  echo "ncu absent or no time left"
fi

# sanitize LIMIT MIN LABEL VAR=VALUE TOOL TEST...: one compute-sanitizer run within the deadline.
sanitize() {
  local limit=$1 min=$2 label=$3 env=$4 tool=$5 t
  shift 5
  t=$(within "$limit" "$min") || { echo "$label skipped (deadline)"; return; }
  env "$env" timeout "$t" compute-sanitizer --tool "$tool" --error-exitcode 9 "$build/tests/test_gpu" "$@"
  echo "$label exit $?"
}

echo "== memory and race checks (compute-sanitizer, small cases), and the tiled kernel's SASS $(elapsed)"
if command -v compute-sanitizer > /dev/null; then
  { obj=$(find "$build/core" -name 'kernels.cu.o' | head -1)
    echo "directTiled<1> SASS instruction counts:"
    cuobjdump --dump-sass "$obj" | awk '/Function : .*directTiledILi1/{f=1; next} /Function : /{f=0} f' |
      grep -oE '(LDS|LDG|STS|STG|LDL|STL|FFMA|LDC)[.A-Z0-9]*' | sort | uniq -c
    sanitize 120 30 memcheck CONVLAB_GPU_TILED_GRID=persistent memcheck \
      matchesCpu:31x29x1 matchesCpu:17x1x4 tiledDirectAtBlockEdges packedUploadMatchesFloat residentRunThenDownload \
      zeroKernelGivesOffset alphaPassesThrough histogramIsCountedOnTheDevice
    sanitize 60 20 "racecheck (histogram)" CONVLAB_GPU_TILED_GRID=block racecheck histogramIsCountedOnTheDevice
    sanitize 90 30 "memcheck (fused FFT callbacks)" CONVLAB_GPU_FFT_LAYOUT=plane-fused memcheck fftSidesAreChosenAndAgree
    for grid in block persistent; do
      sanitize 75 30 "racecheck ($grid grid)" CONVLAB_GPU_TILED_GRID=$grid racecheck tiledDirectAtBlockEdges
    done; } > "$out/sanitizer.txt" 2>&1
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|exit [0-9]+$|skipped|^ +[0-9]+ [A-Z]" "$out/sanitizer.txt"
fi

echo "== done $(elapsed)"
exit $gpu_rc
