#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""convlab.dask.convolve against dask_image.ndfilters.convolve on a distributed LocalCluster.

An N x N float32 array (8192 by default) in C x C chunks (1024), made on the cluster's workers
(so no 256 MB graph leaves this process), filtered with dense 3x3, 11x11 and 31x31 kernels under
the border mode reflect, which both libraries have. Each result is kept on the workers
(persist + wait: what a pipeline's next step would read) and timed from submission to the last
block; the median of --runs runs after one warm-up (--slow S: a peer slower than S seconds is
run once). Before timing, both results are compared on the cluster (max |a - b| over
sum|K| * max|in|, reduced there; only the number comes back). One engine thread per block and
one thread per worker, as a cluster of single-core workers runs it. Prints a Markdown table.

    PYTHONPATH=build/python .venv/bin/python python/bench_dask.py [--size 8192] [--chunk 1024]
"""
import argparse
import os
import statistics
import sys
import time
import uuid

if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]  # python/convlab here has no compiled extension: import the built one

import dask
import dask.array as da
import dask_image.ndfilters
import numpy as np
from distributed import Client, LocalCluster, wait
from importlib.metadata import version

import convlab
import convlab.dask

KERNEL_SIZES = (3, 11, 31)


def fresh(image):
    """`image` under new keys (an identity step), so that no run finds an earlier run's blocks
    still held by the workers: the graphs are tokenized deterministically."""
    return image.map_blocks(lambda block: block, name=f"input-{uuid.uuid4().hex}", dtype=image.dtype)


def timed(client, make, image, runs, slow):
    """Median seconds of persisting make(image)'s result on the workers (after a warm-up)."""
    def once():
        start = time.perf_counter()
        result = client.persist(make(fresh(image)))
        wait(result)
        elapsed = time.perf_counter() - start
        del result
        return elapsed

    first = once()  # warm-up: the engine's calibration and imports on each worker
    if first > slow:
        return first, 1
    times = [once() for _ in range(runs)]
    return statistics.median(times), runs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=8192)
    parser.add_argument("--chunk", type=int, default=1024)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--slow", type=float, default=20.0)
    args = parser.parse_args()

    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        image = da.random.default_rng(0).uniform(-1, 1, (args.size, args.size), chunks=args.chunk)
        image = client.persist(image.astype(np.float32))
        wait(image)
        peak = float(abs(image).max().compute())
        print(f"{args.size}x{args.size} float32 in {args.chunk}x{args.chunk} chunks, LocalCluster of "
              f"{args.workers} worker processes (1 thread each), mode reflect; dask {dask.__version__}, "
              f"dask-image {version('dask-image')}, convlab {convlab.__version__}; median of {args.runs}\n")
        print("| kernel | convlab.dask.convolve (s) | dask_image.ndfilters.convolve (s) | ratio | max difference |")
        print("|---|---|---|---|---|")
        for size in KERNEL_SIZES:
            weights = np.random.default_rng(size).uniform(-1, 1, (size, size)).astype(np.float32)
            ours = lambda x: convlab.dask.convolve(x, weights, mode="reflect")
            peer = lambda x: dask_image.ndfilters.convolve(x, weights, mode="reflect")
            scale = float(np.abs(weights).sum()) * peak
            difference = float(abs(ours(image) - peer(image)).max().compute()) / scale
            if difference > 1e-5:
                raise SystemExit(f"{size}x{size}: the results differ by {difference:.2e} of sum|K| max|in|")
            ours_s, ours_n = timed(client, ours, image, args.runs, args.slow)
            peer_s, peer_n = timed(client, peer, image, args.runs, args.slow)
            note = "" if peer_n == args.runs else " (one run)"
            print(f"| {size}x{size} | {ours_s:.2f} | {peer_s:.2f}{note} | **{ours_s / peer_s:.3f}** | "
                  f"{difference:.1e} |")


if __name__ == "__main__":
    main()
