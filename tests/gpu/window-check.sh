#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The workbench in a real window on a machine without Qt or an X server, from the bundle that
# make-window-bundle.sh packs: collects the bundle's parts as device calls bring them (in
# /tmp/convlab-window-parts, which a warm machine keeps), unpacks once all are there, starts
# Xvfb, opens the workbench with NVIDIA's GLX library when the driver has one, checks that the
# GL renderer names the GPU, takes a screenshot and runs the edit-to-display benchmark at 1080p
# and 4K for each backend and kernel. Writes at most eight files to $OUT: window-check.log,
# window-check.md (the table), window-latency.json (every run's report), window-<backend>.png.
#
# BACKENDS (default "cpu cuda"), SIZES ("1920x1080 3840x2160"), KERNELS ("preset:box:size=3
# preset:box:size=31"), EDITS (30) and DEADLINE_S (240) narrow it; here, without a GPU, run
#   BACKENDS=cpu tests/gpu/window-check.sh
# Exit status: 0 all ran, 1 a run failed or the renderer is not the GPU's, 2 parts missing.
set -uo pipefail
start=$(date +%s)
deadline=$((start + ${DEADLINE_S:-240}))
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${OUT:-$root/device-out}
mkdir -p "$out"
exec > >(tee "$out/window-check.log") 2>&1
backends=${BACKENDS:-cpu cuda}
sizes=${SIZES:-1920x1080 3840x2160}
kernels=${KERNELS:-preset:box:size=3 preset:box:size=31}
edits=${EDITS:-30}

# -- the bundle: keep every part that arrives, unpack when the manifest's parts are all here.
parts=/tmp/convlab-window-parts
unpacked=/tmp/convlab-window
mkdir -p "$parts"
cp -f "$root"/.window-bundle/* "$parts/" 2>/dev/null || true
[[ -f $parts/manifest ]] || { echo "window-check: no bundle (tests/gpu/make-window-bundle.sh, then carry .window-bundle)"; exit 2; }
want=$(awk '$2 == "bundle.tar.xz" {print $1}' "$parts/manifest")
if [[ $(cat "$unpacked/.sha256" 2>/dev/null) != "$want" ]]; then
  missing=()
  while read -r sum name; do
    [[ $name == bundle.tar.xz ]] && continue
    [[ -f $parts/$name ]] && [[ $(sha256sum < "$parts/$name" | cut -d' ' -f1) == "$sum" ]] || missing+=("$name")
  done < "$parts/manifest"
  if ((${#missing[@]})); then
    echo "window-check: bundle incomplete, call again carrying: ${missing[*]}"
    exit 2
  fi
  rm -rf "$unpacked"
  cat "$parts"/bundle.tar.xz.part* | xz -d | tar -C /tmp -xf - || { echo "window-check: unpacking failed"; exit 1; }
  echo "$want" > "$unpacked/.sha256"
  echo "unpacked the bundle in $(($(date +%s) - start)) s"
fi
b=$unpacked

# -- the environment: the bundle's libraries, the driver's and CUDA's.
nvlib=/usr/local/nvidia/lib64
cudalib=$(ls -d /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib 2>/dev/null | tr '\n' ':')
export LD_LIBRARY_PATH="$b/lib:$nvlib:${cudalib}${LD_LIBRARY_PATH:-}"
export QT_PLUGIN_PATH="$b/plugins" QT_QPA_PLATFORM=xcb FONTCONFIG_FILE="$b/fonts/fonts.conf"
export LIBGL_DRIVERS_PATH="$b/dri" HOME=$(mktemp -d) # fresh settings, as a new user has
gpu_glx=0
if [[ -e $nvlib/libGLX_nvidia.so.0 ]] || ldconfig -p 2>/dev/null | grep -q libGLX_nvidia.so.0; then
  gpu_glx=1
fi

# Xvfb runs xkbcomp from /usr/bin (compiled in); where the machine has none, a wrapper that
# runs the bundle's with the bundle's libraries.
if [[ ! -x /usr/bin/xkbcomp ]]; then
  printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$b/lib" "$b/bin/xkbcomp" > /usr/bin/xkbcomp 2>/dev/null &&
    chmod +x /usr/bin/xkbcomp || echo "window-check: cannot place /usr/bin/xkbcomp; Xvfb may fail to set up the keyboard"
fi

display=
for n in $(seq 91 99); do [[ -e /tmp/.X11-unix/X$n || -e /tmp/.X$n-lock ]] || { display=:$n; break; }; done
[[ -n $display ]] || { echo "window-check: no free X display in :91-:99"; exit 1; }
"$b/bin/Xvfb" "$display" -screen 0 2560x1600x24 -nolisten tcp -xkbdir "$b/xkb" > /tmp/convlab-xvfb.log 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null; wait $xvfb 2>/dev/null' EXIT
export DISPLAY=$display
for _ in $(seq 50); do [[ -e /tmp/.X11-unix/X${display#:} ]] && break; sleep 0.1; done
kill -0 $xvfb 2>/dev/null || { echo "window-check: Xvfb did not start:"; cat /tmp/convlab-xvfb.log; exit 1; }
((gpu_glx)) && export __GLX_VENDOR_LIBRARY_NAME=nvidia
echo "== Xvfb on $DISPLAY, GLX vendor ${__GLX_VENDOR_LIBRARY_NAME:-system default}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo "(no nvidia-smi)"

app="$b/bin/convlab"
runs=$(mktemp -d)
status=0
left() { echo $((deadline - $(date +%s))); }

# -- the renderer and a screenshot per backend.
for be in $backends; do
  (($(left) > 20)) || { echo "screenshot $be skipped: deadline"; status=1; continue; }
  echo "== screenshot, backend $be"
  timeout $(($(left) < 60 ? $(left) : 60)) "$app" --screenshot "$out/window-$be.png" --backend "$be" \
    --size 1920x1080 --json "$runs/shot-$be.json"
  rc=$?
  ((rc == 0)) || { echo "screenshot $be exit $rc"; status=1; continue; }
  renderer=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['gl']['renderer'])" "$runs/shot-$be.json")
  echo "GL renderer: $renderer"
  if ((gpu_glx)) && [[ $renderer != *NVIDIA* ]]; then
    echo "window-check: the driver has NVIDIA's GLX but the window's renderer is '$renderer'"
    status=1
  fi
done

# -- edit-to-display latency.
for be in $backends; do
  for size in $sizes; do
    for k in $kernels; do
      tag="$be-$size-${k//[^a-z0-9=]/_}"
      (($(left) > 20)) || { echo "latency $tag skipped: deadline"; status=1; continue; }
      echo "== latency: backend $be, $size, kernel $k"
      timeout $(($(left) < 90 ? $(left) : 90)) "$app" --benchmark-latency --backend "$be" --size "$size" \
        --kernel "$k" --edits "$edits" --pause-ms 100 --json "$runs/lat-$tag.json"
      rc=$?
      ((rc == 0)) || { echo "latency $tag exit $rc"; status=1; }
    done
  done
done

# -- one JSON with every report, one table.
python3 - "$runs" "$out" <<'PY'
import glob, json, os, sys
runs, out = sys.argv[1], sys.argv[2]
reports = {os.path.basename(p)[:-5]: json.load(open(p)) for p in sorted(glob.glob(runs + "/*.json"))}
json.dump(reports, open(out + "/window-latency.json", "w"), indent=1)
rows = ["| backend | image | kernel | first (ms) | steady median (ms) | p10-p90 | engine | display | rest | display path | drawn from |",
        "|---|---|---|---|---|---|---|---|---|---|---|"]
gl = ""
for name, r in reports.items():
    gl = gl or "{renderer} ({version})".format(**r["gl"])
    if r.get("mode") != "benchmark-latency":
        continue
    s, img = r["steady"], r["image"]
    rows.append("| {} | {}x{}x{} | {}x{} | {:.1f} | {:.2f} | {:.2f}-{:.2f} | {:.2f} | {:.2f} | {:.2f} | {} | {} |".format(
        r["backend"], img["width"], img["height"], img["channels"], r["kernel"]["width"], r["kernel"]["height"],
        r["first"]["wall_ms"], s["wall_ms"]["median"], s["wall_ms"]["p10"], s["wall_ms"]["p90"],
        s["engine_ms"]["median"], s["display_ms"]["median"], s["rest_ms"]["median"], r["display_path"],
        r.get("drawn_from", "")))
cuda = next((r["cuda_device"] for r in reports.values() if r.get("cuda_device")), "")
text = "# Workbench window check\n\nGL renderer: {}{}\n\n{}\n".format(gl, ", CUDA device: " + cuda if cuda else "", "\n".join(rows))
open(out + "/window-check.md", "w").write(text)
print(text)
PY
echo "== window check done in $(($(date +%s) - start)) s, exit $status"
exit $status
