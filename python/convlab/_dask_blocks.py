# SPDX-License-Identifier: GPL-3.0-or-later
"""The graph behind convlab.dask: one task per output chunk, which gathers the chunk and its
halo from the input chunks it needs, runs an in-memory convlab filter on that window and crops
the chunk's outputs (docs/python.md, *Dask*).

The halo along an axis is the filter's reach there (before, after). Two ways to gather it:

- wrap: the window is the chunk extended by the reach through the border rule itself, so the
  samples beyond the array's ends are those of its other side (any distance: a reach longer than
  the array reads it again and again). The in-memory filter then reads only samples that the
  whole array's filter would read at the same places.
- every other mode: the window is the chunk extended by the longer of the two reaches on both
  sides (a reflection at an end reads as far into the array as the reach beyond it), clipped to
  the array.
  Where the window ends at the array's end, the in-memory filter applies the mode there exactly
  as on the whole array, pass after pass (scipy pads each pass's result with cval in constant
  mode, not the constant filtered); where it ends inside the array, no output it keeps reads
  beyond it.

So each rule (modes, NaN and zero taps, dtypes, integer passes) lives once, in the in-memory
function; the graph only decides which samples each task sees.
"""
import itertools

import numpy as np

from . import _convlab
from ._args import border_name


def window_reach(kernel_shape, anchor_yx, correlate_):
    """Per axis of a kernel, (before, after): how far an output's window reaches on each side.

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


def axis_plan(chunks, before, after, border):
    """Per chunk of one axis, (window length, runs as AxisWindows lists them, the slice of the
    window that is the chunk): the window through the wrap rule, else clipped to the array."""
    clipped = border != "wrap"
    if clipped:  # a reflection at the array's end reads as far in as the longer reach
        before = after = max(before, after)
    n = sum(chunks)
    if before + after + max(chunks) >= n:  # some window covers the axis: the whole axis for all
        return _whole_axis_plans(chunks)
    windows = AxisWindows(chunks, before, after, "constant" if clipped else "wrap")
    plans = []
    for size, length, runs in zip(chunks, windows.lengths, windows.runs):
        shift = runs[0][0].start if clipped else 0  # coordinates before the array: not gathered
        if clipped:
            length = runs[-1][0].stop - shift
            runs = [(slice(d.start - shift, d.stop - shift), c, s) for d, c, s in runs]
        plans.append((length, runs, slice(before - shift, before - shift + size)))
    return plans


def _whole_axis_plans(chunks):
    """axis_plan where a window would hold the axis or more (wrap would repeat samples): the
    whole axis for every chunk, so that the in-memory filter sees what it sees on the whole
    array there (a wrapped copy sums the same samples in another order, rounded otherwise)."""
    starts = np.cumsum((0,) + tuple(chunks))
    runs = [(slice(int(starts[c]), int(starts[c + 1])), c, slice(0, size)) for c, size in enumerate(chunks)]
    return [(int(starts[-1]), runs, slice(int(starts[i]), int(starts[i]) + size)) for i, size in enumerate(chunks)]


class Call:
    """An in-memory filter and its arguments, one entry of the graph that every task reads (the
    weights are not copied into each task)."""

    def __init__(self, function, args, kwargs):
        self.function, self.args, self.kwargs = function, args, kwargs

    def __call__(self, window):
        return self.function(window, *self.args, **self.kwargs)


class BlockTask:
    """One output chunk: gathers its window from the input chunks it is given (in the order of
    itertools.product over the axes' runs), filters it, crops the chunk."""

    def __init__(self, plans, dtype):
        self.plans, self.dtype = plans, dtype  # per axis: (length, runs, crop)

    def window(self, blocks):
        window = np.empty(tuple(length for length, _, _ in self.plans), blocks[0].dtype)
        pieces = iter(blocks)
        for combination in itertools.product(*(runs for _, runs, _ in self.plans)):
            piece = next(pieces)
            for axis, (_, _, selection) in enumerate(combination):
                piece = piece[(slice(None),) * axis + (selection,)]
            window[tuple(destination for destination, _, _ in combination)] = piece
        return window

    def __call__(self, call, *blocks):
        result = call(self.window(blocks))
        return np.asarray(result, self.dtype)[tuple(crop for _, _, crop in self.plans)]


def blockwise(x, call, reach, borders, name):
    """The lazy result of `call` over the dask array `x`: reach[axis] = (before, after) and
    borders[axis] (ConvLab's mode names) per axis of x. Same chunks, x's dtype."""
    import dask.array as da
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph

    plans = [axis_plan(x.chunks[a], *reach[a], borders[a]) for a in range(x.ndim)]
    name = f"convlab-{name}-" + tokenize(x.name, call.function.__name__, call.args, call.kwargs, reach, borders)
    call_key = "call-" + name
    tasks = {call_key: call}
    for index in itertools.product(*(range(len(c)) for c in x.chunks)):
        chunk_plans = [plans[a][i] for a, i in enumerate(index)]
        sources = [(x.name,) + tuple(chunk for _, chunk, _ in combination)
                   for combination in itertools.product(*(runs for _, runs, _ in chunk_plans))]
        tasks[(name,) + index] = (BlockTask(chunk_plans, x.dtype), call_key, *sources)
    graph = HighLevelGraph.from_collections(name, tasks, dependencies=[x])
    return da.Array(graph, name, chunks=x.chunks, dtype=x.dtype)


def borders_of(mode, axes, ndim):
    """ConvLab's border name per axis of the input: `mode` one for all or one per filtered axis
    (scipy's per-axis modes), axes that are not filtered reach nothing (any name)."""
    modes = [mode] * len(axes) if isinstance(mode, str) else list(mode)
    borders = ["constant"] * ndim
    for axis, m in zip(axes, modes):
        borders[axis] = border_name(m)
    return borders
