#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""convlab.correlate on channel-last (H, W, C) arrays against cv2.filter2D, in one run.

Cases: 4096x4096x3, 4096x4096x4 and 1000x1000x3, float32 and uint8 (filtered to float32), the
edge kernel 1 1 1; 1 -8 1; 1 1 1 and the 5x5 binomial Gaussian, border replicate, one thread and
two. For each: convlab into a given `output=` array, convlab returning a new array, and
cv2.filter2D into a given `dst=`, each the median of --runs calls after a warm-up, with the
lowest and highest; every output is checked against cv2's first. "% of copy" is the bytes the
call must move (input read, float32 output written) over its time, as a share of the copy
bandwidth measured at the start on as many threads (numpy copies of 256 MiB, best of 5).
Prints a Markdown table.

    PYTHONPATH=build/python .venv/bin/python python/bench_channels.py [--runs 9] [--quick]
"""
import argparse
import os
import statistics
import sys
import threading
import time

# Python puts this script's folder first on the path, and python/convlab there is the package
# without its compiled extension: import the built one (PYTHONPATH) or the installed one.
if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]

import cv2
import numpy as np

import convlab

EDGE = np.array([[1, 1, 1], [1, -8, 1], [1, 1, 1]], np.float32)
BINOMIAL = np.array([1, 4, 6, 4, 1], np.float32)
GAUSSIAN5 = np.outer(BINOMIAL, BINOMIAL) / 256


def timed_ms(run, runs):
    run()  # warm-up: the planner's calibration, first-touch of the outputs
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times), min(times), max(times)


def copy_bandwidth_gbs(threads):
    """Bytes read plus written per second by numpy copies of 256 MiB split over `threads`."""
    src = np.ones(64 << 20, np.float32)
    dst = np.empty_like(src)
    parts = np.array_split(np.arange(src.size), threads)
    bounds = [(p[0], p[-1] + 1) for p in parts]

    def copy():
        workers = [threading.Thread(target=np.copyto, args=(dst[a:b], src[a:b])) for a, b in bounds]
        for w in workers:
            w.start()
        for w in workers:
            w.join()

    best = min(timed_ms(copy, 5)[:2])
    return 2 * src.nbytes / (best * 1e-3) / 1e9


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--quick", action="store_true", help="1000x1000x3 only, 3 runs")
    args = parser.parse_args()
    runs = 3 if args.quick else args.runs
    shapes = [(1000, 1000, 3)] if args.quick else [(4096, 4096, 3), (4096, 4096, 4), (1000, 1000, 3)]
    bandwidth = {t: copy_bandwidth_gbs(t) for t in (1, 2)}
    print(f"copy bandwidth: {bandwidth[1]:.1f} GB/s on one thread, {bandwidth[2]:.1f} on two; "
          f"convlab {convlab.__version__}, cv2 {cv2.__version__}, median [min-max] of {runs}\n")
    print("| array | dtype | kernel | threads | `output=out` (ms) | % of copy | new array (ms) "
          "| `cv2.filter2D(dst=)` (ms) | ours / cv2 |")
    print("|---|---|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for shape in shapes:
        for dtype in (np.float32, np.uint8):
            if dtype == np.float32:
                image = rng.random(shape, dtype=np.float32)
            else:
                image = rng.integers(0, 256, shape, dtype=np.uint8)
            out = np.empty(shape, np.float32)
            dst = np.empty(shape, np.float32)
            moved = image.nbytes + out.nbytes
            for name, kernel in (("edge 3×3", EDGE), ("Gaussian 5×5", GAUSSIAN5)):
                expected = cv2.filter2D(image, cv2.CV_32F, kernel, borderType=cv2.BORDER_REPLICATE)
                got = convlab.correlate(image, kernel, mode="nearest")
                scale = max(1.0, float(np.abs(expected).max()))
                if np.abs(got - expected).max() > 1e-5 * scale:
                    sys.exit(f"{shape} {dtype.__name__} {name}: convlab and cv2 differ")
                for threads in (1, 2):
                    cv2.setNumThreads(threads)
                    ours = timed_ms(lambda: convlab.correlate(image, kernel, output=out, mode="nearest",
                                                              threads=threads), runs)
                    fresh = timed_ms(lambda: convlab.correlate(image, kernel, mode="nearest", threads=threads), runs)
                    theirs = timed_ms(lambda: cv2.filter2D(image, cv2.CV_32F, kernel, dst=dst,
                                                           borderType=cv2.BORDER_REPLICATE), runs)
                    share = moved / (ours[0] * 1e-3) / 1e9 / bandwidth[threads] * 100
                    print(f"| {'×'.join(map(str, shape))} | {np.dtype(dtype).name} | {name} | {threads} "
                          f"| {ours[0]:.1f} [{ours[1]:.1f}–{ours[2]:.1f}] | {share:.0f} | {fresh[0]:.1f} "
                          f"| {theirs[0]:.1f} [{theirs[1]:.1f}–{theirs[2]:.1f}] | {ours[0] / theirs[0]:.2f} |",
                          flush=True)


if __name__ == "__main__":
    main()
