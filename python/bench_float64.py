#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""float64 filters on a 2048x2048 float64 image: convlab's float64 route, its float32 route
(precision='float32': converted to float32, filtered, converted back), scipy.ndimage and
OpenCV in CV_64F, in one process, the candidates alternating round after round so that load
from other processes falls on all of them alike; medians of the rounds. Each result is first
checked against scipy (float64 route: 1e-12 of the sums' scale). Prints a Markdown table.

    PYTHONPATH=build/python .venv/bin/python python/bench_float64.py [--rounds 15] [--size 2048]
"""
import argparse
import os
import statistics
import sys
import time

if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]

import cv2
import numpy as np
import scipy.ndimage as ndi

import convlab

REFLECT = cv2.BORDER_REFLECT  # scipy's 'reflect'
LAPLACE = np.array([[0.0, 1.0, 0.0], [1.0, -4.0, 1.0], [0.0, 1.0, 0.0]])


def _gaussian_cv(a, sigma):
    radius = int(4.0 * sigma + 0.5)
    x = np.arange(-radius, radius + 1)
    g = np.exp(-0.5 * (x / sigma) ** 2)
    g /= g.sum()
    return cv2.sepFilter2D(a, cv2.CV_64F, g, g, borderType=REFLECT)


def cases(rng):
    """(name, weights' Σ|w| for the check, convlab call(a, **kw), scipy call, OpenCV call)."""
    k3, k15 = rng.standard_normal((3, 3)), rng.standard_normal((15, 15))
    return [
        ("convolve 3x3", np.abs(k3).sum(), lambda a, **kw: convlab.convolve(a, k3, **kw), lambda a: ndi.convolve(a, k3),
         lambda a: cv2.filter2D(a, cv2.CV_64F, k3[::-1, ::-1].copy(), borderType=REFLECT)),
        ("convolve 15x15", np.abs(k15).sum(), lambda a, **kw: convlab.convolve(a, k15, **kw),
         lambda a: ndi.convolve(a, k15),
         lambda a: cv2.filter2D(a, cv2.CV_64F, k15[::-1, ::-1].copy(), anchor=(7, 7), borderType=REFLECT)),
        ("gaussian_filter sigma 3", 1.0, lambda a, **kw: convlab.gaussian_filter(a, 3.0, **kw),
         lambda a: ndi.gaussian_filter(a, 3.0), lambda a: _gaussian_cv(a, 3.0)),
        ("sobel axis 1", 8.0, lambda a, **kw: convlab.sobel(a, axis=1, **kw), lambda a: ndi.sobel(a, axis=1),
         lambda a: cv2.Sobel(a, cv2.CV_64F, 1, 0, ksize=3, borderType=REFLECT)),
        ("laplace", 8.0, lambda a, **kw: convlab.laplace(a, **kw), lambda a: ndi.laplace(a),
         lambda a: cv2.filter2D(a, cv2.CV_64F, LAPLACE, borderType=REFLECT)),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--size", type=int, default=2048)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    a = rng.random((args.size, args.size)) * 255.0
    print(f"{args.size}x{args.size} float64, {os.cpu_count()} CPUs, median of {args.rounds} alternating rounds (ms)\n")
    print("| filter | convlab float64 | convlab float32 route | scipy | OpenCV CV_64F | float64 vs scipy | max error / scale |")
    print("|---|---|---|---|---|---|---|")
    for name, gain, ours, theirs, cv in cases(rng):
        expected = theirs(a)
        error = float(np.abs(ours(a) - expected).max()) / (gain * float(np.abs(a).max()))
        assert error <= 1e-12, (name, error)
        runs = {"f64": lambda: ours(a), "f32": lambda: ours(a, precision="float32"), "scipy": lambda: theirs(a),
                "cv": lambda: cv(a)}
        times = {key: [] for key in runs}
        for run in runs.values():
            run()  # warm-up: calibration, page faults
        for _ in range(args.rounds):
            for key, run in runs.items():
                start = time.perf_counter()
                run()
                times[key].append((time.perf_counter() - start) * 1e3)
        m = {key: statistics.median(t) for key, t in times.items()}
        print(f"| {name} | {m['f64']:.1f} | {m['f32']:.1f} | {m['scipy']:.1f} | {m['cv']:.1f} | "
              f"{m['scipy'] / m['f64']:.1f}x | {error:.1e} |")


if __name__ == "__main__":
    main()
