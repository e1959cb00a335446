# SPDX-License-Identifier: GPL-3.0-or-later
"""convlab.convolve and convlab.correlate for dask arrays, chunk by chunk.

The result equals convlab.convolve / correlate of the whole array, seams and edges included,
for every border mode (mirror too, which dask's own boundaries do not have). Each output chunk
is one task:

1. Along each axis, the coordinates its outputs' windows read run from the chunk's start less
   the window's reach before an output to its end plus the reach after (the correlation-form
   anchor and the rest of the kernel: different on the two sides for even kernels and
   origins). The engine's own border rule (borderIndex, docs/semantics.md, Border modes) names
   the sample each coordinate reads, at any distance, or the constant: so kernels larger than
   a chunk or than the whole array are exact, and wrap reads the far end of the array.
2. The task depends on exactly the input chunks those samples lie in (its neighbours, the far
   chunk for wrap, more where the kernel is larger than a chunk) and gathers its window from
   them: whole runs of a chunk as slices, reflected or wrapped margins by index.
3. The window is filtered with mode 'constant' and cropped to the chunk's outputs, whose
   windows lie wholly inside it: no border rule applies there.

One task per output chunk, where dask's overlap would add a task per neighbour slice and per
concatenation; on a distributed cluster each task costs about a millisecond of scheduling, which
for small kernels is more than the filtering (docs/python.md).

Arrays are 2-D or (H, W, C), channel last (``channel_axis=-1``; any chunking of the channel axis). The result has the
input's chunks and the input's dtype (integers truncated and wrapped, as convlab.convolve).
"""
import numpy as np

from . import _convlab
from ._args import anchor, border_name, cast_result, constant_value, engine_border, kernel_2d, origins, real_array
from ._limits import check_threads

__all__ = ["convolve", "correlate"]


def convolve(image, weights, mode="reflect", cval=0.0, origin=0, *, channel_axis=None, method="auto",
             device="cpu", threads=1):
    """scipy.ndimage.convolve's arguments on a dask array (threads: engine threads per block).

    Parameters
    ----------
    image : dask.array.Array or array_like
        2-D, or 3-D with its channels last (``channel_axis=-1``, needed with 2-D weights).
    weights, mode, cval, origin, method, device
        As ``convlab.convolve``.
    channel_axis : {None, -1, 2}, optional
    threads : int, optional
        Engine threads per block (dask runs the blocks in parallel).

    Returns
    -------
    dask.array.Array
        Lazy, with the input's chunks and dtype (integers truncated and wrapped, as scipy).

    Raises
    ------
    ValueError, TypeError, convlab.Error
        Before any work: shapes, the mode, the method, a non-finite cval.

    Examples
    --------
    >>> import numpy as np, dask.array as da, convlab.dask
    >>> x = da.from_array(np.ones((6, 6), np.float32), chunks=3)
    >>> float(convlab.dask.convolve(x, np.ones((3, 3), np.float32) / 9).compute().round(6).max())
    1.0
    """
    return _filter(False, image, weights, mode, cval, origin, channel_axis, method, device, threads)


def correlate(image, weights, mode="reflect", cval=0.0, origin=0, *, channel_axis=None, method="auto",
              device="cpu", threads=1):
    """scipy.ndimage.correlate's arguments on a dask array (parameters as `convolve`).

    Returns
    -------
    dask.array.Array

    Raises
    ------
    ValueError, TypeError, convlab.Error
        As `convolve`.

    Examples
    --------
    >>> import numpy as np, dask.array as da, convlab.dask
    >>> x = da.from_array(np.arange(8, dtype=np.float32)[None, :], chunks=(1, 4))
    >>> convlab.dask.correlate(x, np.array([[1, 0, -1]], np.float32)).compute()
    array([[-1., -2., -2., -2., -2., -2., -2., -1.]], dtype=float32)
    """
    return _filter(True, image, weights, mode, cval, origin, channel_axis, method, device, threads)


def window_reach(kernel_shape, anchor_yx, correlate_):
    """Per spatial axis, (before, after): how far an output's window reaches on each side.

    Correlation reads in(y - ay + v), v in [0, h): ay before, h - 1 - ay after. Convolution
    mirrors the anchor (docs/semantics.md, Convolution and correlation)."""
    reach = []
    for size, anchor in zip(kernel_shape, anchor_yx):
        before = anchor if correlate_ else size - 1 - anchor
        reach.append((before, size - 1 - before))
    return reach


class AxisWindows:
    """Where the windows of one axis's chunks read: for chunk i, `lengths[i]` coordinates, of
    which `runs[i]` lists the (destination slice, source chunk, source selection) that hold
    samples (the selection a slice where the samples are consecutive, else indices into the
    chunk); `constant[i]`: whether some coordinate reads the constant instead."""

    def __init__(self, chunks, before, after, border):
        n = sum(chunks)
        starts = np.cumsum((0,) + tuple(chunks))
        self.lengths, self.runs, self.constant = [], [], []
        for i, size in enumerate(chunks):
            index = _convlab.border_indices(int(starts[i]) - before, int(starts[i]) + size + after, n, border)
            source = np.where(index >= 0, np.searchsorted(starts, index, side="right") - 1, -1)
            breaks = np.flatnonzero(np.diff(source)) + 1
            runs = []
            for begin, end in zip(np.r_[0, breaks], np.r_[breaks, len(index)]):
                chunk = int(source[begin])
                if chunk < 0:
                    continue
                local = index[begin:end] - starts[chunk]
                consecutive = len(local) == 1 or bool(np.all(np.diff(local) == 1))
                selection = slice(int(local[0]), int(local[-1]) + 1) if consecutive else local
                runs.append((slice(int(begin), int(end)), chunk, selection))
            self.lengths.append(len(index))
            self.runs.append(runs)
            self.constant.append(bool((source < 0).any()))


class _BlockFilter:
    """The task of one output chunk: gathers its window from the input chunks it is given, in
    the order of (row run, column run), filters it with the kernel it is given and crops the
    chunk's outputs. The kernel is one entry of the graph that every task reads, not a copy in
    each task (up to 1025 x 1025 floats)."""

    def __init__(self, rows, columns, cval, reach, ax, ay, correlate_, method, device, threads):
        self.rows, self.columns, self.cval, self.reach = rows, columns, cval, reach
        self.args = (None, "constant", 0.0, ax, ay, correlate_, method, device, threads, False)

    def window(self, blocks):
        (length_r, runs_r, constant_r), (length_c, runs_c, constant_c) = self.rows, self.columns
        shape = (length_r, length_c) + blocks[0].shape[2:]
        window = np.full(shape, self.cval, np.float32) if constant_r or constant_c else np.empty(shape, np.float32)
        pieces = iter(blocks)
        for rows, _, source_rows in runs_r:
            for columns, _, source_columns in runs_c:
                window[rows, columns] = next(pieces)[source_rows][:, source_columns]
        return window

    def __call__(self, kernel, *blocks):
        result = _convlab.filter(self.window(blocks), kernel, *self.args)[0]
        (top, bottom), (left, right) = self.reach
        return result[top:result.shape[0] - bottom, left:result.shape[1] - right]


def _kernel_and_anchor(weights, ndim, channel_axis, origin):
    """The (h, w) kernel and its anchor (ax, ay) for a 2-D or channel-last 3-D input."""
    w = real_array(weights, "weights")
    offsets = origins(origin, w.ndim)
    if ndim == 3:
        if channel_axis is None and w.ndim == 2:
            raise ValueError("weights have 2 axes and the input 3: pass channel_axis=-1 for an image with its "
                             "channels last")
        if channel_axis is not None and channel_axis not in (-1, 2):
            raise ValueError(f"convlab.dask filters images with their channels last (channel_axis=-1), "
                             f"got channel_axis={channel_axis}")
        if w.ndim == 3:
            if w.shape[2] != 1:
                raise ValueError(f"weights of shape {w.shape}: (h, w) or (h, w, 1) for an image with channels")
            if offsets[2] != 0:
                raise ValueError(f"origin along the channel axis must be 0, got {offsets[2]}")
            w, offsets = w[:, :, 0], offsets[:2]
    elif channel_axis is not None:
        raise ValueError(f"channel_axis is for a 3-D input, got {ndim} axes")
    if w.ndim != 2:
        raise ValueError(f"weights must be (h, w){' or (h, w, 1)' if ndim == 3 else ''}, got shape {w.shape}")
    kernel = kernel_2d(w)
    return kernel, anchor(offsets[1], kernel.shape[1], 1), anchor(offsets[0], kernel.shape[0], 0)


def _filter(correlate_, image, weights, mode, cval, origin, channel_axis, method, device, threads):
    import dask.array as da
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph

    x = da.asarray(image)
    if x.dtype.kind not in "fiub":
        raise TypeError(f"input has dtype {x.dtype}: ConvLab filters real numbers (float, integer or bool arrays)")
    if x.ndim not in (2, 3):
        raise ValueError(f"input must be 2-D (H, W) or 3-D (H, W, C), got shape {x.shape}")
    if 0 in x.shape:
        raise ValueError(f"input of shape {x.shape} is empty")
    if any(np.isnan(c) for chunks in x.chunks for c in chunks):
        raise ValueError(f"input has unknown chunk sizes {x.chunks} (e.g. after boolean indexing): the "
                         "windows of each chunk need them; call x.compute_chunk_sizes() first")
    check_threads(threads)
    kernel, ax, ay = _kernel_and_anchor(weights, x.ndim, channel_axis, origin)
    # The block call below checks the rest (mode, cval, method); fail here, not on a worker.
    engine_mode = engine_border(mode)
    border = border_name(mode)
    if border == "constant":
        cval = constant_value(engine_mode, cval)
    if border == "constant" and not np.isfinite(float(cval)):  # an unused cval may be anything
        raise ValueError(f"cval {cval} is not a finite number")
    _convlab.filter(np.zeros((1, 1), np.float32), kernel, None, engine_mode, float(cval), ax, ay, correlate_,
                    str(method), str(device), 1, False)

    reach = window_reach(kernel.shape, (ay, ax), correlate_)
    samples = x.astype(np.float32)
    axes = [AxisWindows(samples.chunks[axis], *reach[axis], border) for axis in range(2)]
    channel_blocks = [()] if samples.ndim == 2 else [(k,) for k in range(len(samples.chunks[2]))]
    name = "convlab-" + ("correlate-" if correlate_ else "convolve-") + tokenize(
        samples.name, kernel, engine_mode, float(cval), ax, ay, str(method), str(device), int(threads))
    kernel_key = "kernel-" + name
    tasks = {kernel_key: kernel}
    for i, runs_r in enumerate(axes[0].runs):
        for j, runs_c in enumerate(axes[1].runs):
            task = _BlockFilter((axes[0].lengths[i], runs_r, axes[0].constant[i]),
                                (axes[1].lengths[j], runs_c, axes[1].constant[j]), np.float32(cval), reach,
                                ax, ay, correlate_, str(method), str(device), int(threads))
            for k in channel_blocks:
                sources = [(samples.name, r, c) + k for _, r, _ in runs_r for _, c, _ in runs_c]
                tasks[(name, i, j) + k] = (task, kernel_key, *sources)
    graph = HighLevelGraph.from_collections(name, tasks, dependencies=[samples])
    out = da.Array(graph, name, chunks=samples.chunks, dtype=np.float32)
    if x.dtype == np.float32:
        return out
    return out.map_blocks(cast_result, x.dtype, dtype=x.dtype)
