#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds ConvLab (Release) and opens the workbench on the bundled sample photo. Without the GUI
# (configured with -DCONVLAB_WITH_GUI=OFF), filters the photo with the command-line tool instead.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
photo=resources/coffee.png

./scripts/build.sh build
if [[ -x build/app/convlab ]]; then
  exec build/app/convlab "$photo"
fi

out=build/sample-edges.png
build/app/convlab-cli "$photo" "$out" -k preset:laplacian8 -b reflect --map abs
echo "run: no GUI in this build; edge-filtered $photo written to $root/$out"
