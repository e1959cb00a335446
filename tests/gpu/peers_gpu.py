#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""GPU peers on the same cases as convlab-gpu-bench: CuPy's cupyx.scipy.ndimage.convolve and
cupyx.scipy.signal.fftconvolve, and cuDNN through torch.nn.functional.conv2d; kernel time from
CUDA events (median of N after a warm-up). With --ours FILE (convlab-gpu-bench --json) it prints
the ratios ours/peer. Peers that are not installed are reported as absent.

Every peer applies the border of the bench's records (reflect without --ours) under the names
convlab-cli gives for it (--list border-modes --json, the table of convlab/modes.h): CuPy's
scipy mode, and for cuDNN an input pre-padded by cupy.pad. Which of our records is auto comes
from convlab-cli --list methods --json."""
import argparse
import json
import shutil
import subprocess
import sys

import numpy as np

# cupy.pad's (numpy's) name for each scipy.ndimage mode: the two name the same rules differently.
NUMPY_PAD_OF_SCIPY = {'constant': 'constant', 'nearest': 'edge', 'reflect': 'symmetric',
                      'mirror': 'reflect', 'wrap': 'wrap'}

CASES = ['3x3 edge8', '5x5 gaussian', '11x11 dense', '17x17 dense', '31x31 dense', '31x31 gaussian',
         '63x63 dense']


def kernel(name, rng):
    n = int(name.split('x')[0])
    if 'edge8' in name:
        k = np.ones((3, 3)); k[1, 1] = -8
    elif 'gaussian' in name:
        sigma = 1.0 if n == 5 else 5.0
        x = np.arange(n) - n // 2
        g = np.exp(-x * x / (2 * sigma * sigma)); g /= g.sum()
        k = np.outer(g, g)
    else:
        k = rng.standard_normal((n, n))
    return k.astype(np.float32)


def cli_table(cli, what):
    """A table of convlab/modes.h as convlab-cli lists it: 'border-modes' or 'methods'."""
    try:
        p = subprocess.run([cli, '--list', what, '--json'], capture_output=True, text=True)
    except OSError as e:
        raise SystemExit('cannot run %s: %s (pass the path of convlab-cli with --cli)' % (cli, e))
    if p.returncode != 0:
        raise SystemExit('%s --list %s --json: exit %d: %s' % (cli, what, p.returncode, p.stderr.strip()))
    return json.loads(p.stdout)


def time_gpu(fn, runs, cp):
    fn()
    cp.cuda.Device().synchronize()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(runs):
        start.record(); fn(); stop.record(); stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    return float(np.median(times))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--sizes', default='4096,8192')
    ap.add_argument('--runs', type=int, default=7)
    ap.add_argument('--ours')
    ap.add_argument('--cli', default=shutil.which('convlab-cli') or 'build/app/convlab-cli',
                    help='convlab-cli, for the tables of border modes and methods')
    a = ap.parse_args()
    modes = {}
    for row in cli_table(a.cli, 'border-modes'):
        for name in [row['name']] + row['aliases']:
            modes[name] = row
    auto_names = {m['name'] for m in cli_table(a.cli, 'methods') if m['accuracy'] == 'of_its_pick'}
    records = json.load(open(a.ours)) if a.ours else []
    borders = {r['border'] for r in records if 'border' in r} or {'reflect'}
    if len(borders) != 1:
        raise SystemExit('%s: records with several borders (%s); one is expected' % (a.ours, ', '.join(borders)))
    border = modes[borders.pop()]
    if border['scipy'] is None:
        raise SystemExit('scipy (CuPy) has no border mode like %s: no peer computes it' % border['name'])
    scipy_mode, pad_mode = border['scipy'], NUMPY_PAD_OF_SCIPY[border['scipy']]
    try:
        import cupy as cp
        import cupyx.scipy.ndimage as cndi
        import cupyx.scipy.signal as csig
    except ImportError as e:
        print('CuPy absent (%s): no GPU peers' % e)
        return 1
    try:
        import torch
        import torch.nn.functional as F
        torch.backends.cudnn.benchmark = True
        # float32 throughout, as ours: no TF32 (which would trade ~3 decimal digits for speed).
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False
    except ImportError:
        torch = None
    ours, auto = {}, {}
    if a.ours:
        for r in records:
            if 'size' not in r:
                continue
            key = (r['size'], r['kernel'])
            if r['method'] in auto_names:
                auto[key] = (r['kernel_ms'], r['chosen'])
            elif r['kernel_ms'] < ours.get(key, (1e30, ''))[0]:
                ours[key] = (r['kernel_ms'], r['method'])
    rng = np.random.default_rng(5)
    print('kernel time in ms, median of %d after a warm-up (CUDA events), border %s (CuPy mode=%r, cupy.pad '
          'mode=%r); cuDNN: conv2d on a pre-padded input, algorithm by cudnn.benchmark, TF32 off'
          % (a.runs, border['name'], scipy_mode, pad_mode))
    print('%-6s %-15s %11s %11s %11s %17s %17s %10s %10s' % ('size', 'kernel', 'cupy ndi', 'cupy fft', 'cudnn',
                                                         'ours best', 'ours auto', 'auto/ndi', 'auto/cudnn'))
    for n in [int(s) for s in a.sizes.split(',')]:
        img = cp.asarray(rng.standard_normal((n, n)).astype(np.float32))
        for name in CASES:
            k = kernel(name, rng)
            kd = cp.asarray(k)
            t_ndi = time_gpu(lambda: cndi.convolve(img, kd, mode=scipy_mode), a.runs, cp)
            t_fft = time_gpu(lambda: csig.fftconvolve(img, kd, mode='same'), a.runs, cp)
            t_dnn = float('nan')
            if torch is not None:
                w = torch.as_tensor(kd, device='cuda').flip(0, 1).reshape(1, 1, *k.shape).contiguous()
                pad = k.shape[0] // 2
                padded = cp.pad(img, pad, mode=pad_mode)
                xp = torch.as_tensor(padded, device='cuda').reshape(1, 1, n + 2 * pad, n + 2 * pad).contiguous()
                with torch.no_grad():
                    t_dnn = time_gpu(lambda: F.conv2d(xp, w), a.runs, cp)
                del padded, xp
            best = ours.get((n, name), (float('nan'), '-'))
            au = auto.get((n, name), (float('nan'), '-'))
            print('%-6d %-15s %11.3f %11.3f %11.3f %9.3f %-7s %9.3f %-7s %10.2f %10.2f' % (
                n, name, t_ndi, t_fft, t_dnn, best[0], best[1], au[0], au[1], au[0] / t_ndi, au[0] / t_dnn))
            sys.stdout.flush()
    return 0


if __name__ == '__main__':
    sys.exit(main())
