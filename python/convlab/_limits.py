# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks made before any memory is spent, and the rules that keep a result right whatever a
program passes: sizes against the engine's limits, the precision of integer sums, an output in
the input's memory (docs/python.md, *Reliability*)."""
import numpy as np

from ._convlab import max_kernel_side as MAX_TAPS, max_side as MAX_SIDE

_FLOAT32_EXACT = 2 ** 24  # every integer up to this is a float32; beyond, float32 rounds


def check_taps(taps, what):
    """Refuses, before it is built, a kernel of more taps along an axis than the engine takes;
    `what` names the caller's argument that asks for it."""
    if taps > MAX_TAPS:
        raise ValueError(f"{what} asks for a kernel of {taps} taps along an axis, outside 1..{MAX_TAPS} "
                         "(the engine's kernels)")


def gaussian_taps_limit(truncate):
    """The largest sigma whose kernel the engine takes at `truncate` (radius int(t * s + 0.5))."""
    return (MAX_TAPS // 2 + 0.5) / float(truncate) if float(truncate) > 0 else float("inf")


def check_sides(shape, axes):
    """Refuses, before any copy, an input longer along a filtered axis than the engine takes,
    naming the input's own shape and axis."""
    for a in axes:
        if shape[a] > MAX_SIDE:
            raise ValueError(f"input of shape {tuple(shape)} has {shape[a]} samples along axis {a}, which is "
                             f"filtered; ConvLab filters at most {MAX_SIDE} samples along an axis")


def check_threads(threads):
    """Refuses a thread count the engine's int cannot hold, as a Python error."""
    if not -2 ** 31 <= int(threads) < 2 ** 31:
        raise ValueError(f"threads must be a count of threads (0 for all of them), got {threads}")


def sum_gain(*weights):
    """Σ|w| of each pass's weights, multiplied: how much larger than the largest sample a sum
    (or a sum of sums, pass after pass) can be."""
    gain = 1.0
    for w in weights:
        gain *= float(np.abs(np.asarray(w, np.float64)).sum())
    return gain


def sums_beyond_float32(source, gain):
    """Whether an integer input's sums may leave float32's exact integers: max|x| * max(1, gain)
    beyond 2**24 (the samples themselves, or the sums the kernel makes of them, rounded); such
    inputs are computed in float64 (_args.work_dtype). The dtype's range is looked at first, so
    8- and 16-bit inputs with everyday kernels cost no pass over the data."""
    if source.dtype.kind not in "iu" or source.size == 0:
        return False
    gain = max(1.0, gain)
    info = np.iinfo(source.dtype)
    if max(abs(int(info.min)), int(info.max)) * gain <= _FLOAT32_EXACT:
        return False
    return max(abs(int(source.min())), abs(int(source.max()))) * gain > _FLOAT32_EXACT


def unaliased(source, output, reread):
    """`source`, or a copy of it where `output` lies in its memory and writing the result could
    change samples still to be read: always for a partial overlap; for the very array itself
    only when the source is read again after the engine's run (`reread`: the NaN rule's second
    look), since the engine itself reads an image before it writes it (scipy copies whenever the
    two may share memory)."""
    if not isinstance(output, np.ndarray) or not np.may_share_memory(source, output):
        return source
    same = (output.dtype == source.dtype and output.shape == source.shape and output.strides == source.strides
            and output.__array_interface__["data"][0] == source.__array_interface__["data"][0])
    return source.copy() if reread or not same else source
