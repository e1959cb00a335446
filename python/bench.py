#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""convlab.convolve against scipy.signal.convolve2d, scipy.ndimage.convolve and cv2.filter2D on
one case: a 1000x1000 float32 image, the edge kernel 1 1 1; 1 -8 1; 1 1 1, reflect border
(symmetric: cba|abcd|dcb in every library). Each is checked against scipy.ndimage first, then
timed: the median of --runs runs after one warm-up, on all threads and on one. Prints a
Markdown table with the machine's CPU.

    PYTHONPATH=build/python .venv/bin/python python/bench.py [--runs 15]
"""
import argparse
import os
import platform
import statistics
import sys
import time

# Python puts this script's folder first on the path, and python/convlab there is the package
# without its compiled extension: import the built one (PYTHONPATH) or the installed one.
if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]

import cv2
import numpy as np
import scipy
import scipy.ndimage as ndi
import scipy.signal

import convlab

KERNEL = np.array([[1, 1, 1], [1, -8, 1], [1, 1, 1]], np.float32)


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def median_ms(run, runs):
    run()  # warm-up: first-call costs (the planner's calibration, FFT plans, page faults)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def candidates(image, threads):
    def cv_filter():
        cv2.setNumThreads(threads)
        return cv2.filter2D(image, -1, KERNEL, borderType=cv2.BORDER_REFLECT)

    return [
        ("convlab.convolve (auto)", lambda: convlab.convolve(image, KERNEL, mode="reflect", threads=threads)),
        ("scipy.signal.convolve2d (same, symm)",
         lambda: scipy.signal.convolve2d(image, KERNEL, mode="same", boundary="symm")),
        ("scipy.ndimage.convolve (reflect)", lambda: ndi.convolve(image, KERNEL, mode="reflect")),
        ("cv2.filter2D (BORDER_REFLECT)", cv_filter),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--size", type=int, default=1000)
    args = parser.parse_args()
    image = np.random.default_rng(0).uniform(0, 255, (args.size, args.size)).astype(np.float32)
    reference = ndi.convolve(image.astype(np.float64), KERNEL.astype(np.float64), mode="reflect")
    scale = np.abs(KERNEL).sum() * np.abs(image).max()
    threads_all = os.cpu_count() or 1

    print(f"CPU: {cpu_name()}, {threads_all} threads; numpy {np.__version__}, scipy {scipy.__version__}, "
          f"OpenCV {cv2.__version__}, convlab {convlab.__version__}")
    print(f"{args.size}x{args.size} float32, kernel 1 1 1; 1 -8 1; 1 1 1, reflect; median of {args.runs} runs\n")
    rows = []
    for threads in (threads_all, 1):
        for name, run in candidates(image, threads):
            error = float(np.abs(run().astype(np.float64) - reference).max()) / scale
            if error > 1e-6:
                raise SystemExit(f"{name} differs from scipy.ndimage by {error:.2e} of sum|K| max|in|")
            single = "scipy" in name  # scipy runs on one thread either way
            if single and threads != threads_all:
                continue
            label = name if single else f"{name}, {threads} thread{'s' if threads > 1 else ''}"
            rows.append((label, median_ms(run, args.runs)))
    report = convlab.convolve(image, KERNEL, mode="reflect", return_report=True)[1]
    ours = rows[0][1]
    print("| implementation | median ms | time / convlab's |")
    print("|---|---|---|")
    for label, ms in rows:
        print(f"| {label} | {ms:.2f} | {ms / ours:.2f} |")
    print(f"\nconvlab's auto ran {report['method']}: {report['reason']}")


if __name__ == "__main__":
    main()
