#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Packs what the workbench needs to open a real window on a machine that has an NVIDIA driver
# but no Qt and no X server (the lent GPU machine): the app built here with CUDA, the shared
# libraries it and its Qt plugins load (not glibc, not CUDA's: the machine has its own), the
# Qt xcb platform plugin and its GLX integration, Xvfb with xkbcomp and the xkb data, a font
# with a fontconfig file, and Mesa's software GLX for Xvfb's own GLX extension. One xz tarball,
# split into parts of at most PART_MIB (default 60) MiB, because one call of the device tool
# carries at most 64 MiB; window-check.sh collects the parts as calls bring them and unpacks
# once all are there (manifest: part names and sha256 sums).
# Usage: tests/gpu/make-window-bundle.sh [BUILD_DIR]   (default build; writes .window-bundle/)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$root/build}
app="$build/app/convlab"
out="$root/.window-bundle"
part_mib=${PART_MIB:-60}
[[ -x $app ]] || { echo "make-window-bundle: $app not built (scripts/build.sh)" >&2; exit 1; }
ldd "$app" | grep -q libcufft ||
  { echo "make-window-bundle: $app was built without CUDA" >&2; exit 1; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
b="$stage/convlab-window"
mkdir -p "$b"/{bin,lib,plugins/platforms,plugins/xcbglintegrations,dri,fonts}

multiarch=/usr/lib/x86_64-linux-gnu
qtplugins="$multiarch/qt6/plugins"
cp "$app" "$b/bin/"
cp "$(command -v Xvfb)" "$(command -v xkbcomp)" "$b/bin/"
cp "$qtplugins/platforms/libqxcb.so" "$b/plugins/platforms/"
cp "$qtplugins"/xcbglintegrations/*.so "$b/plugins/xcbglintegrations/"
# Xvfb's GLX extension loads the software rasterizer; the client side on the GPU machine loads
# NVIDIA's libGLX through glvnd (__GLX_VENDOR_LIBRARY_NAME=nvidia), Mesa's only as a fallback.
cp "$multiarch/dri/swrast_dri.so" "$b/dri/"
cp "$multiarch/libGLX_mesa.so.0" "$b/lib/"
cp -r /usr/share/X11/xkb "$b/xkb"
cp "$(fc-match -f '%{file}' 'DejaVu Sans')" "$b/fonts/"
cat > "$b/fonts/fonts.conf" <<'EOF'
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir prefix="relative">.</dir>
  <cachedir>/tmp/convlab-window-fontcache</cachedir>
</fontconfig>
EOF

# Every shared library the binaries load, except glibc's own (the loader, libc, libm, ...), the
# CUDA toolkit's and the driver's, which must be the machine's.
skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|libresolv\.so|libutil\.so|libcuda\.so|libnvidia)'
libs_of() { ldd "$@" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'; }
libs_of "$b"/bin/* "$b"/plugins/*/*.so "$b"/dri/*.so "$b"/lib/*.so* | sort -u |
  while read -r name path; do
    [[ $name =~ $skip || $path == /usr/local/cuda* ]] && continue
    [[ -e $b/lib/$name ]] || cp -L "$path" "$b/lib/$name"
  done
strip --strip-unneeded "$b"/bin/* "$b"/lib/* "$b"/dri/* "$b"/plugins/*/*.so 2>/dev/null || true
du -sh "$b"

rm -rf "$out"
mkdir -p "$out"
tar -C "$stage" -cf - convlab-window | xz -T"$(nproc)" -6 > "$stage/bundle.tar.xz"
split -b "${part_mib}M" -d -a 2 "$stage/bundle.tar.xz" "$out/bundle.tar.xz.part"
(cd "$out" && sha256sum bundle.tar.xz.part* > manifest && sha256sum < "$stage/bundle.tar.xz" |
  awk '{print $1 "  bundle.tar.xz"}' >> manifest)
ls -la "$out"
echo "carry each part in its own device call (carry: [\".window-bundle/manifest\", \".window-bundle/bundle.tar.xz.partNN\"]),"
echo "running tests/gpu/window-check.sh each time: it keeps the parts in /tmp/convlab-window-parts"
