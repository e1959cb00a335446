#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The whole test run, in stages:
#   1. build/ (Release) and every suite except the benchmarks, under Xvfb (the GUI tests need it);
#   2. scripts/sanitize.sh: the engine, the CLI and the core suites again under AddressSanitizer
#      and UndefinedBehaviorSanitizer, in build-sanitize/;
#   3. scripts/fuzz.sh: a short, repeatable run of each libFuzzer target, in build-fuzz/, where
#      clang is installed (skipped, saying so, where it is not).
# Every stage runs even when an earlier one failed; the exit status is 0 only when all passed.
# CONVLAB_SANITIZE=0 or CONVLAB_FUZZ=0 leave stage 2 or 3 out.
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
  stage "core suites under ASan+UBSan (build-sanitize/)" ./scripts/sanitize.sh build-sanitize
fi
if [[ ${CONVLAB_FUZZ:-1} != 0 ]]; then
  if command -v "${CONVLAB_FUZZ_CXX:-clang++-14}" >/dev/null 2>&1 || command -v clang++ >/dev/null 2>&1; then
    stage "short fuzz runs (build-fuzz/)" env CONVLAB_FUZZ_BUILD="${CONVLAB_FUZZ_BUILD:-build-fuzz}" ./scripts/fuzz.sh
  else
    summary+=("skipped short fuzz runs: no clang++ (install clang-14 to run them)")
  fi
fi

echo "== test.sh: summary"
printf '  %s\n' "${summary[@]}"
exit "$status"
