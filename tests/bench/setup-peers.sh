#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Creates .venv-bench at the repository root with the newest numpy, scipy and
# opencv-python-headless from PyPI, for tests/bench/peers.py:
#   tests/bench/setup-peers.sh && .venv-bench/bin/python tests/bench/peers.py bench.json
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
venv="$root/.venv-bench"
/usr/bin/python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet --upgrade numpy scipy opencv-python-headless
"$venv/bin/python" -c 'import numpy, scipy, cv2
print("numpy", numpy.__version__, "scipy", scipy.__version__, "cv2", cv2.__version__,
      "threads", cv2.getNumThreads())'
echo "peers venv ready: $venv/bin/python tests/bench/peers.py BENCH.json"
