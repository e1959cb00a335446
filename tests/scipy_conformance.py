#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""convlab-cli against scipy.ndimage.convolve/correlate, an oracle independent of the C++ code.

Random images and kernels (dense, rank 1, rank 2; odd, even, non-square, larger than the image),
every border mode, both semantics, every method; whole images compared in float64.
Usage: scipy_conformance.py PATH/TO/convlab-cli    Exit 77 (skipped) without numpy/scipy."""
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

SCIPY_MODE = {'constant': 'constant', 'replicate': 'nearest', 'reflect': 'reflect',
              'mirror': 'mirror', 'wrap': 'grid-wrap'}
METHODS = ('reference', 'direct', 'separable', 'fft', 'auto')
TOL = {'fft': 1e-5}  # docs/semantics.md, Tolerances; 1e-6 otherwise


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
            for mode, smode in SCIPY_MODE.items():
                for corr in (False, True):
                    f = ndi.correlate if corr else ndi.convolve
                    planes = img[..., None] if img.ndim == 2 else img
                    want = np.stack([f(planes[..., c].astype(np.float64), k.astype(np.float64),
                                       mode=smode, cval=-2.5) for c in range(planes.shape[2])], -1)
                    want = want.reshape(img.shape)
                    norm = max(float(np.abs(k).sum()) * max(float(np.abs(img).max()), 0.5), 1e-3)
                    for method in METHODS:
                        total += 1
                        dst = os.path.join(tmp, 'out.npy')
                        if os.path.exists(dst):
                            os.remove(dst)
                        border = 'constant:-2.5' if mode == 'constant' else mode
                        args = [cli, src, dst, '-k', spec, '-b', border, '-m', method]
                        if corr:
                            args.append('--correlate')
                        p = subprocess.run(args, capture_output=True, text=True)
                        what = '%s k%dx%d %s %s %s %s' % (shape, kh, kw, kind, mode,
                                                          'corr' if corr else 'conv', method)
                        if p.returncode != 0:
                            bad += 1
                            print('FAIL (exit %d) %s: %s' % (p.returncode, what, p.stderr.strip()))
                            continue
                        got = np.load(dst)
                        if got.shape != want.shape:
                            bad += 1
                            print('FAIL shape %s != %s: %s' % (got.shape, want.shape, what))
                            continue
                        err = float(np.abs(got.astype(np.float64) - want).max()) / norm
                        worst = max(worst, err)
                        if not err <= TOL.get(method, 1e-6):
                            bad += 1
                            print('FAIL rel err %.2e: %s' % (err, what))
    print('%d cases, %d failed, worst relative error %.2e' % (total, bad, worst))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
