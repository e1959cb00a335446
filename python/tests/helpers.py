# SPDX-License-Identifier: GPL-3.0-or-later
"""Oracles and tolerances shared by the Python suites (docs/semantics.md, Tolerances)."""
import numpy as np
import scipy.ndimage as ndi

# The tolerance class of each method that can run (the report names the one that ran).
TOLERANCE = {"reference": 1e-6, "direct": 1e-6, "separable": 1e-6, "fft": 1e-5}


def tolerance(report):
    """The tolerance of the run the report describes: separable past rank 2 is allowed
    1e-6 * r / 2, one rounding per pass pair (docs/semantics.md, Tolerances)."""
    if report["method"] == "separable" and report["rank"] > 2:
        return TOLERANCE["separable"] * report["rank"] / 2
    return TOLERANCE[report["method"]]

# numpy.pad's name for each ConvLab border mode: an oracle independent of the engine's rule.
NUMPY_PAD = {"constant": "constant", "replicate": "edge", "reflect": "symmetric", "mirror": "reflect",
             "wrap": "wrap"}


def relative_error(result, expected, weights, data, cval=0.0):
    """max |a - b| / max(sum|K| * M, 1e-3), M = max(max |in|, |cval|, 0.5); NaN fails."""
    scale = max(float(np.abs(np.asarray(weights, np.float64)).sum())
                * max(float(np.abs(np.asarray(data, np.float64)).max()), abs(cval), 0.5), 1e-3)
    diff = np.abs(np.asarray(result, np.float64) - np.asarray(expected, np.float64))
    return np.inf if np.isnan(diff).any() else float(diff.max()) / scale


def correlation_reach(kernel_shape, origin, correlate):
    """Per axis, how far before the start the window reaches (the correlation-form anchor)."""
    reach = []
    for size, o in zip(kernel_shape, origin):
        anchor = o + size // 2
        reach.append(anchor if correlate else size - 1 - anchor)
    return reach


def scipy_reflect_is_wrong(image_shape, kernel_shape, origin, correlate, mode):
    """scipy.ndimage.correlate/convolve (n-D, scipy 1.17) read wrong samples for mode
    'reflect' (and 'grid-mirror') at 4n or more before the start of an axis of n; their
    correlate1d and ConvLab follow the periodic rule there (docs/semantics.md, Border modes)."""
    if mode not in ("reflect", "grid-mirror"):
        return False
    return any(r >= 4 * n for r, n in zip(correlation_reach(kernel_shape, origin, correlate), image_shape))


def padded_oracle(data, weights, border, cval, origin, correlate):
    """The definition in float64 from numpy.pad and a sum over the taps: one plane."""
    data = np.asarray(data, np.float64)
    k = np.asarray(weights, np.float64)
    if not correlate:
        k = k[::-1, ::-1]
    kh, kw = k.shape
    top, left = correlation_reach(k.shape, origin, correlate)
    pad = ((top, kh - 1 - top), (left, kw - 1 - left))
    extra = {"constant_values": cval} if border == "constant" else {}
    padded = np.pad(data, pad, mode=NUMPY_PAD[border], **extra)
    out = np.zeros_like(data)
    h, w = data.shape
    for v in range(kh):
        for u in range(kw):
            out += k[v, u] * padded[v:v + h, u:u + w]
    return out


def scipy_result(function, data, weights, mode, cval, origin):
    """scipy.ndimage's result in float64 (the engine's float32 samples, widened)."""
    data = np.asarray(data, np.float64)
    weights = np.asarray(weights, np.float64)
    if data.ndim == 3:
        weights = weights[:, :, None]
        origin = tuple(origin) + (0,)
    return getattr(ndi, function)(data, weights, mode=mode, cval=cval, origin=origin)
