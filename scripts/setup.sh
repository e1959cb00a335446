#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs the Debian 12 packages needed to build and test ConvLab. Idempotent and
# non-interactive: packages already installed are left alone, apt runs only when one is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  qt6-base-dev libqt6opengl6-dev
  libopencv-core-dev libopencv-imgproc-dev libopencv-imgcodecs-dev
  libeigen3-dev libfftw3-dev libcli11-dev nlohmann-json3-dev
  xvfb xauth libgl1-mesa-dri
  python3-numpy python3-scipy python3-opencv
  clang-14 libclang-rt-14-dev   # the sanitizer build and the libFuzzer targets (scripts/test.sh)
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ $status == "install ok installed" ]] || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} packages already installed"
  exit 0
fi

sudo=()
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
