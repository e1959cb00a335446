#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Downloads (does not install) the Debian 12 packages that the GPU machine's build of the
# engine, the CLI and the gpu tests needs, into .debs/ (ignored by git). device-check.sh
# extracts them there into a prefix of its own.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mkdir -p "$root/.debs"
cd "$root/.debs"
pkgs=(qt6-base-dev qt6-base-dev-tools qmake6 libqt6core6 libqt6test6 libicu72 libdouble-conversion3
      libpcre2-16-0 libb2-1 libglib2.0-0 libfftw3-dev libfftw3-single3 libfftw3-double3 libeigen3-dev
      libcli11-dev nlohmann-json3-dev
      # headless EGL + OpenGL for the interop check (glvnd loaders and headers)
      libegl1 libegl-dev libglvnd0 libglvnd-dev libopengl0 libopengl-dev libgl1 libgl-dev libglx0 libglx-dev
      libgles2 libgles-dev)
missing=()
for p in "${pkgs[@]}"; do
  compgen -G "${p}_*.deb" >/dev/null || missing+=("$p")
done
if ((${#missing[@]})); then
  apt-get download "${missing[@]}"
fi
# nanobind's sources and CMake files (a pip package, from the virtual environment of
# scripts/setup.sh), for the Python module's build on the GPU machine (GPU arrays).
if [[ -x "$root/.venv/bin/python" ]] && nb=$("$root/.venv/bin/python" -c "import nanobind, os; print(os.path.dirname(nanobind.__file__))" 2>/dev/null); then
  rm -rf "$root/.debs/nanobind" && cp -r "$nb" "$root/.debs/nanobind"
fi
du -sh "$root/.debs"
