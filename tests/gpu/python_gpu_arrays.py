#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""convlab's Python filters on CuPy arrays, on a machine with a GPU (tests/gpu/device-check.sh):
the result is a CuPy array equal to the host run's and to cupyx.scipy.ndimage's, `output=` is
written where it lies, a run on a non-default stream sees what was queued there; then the time
a caller pays per call (wall clock to a synchronised device), convlab against
cupyx.scipy.ndimage.convolve on the same CuPy arrays, 3x3, 5x5 and 31x31 at 1024^2 and 4096^2
(docs/python.md, GPU arrays, quotes the table). Exit status 1 when a check fails; CuPy absent:
says so and exits 0."""
import argparse
import json
import sys
import time

import numpy as np

try:
    import cupy
    import cupyx.scipy.ndimage as cndi
except ImportError:
    print("CuPy is not installed: nothing measured")
    sys.exit(0)

import convlab


def kernel(name):
    n = int(name.split("x")[0])
    if name == "3x3 edge8":
        k = np.ones((3, 3))
        k[1, 1] = -8
    elif "gaussian" in name:
        x = np.arange(n) - n // 2
        g = np.exp(-x * x / 2.0)
        k = np.outer(g, g) / np.outer(g, g).sum()
    else:
        k = np.random.default_rng(n).standard_normal((n, n))
    return k.astype(np.float32)


def wall_ms(fn, runs):
    fn()
    cupy.cuda.Device().synchronize()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        cupy.cuda.Device().synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(times))


def checks():
    failures = []
    rng = np.random.default_rng(1)
    host = rng.standard_normal((257, 301)).astype(np.float32)
    x = cupy.asarray(host)
    for name in ("3x3 edge8", "5x5 gaussian", "31x31 dense"):
        k = kernel(name)
        for mode in ("reflect", "mirror", "nearest", "wrap", "constant"):
            got = convlab.convolve(x, k, mode=mode, cval=0.5)
            if not isinstance(got, cupy.ndarray):
                failures.append(f"{name} {mode}: result is a {type(got)}")
                continue
            want = convlab.convolve(host, k, mode=mode, cval=0.5)
            peer = cndi.convolve(x, cupy.asarray(k), mode=mode, cval=0.5).get()
            scale = float(np.abs(want).max()) or 1.0
            for label, ref in (("host", want), ("cupyx", peer)):
                err = float(np.abs(got.get() - ref).max()) / scale
                if err > 1e-5:
                    failures.append(f"{name} {mode}: {err:.2e} from the {label} result")
    out = cupy.empty_like(x)
    if convlab.correlate(x, kernel("3x3 edge8"), output=out) is not out:
        failures.append("output= was not returned")
    batch = cupy.asarray(rng.standard_normal((6, 40, 50)).astype(np.float32))
    got = convlab.convolve(batch, kernel("5x5 gaussian"), axes=(1, 2)).get()
    want = convlab.convolve(batch.get(), kernel("5x5 gaussian"), axes=(1, 2))
    if float(np.abs(got - want).max()) > 1e-5:
        failures.append("a batch of six planes differs from the host run")
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        y = cupy.asarray(host) * 2  # queued on `stream`
        got = convlab.convolve(y, kernel("3x3 edge8"))
    if float(np.abs(got.get() - convlab.convolve(host * 2, kernel("3x3 edge8"))).max()) > 1e-4:
        failures.append("a run on a non-default stream did not see what was queued there")
    return failures


def timings(runs):
    rows = []
    for side in (1024, 4096):
        x = cupy.asarray(np.random.default_rng(side).standard_normal((side, side)).astype(np.float32))
        out = cupy.empty_like(x)
        for name in ("3x3 edge8", "5x5 gaussian", "31x31 dense"):
            k = kernel(name)
            kd = cupy.asarray(k)
            ours = wall_ms(lambda: convlab.convolve(x, k, output=out), runs)
            peer = wall_ms(lambda: cndi.convolve(x, kd, output=out, mode="reflect"), runs)
            target = 0.2 if name.startswith("31") else 0.5
            rows.append({"case": f"{side}^2 {name}", "convlab_ms": ours, "cupyx_ms": peer, "ratio": ours / peer,
                         "target": target})
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--json")
    args = ap.parse_args()
    print(f"GPU: {cupy.cuda.runtime.getDeviceProperties(0)['name'].decode()}; CuPy {cupy.__version__}, "
          f"convlab {convlab.__version__}")
    failures = checks()
    for f in failures:
        print("FAIL:", f)
    print(f"checks: {'all passed' if not failures else f'{len(failures)} failed'}")
    rows = timings(args.runs)
    print("| case | convlab ms | cupyx.scipy.ndimage ms | ratio | target |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['case']} | {r['convlab_ms']:.3f} | {r['cupyx_ms']:.3f} | {r['ratio']:.2f} | <= {r['target']} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"failures": failures, "timings": rows}, f, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
