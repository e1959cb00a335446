#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""convlab-cli against scipy.ndimage.convolve/correlate, an oracle independent of the C++ code.

Random images and kernels (dense, rank 1, rank 2; odd, even, non-square, larger than the image),
every border mode, both semantics, every method; whole images compared in float64. The modes
and methods, their scipy names and tolerances come from the CLI (--list ... --json): the tables
of convlab/modes.h.
Usage: scipy_conformance.py PATH/TO/convlab-cli    Exit 77 (skipped) without numpy/scipy."""
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import scipy.ndimage as ndi
except ImportError as e:  # the test is skipped, and says why
    print('skipped: needs python3-numpy and python3-scipy (%s)' % e)
    sys.exit(77)

# The output is float32: no result is closer to a float64 oracle than its rounding, so no case
# is held tighter than this (docs/semantics.md, Tolerances), not even the reference.
FLOAT_OUTPUT_TOL = 1e-6
CVAL = -2.5


def cli_table(cli, what):
    """A table of convlab/modes.h as the CLI lists it: 'border-modes' or 'methods'."""
    p = subprocess.run([cli, '--list', what, '--json'], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit('%s --list %s --json: exit %d: %s' % (cli, what, p.returncode, p.stderr.strip()))
    return json.loads(p.stdout)


def compared_modes(cli):
    """(ConvLab's spelling, scipy's mode) for every border mode scipy.ndimage has."""
    out = []
    for row in cli_table(cli, 'border-modes'):
        if row['scipy'] is None:
            print('not compared: scipy.ndimage has no border mode like %s' % row['name'])
            continue
        out.append((row['name'] + (':%g' % CVAL if row['takes_value'] else ''), row['scipy']))
    return out


def kernel(rng, kh, kw, kind):
    if kind == 'rank1':
        return np.outer(rng.standard_normal(kh), rng.standard_normal(kw))
    if kind == 'rank2':
        k = np.ones((kh, kw))
        k[kh // 2, kw // 2] -= kh * kw
        return k
    return rng.standard_normal((kh, kw))


def main():
    cli = sys.argv[1]
    modes = compared_modes(cli)
    methods = cli_table(cli, 'methods')
    tolerance = {m['name']: max(m['tolerance'], FLOAT_OUTPUT_TOL) for m in methods}
    rng = np.random.default_rng(2024)
    tmp = tempfile.mkdtemp(prefix='convlab-scipy-')
    images = [(1, 1), (1, 6), (5, 1), (9, 14), (31, 26), (12, 17, 3), (7, 8, 4)]
    kernels = [(1, 1), (3, 3), (4, 2), (1, 7), (9, 6), (11, 11)]
    kinds = ('dense', 'rank1', 'rank2')
    total = bad = 0
    worst = 0.0
    for i, shape in enumerate(images):
        img = (rng.standard_normal(shape) * 30 + 120).astype(np.float32)
        src = os.path.join(tmp, 'img%d.npy' % i)
        np.save(src, img)
        for j, (kh, kw) in enumerate(kernels):
            kind = kinds[(i + j) % 3]
            k = kernel(rng, kh, kw, kind).astype(np.float32)
            spec = '; '.join(' '.join(repr(float(v)) for v in row) for row in k)
            for border, smode in modes:
                for corr in (False, True):
                    f = ndi.correlate if corr else ndi.convolve
                    planes = img[..., None] if img.ndim == 2 else img
                    want = np.stack([f(planes[..., c].astype(np.float64), k.astype(np.float64),
                                       mode=smode, cval=CVAL) for c in range(planes.shape[2])], -1)
                    want = want.reshape(img.shape)
                    norm = max(float(np.abs(k).sum()) * max(float(np.abs(img).max()), 0.5), 1e-3)
                    for method in (m['name'] for m in methods):
                        total += 1
                        dst = os.path.join(tmp, 'out.npy')
                        if os.path.exists(dst):
                            os.remove(dst)
                        args = [cli, src, dst, '-k', spec, '-b', border, '-m', method, '--json']
                        if corr:
                            args.append('--correlate')
                        p = subprocess.run(args, capture_output=True, text=True)
                        what = '%s k%dx%d %s %s %s %s' % (shape, kh, kw, kind, border,
                                                          'corr' if corr else 'conv', method)
                        if p.returncode != 0:
                            bad += 1
                            print('FAIL (exit %d) %s: %s' % (p.returncode, what, p.stderr.strip()))
                            continue
                        ran = json.loads(p.stdout)['method']['chosen']  # auto: the one it picked
                        got = np.load(dst)
                        if got.shape != want.shape:
                            bad += 1
                            print('FAIL shape %s != %s: %s' % (got.shape, want.shape, what))
                            continue
                        err = float(np.abs(got.astype(np.float64) - want).max()) / norm
                        worst = max(worst, err)
                        if not err <= tolerance[ran]:
                            bad += 1
                            print('FAIL rel err %.2e > %.0e: %s (ran %s)' % (err, tolerance[ran], what, ran))
    print('%d cases, %d failed, worst relative error %.2e' % (total, bad, worst))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
