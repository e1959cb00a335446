#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a call on a small array costs through the Python module: convlab.correlate into a given
output (threads=0 and threads=1), and with --peers cv2.filter2D (one thread) and
scipy.ndimage.correlate on the same arrays. Each figure is the best of five loops of N calls,
in µs per call; prints one JSON list, a record per case.

    PYTHONPATH=build/python .venv-bench/bin/python tests/bench/small_calls.py [--peers]

Run it alternating with another build's module (PYTHONPATH) to compare them; pin both to one
core (taskset -c 1) on a machine whose cores run at different speeds, and read the threads=0
figures only from unpinned runs.
"""
import argparse
import json
import os
import sys
import time

# Python puts this script's folder first on the path; the module to time is PYTHONPATH's.
if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]

import numpy as np

import convlab

CASES = [(16, 3), (64, 3), (64, 9), (256, 3), (256, 9)]


def per_call_us(call, calls):
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        best = min(best, (time.perf_counter() - start) / calls * 1e6)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peers", action="store_true", help="also time cv2.filter2D and scipy.ndimage.correlate")
    args = parser.parse_args()
    if args.peers:
        import cv2
        import scipy.ndimage as ndi
        cv2.setNumThreads(1)
    rng = np.random.default_rng(1)
    records = []
    for size, side in CASES:
        image = rng.random((size, size), dtype=np.float32)
        kernel = rng.random((side, side), dtype=np.float32)
        out = np.empty_like(image)
        expected = None
        calls = 2000 if size <= 64 else 500
        record = {"array": f"{size}x{size}", "kernel": f"{side}x{side}"}
        for threads in (0, 1):
            record[f"threads={threads}"] = per_call_us(
                lambda: convlab.correlate(image, kernel, mode="nearest", output=out, threads=threads), calls)
            expected = out.copy()
        if args.peers:
            dst = np.empty_like(image)
            record["cv2"] = per_call_us(
                lambda: cv2.filter2D(image, -1, kernel, dst=dst, borderType=cv2.BORDER_REPLICATE), calls)
            record["ndimage"] = per_call_us(lambda: ndi.correlate(image, kernel, output=dst, mode="nearest"),
                                            max(calls // 10, 20))
            # The same filter in all three (float32 sums in different orders).
            scale = float(np.abs(kernel).sum() * np.abs(image).max())
            record["max_diff_vs_ndimage"] = float(np.abs(expected - dst).max() / scale)
            if record["max_diff_vs_ndimage"] > 1e-5:
                sys.exit(f"{record['array']} {record['kernel']}: ConvLab and scipy.ndimage differ "
                         f"by {record['max_diff_vs_ndimage']:.3g} of the largest sum")
        records.append(record)
    print(json.dumps(records))


if __name__ == "__main__":
    main()
