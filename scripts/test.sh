#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds ConvLab in build/ and runs the test suites (benchmarks excluded) under Xvfb, which the
# GUI tests need. The exit status is ctest's.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
./scripts/build.sh build
exec xvfb-run -a ctest --test-dir build --output-on-failure -LE bench
