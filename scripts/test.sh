#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The whole test run, in stages:
#   1. build/ (Release) and every suite except the benchmarks, under Xvfb (the GUI tests need it);
#   2. scripts/sanitize.sh: the engine, the CLI and the core suites again under AddressSanitizer
#      and UndefinedBehaviorSanitizer, in build-sanitize/; built with clang (installed by
#      setup.sh), the same build holds the libFuzzer targets and runs a short, repeatable run of
#      each (ctest label fuzz) with the core suites, so the core is compiled once for both.
# Every stage runs even when the first failed; the exit status is 0 only when all passed.
# CONVLAB_SANITIZE=0 leaves stage 2 out, CONVLAB_FUZZ=0 its fuzz runs. scripts/fuzz.sh runs one
# fuzz target for as long as asked.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
status=0
summary=()

stage() {
  local name=$1 start=$SECONDS
  shift
  echo "== test.sh: $name"
  if "$@"; then
    summary+=("passed  $name ($((SECONDS - start)) s)")
  else
    summary+=("FAILED  $name ($((SECONDS - start)) s)")
    status=1
  fi
}

suites() {
  ./scripts/build.sh build && xvfb-run -a ctest --test-dir build --output-on-failure -LE bench
}

stage "build and test suites (build/)" suites
if [[ ${CONVLAB_SANITIZE:-1} != 0 ]]; then
  stage "core suites and short fuzz runs under ASan+UBSan (build-sanitize/)" ./scripts/sanitize.sh build-sanitize
fi

echo "== test.sh: summary"
printf '  %s\n' "${summary[@]}"
exit "$status"
