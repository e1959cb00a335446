#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs the Debian 12 packages needed to build and test ConvLab, then the virtual
# environment .venv (from /usr/bin/python3) with what the Python module convlab, its tests and
# its benchmark need from PyPI (python/requirements.txt). Idempotent and non-interactive:
# packages already installed are left alone, apt runs only when one is missing, pip only when
# the environment lacks a requirement.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  qt6-base-dev libqt6opengl6-dev
  libopencv-core-dev libopencv-imgproc-dev libopencv-imgcodecs-dev
  libeigen3-dev libfftw3-dev libcli11-dev nlohmann-json3-dev
  xvfb xauth libgl1-mesa-dri
  python3-numpy python3-scipy python3-opencv
  python3-venv python3-dev      # the Python module (python/): .venv below, nanobind's headers
  clang-14 libclang-rt-14-dev   # the sanitizer build and the libFuzzer targets (scripts/test.sh)
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ $status == "install ok installed" ]] || missing+=("$p")
done

install_debian_packages() {
  if ((${#missing[@]} == 0)); then
    echo "setup: all ${#packages[@]} packages already installed"
    return
  fi
  local sudo=()
  if ((EUID != 0)); then
    if command -v sudo >/dev/null 2>&1; then
      sudo=(sudo)
    else
      echo "setup: not root and no sudo; install these packages as root: ${missing[*]}" >&2
      exit 1
    fi
  fi
  "${sudo[@]}" apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"
  echo "setup: installed ${missing[*]}"
}

# The build finds nanobind in .venv (cmake/ConvLabPython.cmake) and the python tests run with
# its interpreter. Each pinned requirement is looked up in the environment first, so pip (and
# the network) is used only when one is missing or of another version.
install_python_environment() {
  local root venv requirements
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  venv="$root/.venv"
  requirements="$root/python/requirements.txt"
  [[ -x $venv/bin/python ]] || /usr/bin/python3 -m venv "$venv"
  if "$venv/bin/python" - "$requirements" <<'EOF'; then
import sys
from importlib.metadata import PackageNotFoundError, version
pins = [line.split("#")[0].strip().split("==") for line in open(sys.argv[1])]
try:
    sys.exit(any(version(name) != wanted for name, wanted in (p for p in pins if len(p) == 2)))
except PackageNotFoundError:
    sys.exit(1)
EOF
    echo "setup: .venv already has python/requirements.txt"
    return
  fi
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
  echo "setup: installed python/requirements.txt into .venv"
}

# dask-image's own tests judge convlab.dask (python/tests/daskimage_suite): they ship in its
# sdist only, not in the wheel, so the sdist of the pinned version is fetched into the
# git-ignored .deps/ (never committed). Without a network the suite says so and is skipped.
fetch_dask_image_tests() {
  local root deps version
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  deps="$root/.deps"
  version=$(sed -n 's/^dask-image==\([^ #]*\).*/\1/p' "$root/python/requirements.txt")
  if [[ -f $deps/dask_image-$version.tar.gz ]]; then
    echo "setup: .deps already has dask-image $version's sdist"
    return
  fi
  if "$root/.venv/bin/python" -m pip download --quiet --disable-pip-version-check --no-deps \
      --no-binary :all: -d "$deps" "dask-image==$version"; then
    echo "setup: downloaded dask-image $version's sdist into .deps (its tests judge convlab.dask)"
  else
    echo "setup: could not download dask-image $version's sdist; the python_daskimage suite will be skipped" >&2
  fi
}

install_debian_packages
install_python_environment
fetch_dask_image_tests
