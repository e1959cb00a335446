#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What of the device scripts a machine without a GPU can run: every script parses, and
# end_to_end.py measures the CLI on the CPU (small images) and writes its table and JSON.
# The window check needs its bundle (a few minutes to pack), so it is tried by hand:
#   tests/gpu/make-window-bundle.sh && BACKENDS=cpu tests/gpu/window-check.sh
# Usage: tests/gpu/try-on-cpu.sh PYTHON CONVLAB_CLI
set -euo pipefail
python=$1 cli=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for s in "$here"/*.sh; do bash -n "$s"; done
"$python" -m py_compile "$here/end_to_end.py" "$here/peers_gpu.py"
json=$(mktemp)
trap 'rm -f "$json"' EXIT
table=$("$python" "$here/end_to_end.py" --cli "$cli" --device cpu --size 256 --repeat 2 --batch 3 --json "$json")
echo "$table"
grep -q '^| 256x256x1 float32 |' <<< "$table"
grep -q '^| 256x256x3 float32 |' <<< "$table"
grep -q '| 3/3 |' <<< "$table"
"$python" - "$json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [c["channels"] for c in d["cases"]] == [1, 3], d["cases"]
assert all(c["device_ran"] == "cpu" and c["engine_median_ms"] > 0 and c["process_ms"] > 0 for c in d["cases"])
assert d["batch"]["written"] == 3 and d["batch"]["per_image_ms"] > 0
PY
echo "device scripts: parse, end_to_end.py on the CPU: ok"
