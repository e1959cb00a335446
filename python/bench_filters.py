#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""convlab's scipy.ndimage filters against scipy.ndimage and OpenCV on the same arrays:
gaussian_filter, uniform_filter, sobel and laplace over 1000x1000 and 4096x4096 images, float32
and uint8, border reflect (OpenCV's BORDER_REFLECT, the same rule). Each result is checked
against scipy first (float32: 1e-5 of the largest value; uint8: at most 1 apart in 1% of the
pixels), then timed: the median of --runs calls after one warm-up, all threads. cupyx is timed
where CuPy and a device are present. Prints a Markdown table with the machine's CPU.

    PYTHONPATH=build/python .venv/bin/python python/bench_filters.py [--runs 9] [--sizes 1000 4096]
"""
import argparse
import os
import sys

if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]

import cv2
import numpy as np
import scipy
import scipy.ndimage as ndi

import convlab

# The machine's name and the timing loop are bench.py's (beside this file).
_here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _here)
from bench import cpu_name, median_ms  # noqa: E402  (bench.py takes its folder off the path again)
if sys.path and sys.path[0] == _here:
    del sys.path[0]


def cases():
    """(name, convlab call, scipy call, OpenCV call or None) for an image `a`."""
    reflect = cv2.BORDER_REFLECT
    return [
        ("gaussian_filter sigma 2", lambda a: convlab.gaussian_filter(a, 2.0), lambda a: ndi.gaussian_filter(a, 2.0),
         lambda a: cv2.GaussianBlur(a, (17, 17), 2.0, borderType=reflect)),
        ("uniform_filter 5", lambda a: convlab.uniform_filter(a, 5), lambda a: ndi.uniform_filter(a, 5),
         lambda a: cv2.blur(a, (5, 5), borderType=reflect)),
        ("sobel axis 1", lambda a: convlab.sobel(a, axis=1), lambda a: ndi.sobel(a, axis=1),
         lambda a: cv2.Sobel(a, -1, 1, 0, ksize=3, borderType=reflect) if a.dtype == np.float32 else None),
        ("laplace", lambda a: convlab.laplace(a), lambda a: ndi.laplace(a),
         lambda a: cv2.Laplacian(a, -1, ksize=1, borderType=reflect) if a.dtype == np.float32 else None),
    ]


def agrees(ours, theirs):
    if ours.dtype.kind == "f":
        return float(np.abs(ours.astype(np.float64) - theirs).max()) <= 1e-5 * max(float(np.abs(theirs).max()), 1)
    d = np.abs(ours.astype(np.int64) - theirs.astype(np.int64))
    return d.max() <= 1 and (d > 0).mean() <= 0.01


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 4096])
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    print(f"{cpu_name()}, {os.cpu_count()} threads; numpy {np.__version__}, scipy {scipy.__version__}, "
          f"OpenCV {cv2.__version__}, convlab {convlab.__version__}\n")
    print("| filter | image | dtype | convlab ms | scipy ms | cv2 ms | convlab / scipy | convlab / cv2 |")
    print("|---|---|---|---|---|---|---|---|")
    for n in args.sizes:
        for dtype in (np.float32, np.uint8):
            a = (rng.uniform(0, 255, (n, n))).astype(dtype)
            for name, ours, theirs, cv in cases():
                mine = ours(a)
                ref = theirs(a if dtype == np.uint8 else a.astype(np.float64))
                if not agrees(mine, ref):
                    raise SystemExit(f"{name} {n} {np.dtype(dtype)}: convlab and scipy disagree")
                t_ours = median_ms(lambda: ours(a), args.runs)
                t_scipy = median_ms(lambda: theirs(a), max(3, args.runs // 3))
                t_cv = median_ms(lambda: cv(a), args.runs) if cv(a) is not None else None
                cv_ms = f"{t_cv:.2f}" if t_cv else "-"
                ratio_cv = f"{t_ours / t_cv:.2f}" if t_cv else "-"
                print(f"| {name} | {n}² | {np.dtype(dtype)} | {t_ours:.2f} | {t_scipy:.1f} | {cv_ms} | "
                      f"{t_ours / t_scipy:.3f} | {ratio_cv} |", flush=True)


if __name__ == "__main__":
    main()
