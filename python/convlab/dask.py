# SPDX-License-Identifier: GPL-3.0-or-later
"""convlab.convolve and convlab.correlate for dask arrays, chunk by chunk.

The result equals convlab.convolve / correlate of the whole array, seams and edges included,
for every border mode (mirror too, which dask's own boundaries do not have):

1. Each axis is padded at the array's two ends by the engine's own border rule (borderIndex,
   docs/semantics.md, Border modes: the constant, or the samples the rule names, at any
   distance, so kernels larger than the array are exact), by as many samples as the window
   reaches before and after an output: the correlation-form anchor and the rest of the kernel,
   different on the two sides for even kernels and for origins.
2. The padding joins the first and last chunks, and dask's overlap (boundary 'none', the same
   asymmetric depth) gives every chunk the samples its outputs read from its neighbours.
   Chunks smaller than that depth are merged first (a kernel larger than a chunk).
3. Each block is filtered with mode 'constant' and cropped to the chunk's outputs, whose
   windows lie wholly inside the block: no border rule applies there.

Arrays are 2-D or (H, W, C), channel last (any chunking of the channel axis). The result has the
input's chunks (after any merging) and dtype float32 (float64 for float64 input, as
convlab.convolve).
"""
import numpy as np

import convlab
from convlab import _convlab

__all__ = ["convolve", "correlate"]


def convolve(image, weights, mode="reflect", cval=0.0, origin=0, *, method="auto", device="cpu", threads=1):
    """scipy.ndimage.convolve's arguments on a dask array (threads: engine threads per block)."""
    return _filter(False, image, weights, mode, cval, origin, method, device, threads)


def correlate(image, weights, mode="reflect", cval=0.0, origin=0, *, method="auto", device="cpu", threads=1):
    """scipy.ndimage.correlate's arguments on a dask array (threads: engine threads per block)."""
    return _filter(True, image, weights, mode, cval, origin, method, device, threads)


def window_reach(kernel_shape, anchor_yx, correlate_):
    """Per spatial axis, (before, after): how far an output's window reaches on each side.

    Correlation reads in(y - ay + v), v in [0, h): ay before, h - 1 - ay after. Convolution
    mirrors the anchor (docs/semantics.md, Convolution and correlation)."""
    reach = []
    for size, anchor in zip(kernel_shape, anchor_yx):
        before = anchor if correlate_ else size - 1 - anchor
        reach.append((before, size - 1 - before))
    return reach


def merged_chunks(chunks, least):
    """`chunks` of one axis merged into neighbours until each holds at least `least` samples
    (a block gives its neighbours up to `least` samples); the last remainder joins the one
    before it. One chunk stays one chunk."""
    merged, run = [], 0
    for c in chunks:
        run += c
        if run >= least:
            merged.append(run)
            run = 0
    if run:
        if merged:
            merged[-1] += run
        else:
            merged.append(run)
    return tuple(merged)


def _pad_axis(x, axis, before, after, border, cval):
    """x extended along `axis` by the engine's border rule; the padding joins the end chunks."""
    import dask.array as da

    n = x.shape[axis]
    pieces = []
    for begin, end in ((-before, 0), (n, n + after)):
        if end == begin:
            pieces.append(None)
        elif border == "constant":
            shape = list(x.shape)
            shape[axis] = end - begin
            pieces.append(da.full(shape, cval, dtype=x.dtype, chunks=-1))
        else:
            pieces.append(da.take(x, _convlab.border_indices(begin, end, n, border), axis=axis))
    padded = da.concatenate([p for p in (pieces[0], x, pieces[1]) if p is not None], axis=axis)
    chunks = list(x.chunks[axis])
    chunks[0] += before
    chunks[-1] += after
    return padded.rechunk({axis: tuple(chunks)})


def _filter(correlate_, image, weights, mode, cval, origin, method, device, threads):
    import dask.array as da

    x = da.asarray(image)
    if x.dtype.kind not in "fiub":
        raise TypeError(f"input has dtype {x.dtype}: ConvLab filters real numbers (float, integer or bool arrays)")
    if x.ndim not in (2, 3):
        raise ValueError(f"input must be 2-D (H, W) or 3-D (H, W, C), got shape {x.shape}")
    if 0 in x.shape:
        raise ValueError(f"input of shape {x.shape} is empty")
    kernel = convlab.prepare_weights(weights, x.ndim)
    ax, ay = convlab.anchors(origin, kernel.shape, x.ndim)
    # The block call below checks the rest (mode, cval, method); fail here, not on a worker.
    engine_mode = convlab.engine_border(mode)
    border = convlab.border_name(mode)
    if border == "constant" and engine_mode != border:
        cval = float(engine_mode.split(":" if ":" in engine_mode else "=", 1)[1])
    if not np.isfinite(float(cval)):
        raise ValueError(f"cval {cval} is not a finite number")
    _convlab.filter(np.zeros((1, 1), np.float32), kernel, None, engine_mode, float(cval), ax, ay, correlate_,
                    str(method), str(device), 1, False)

    reach = window_reach(kernel.shape, (ay, ax), correlate_)
    samples = x.astype(np.float32)
    samples = samples.rechunk({axis: merged_chunks(samples.chunks[axis], max(reach[axis]))
                               for axis in range(2)})
    padded = samples
    for axis, (before, after) in enumerate(reach):
        padded = _pad_axis(padded, axis, before, after, border, np.float32(cval))
    depth = {0: reach[0], 1: reach[1]}
    if x.ndim == 3:
        depth[2] = 0
    blocks = da.overlap.overlap(padded, depth=depth, boundary="none")

    def filter_block(block):
        result = _convlab.filter(np.ascontiguousarray(block, np.float32), kernel, None, "constant", 0.0, ax, ay,
                                 correlate_, str(method), str(device), int(threads), False)[0]
        (top, bottom), (left, right) = reach
        return result[top:block.shape[0] - bottom, left:block.shape[1] - right]

    out = blocks.map_blocks(filter_block, chunks=samples.chunks, dtype=np.float32)
    return out.astype(np.float64) if x.dtype == np.float64 else out
