# SPDX-License-Identifier: GPL-3.0-or-later
"""scipy.ndimage's convolve, correlate and their 1-D forms on ConvLab's engine, and the
plumbing every filter shares (docs/python.md): the engine filters over one or two axes of the
array at a time, every other index being one image of a batch. The separable filters built on
them are in _separable.py.
"""
import numpy as np

from . import _convlab
from ._args import (FLOAT32, ArgumentCountError, OutputShapeError, anchor, cast_result, check_precision,
                    constant_value, engine_border, kernel_2d, normalize_axes, origins, output_dtype, real_array,
                    work_dtype)
from ._complex import accepts_complex
from . import _device
from ._device import gpu_array_kind, host_weights, shape_only
from ._limits import MAX_SIDE, check_sides, check_taps, check_threads, sum_gain, sums_beyond_float32, unaliased
from ._mapping import accepts_map

__all__ = ["convolve", "correlate", "convolve1d", "correlate1d"]


# Integer results are the sums truncated: a sum of integer samples with integer (or dyadic)
# taps is exact in direct's float32 arithmetic, where separable's SVD factors and the FFT round
# it (9 becomes 8.999999, written as 8). auto therefore takes direct for an integer result up to
# this many taps; beyond, the planner's choice, which may differ from scipy by one where a sum
# is an integer (docs/python.md, *Dtypes*).
_EXACT_DIRECT_TAPS = 15 * 15


class _Options:
    """The engine's options of one call (method, device, threads), checked once."""

    def __init__(self, method, device, threads, zero_taps="skip"):
        if type(threads) is not int and not isinstance(threads, (int, np.integer)):
            raise TypeError(f"threads must be an int, got {threads!r}")
        check_threads(threads)
        if zero_taps not in ("skip", "multiply"):
            raise ValueError(f"zero_taps must be 'skip' (scipy's rule) or 'multiply' (IEEE's), got {zero_taps!r}")
        self.method, self.device, self.threads = str(method), str(device), int(threads)
        self.zero_taps = zero_taps

    def for_integers(self, kernel):
        """The options for a run whose result is written as integers (see _EXACT_DIRECT_TAPS)."""
        if self.method != "auto" or kernel.size > _EXACT_DIRECT_TAPS:
            return self
        return _Options("direct", self.device, self.threads, self.zero_taps)


def _samples(plane, dtype):
    """An image as the engine reads it: C-order, of the run's float type `dtype` (the kernel's),
    or for a float32 run uint8/uint16 samples as they are (the engine converts those itself,
    with the float32 path's results bit for bit)."""
    if dtype == FLOAT32 and plane.dtype.char in "BH" and plane.dtype.isnative and \
            (plane.ndim == 2 or plane.shape[2] <= 4):
        return np.ascontiguousarray(plane)
    return np.ascontiguousarray(plane, dtype=dtype)


def _engine(samples, kernel, into, border, cval, ax, ay, correlate_, opts, report):
    kind = samples.dtype.char
    run = _convlab.filter64 if kind == "d" else _convlab.filter if kind == "f" else \
        _convlab.filter_u8 if kind == "B" else _convlab.filter_u16
    return run(samples, kernel, into, border, float(cval), ax, ay, correlate_, opts.method, opts.device,
               opts.threads, report)


def _writable(array, shape, dtype):
    """Whether the engine can write a run of float type `dtype` into `array` where it lies."""
    return (isinstance(array, np.ndarray) and array.dtype == dtype and array.shape == shape
            and array.flags.c_contiguous and array.flags.writeable)


def _run(correlate_, x, kernel, axes, ax, ay, border, cval, opts, report=False, into=None):
    """x filtered with the 2-D `kernel` (kh, kw) over `axes`: (row, col), or one axis (then
    kh == 1); every other index of x is an image of a batch. The kernel's float type (float32 or
    float64) is the run's. Returns the result of that type (`into` when given: a C-order array
    of x's shape and that type, written where it lies) and the report of the last engine run."""
    ndim = x.ndim
    last = ndim - 1
    if x.size == 0:  # nothing to filter (scipy returns the empty result)
        return (into if into is not None else np.zeros(x.shape, FLOAT32)), None
    if len(axes) == 1:
        (axis,) = axes
        if ndim == 1:
            rows = x.reshape(1, -1)
        elif axis == last:
            rows = x.reshape(-1, x.shape[-1])  # rows of the last axis, whatever lies before
        elif axis == last - 1 and x.shape[-1] <= MAX_SIDE:  # the axis before the last: a column kernel
            return _run(correlate_, x, np.ascontiguousarray(kernel.T), (axis, last), ay, ax, border, cval, opts,
                        report, into)
        else:
            moved = np.moveaxis(x, axis, -1)
            out, rep = _run(correlate_, moved, kernel, (ndim - 1,), ax, ay, border, cval, opts, report)
            return _deliver(np.moveaxis(out, -1, axis), into), rep
        target = into.reshape(rows.shape) if into is not None else None
        out, rep = _engine_rows(rows, kernel, target, border, cval, ax, correlate_, opts, report)
        return (into if into is not None else out.reshape(x.shape)), rep
    row, col = axes
    if ndim in (2, 3) and (row, col) == (0, 1):  # an image, its channels last: the engine's own layout
        return _engine(_samples(x, kernel.dtype), kernel, into, border, cval, ax, ay, correlate_, opts, report)
    in_place = (row, col) == (last - 1, last)
    if in_place:  # one engine run per image: an image's output must not land on the next's samples
        x = unaliased(x, into, reread=False)
    moved = x if in_place else np.moveaxis(x, (row, col), (-2, -1))
    images = moved.reshape((-1,) + moved.shape[-2:])
    out = into.reshape(images.shape) if (into is not None and in_place) else np.empty(images.shape, kernel.dtype)
    rep = None
    for i in range(images.shape[0]):
        _, rep = _engine(_samples(images[i], kernel.dtype), kernel, out[i], border, cval, ax, ay, correlate_, opts, report)
    result = out.reshape(moved.shape)
    if not in_place:
        result = np.moveaxis(result, (-2, -1), (row, col))
    return _deliver(result, into), rep


def _engine_rows(rows, kernel, target, border, cval, ax, correlate_, opts, report):
    """_engine over rows filtered one by one (a one-row kernel), in blocks of at most the
    engine's side: the rows are independent, so a batch of any number of them runs."""
    if rows.shape[0] <= MAX_SIDE:
        return _engine(_samples(rows, kernel.dtype), kernel, target, border, cval, ax, 0, correlate_, opts, report)
    out = target if target is not None else np.empty(rows.shape, kernel.dtype)
    rows = unaliased(rows, target, reread=False)  # a block's output must not land on later rows
    rep = None
    for start in range(0, rows.shape[0], MAX_SIDE):
        block = slice(start, start + MAX_SIDE)
        _, rep = _engine(_samples(rows[block], kernel.dtype), kernel, out[block], border, cval, ax, 0, correlate_, opts, report)
    return out, rep


def _filter_run(correlate_, x, kernel, axes, ax, ay, border, cval, opts, report=False, into=None):
    """_run, then scipy's rule for non-finite samples unless the caller asked for IEEE's."""
    skip_rule = opts.zero_taps == "skip" and x.dtype.kind == "f" and (kernel == 0).any()
    if skip_rule:
        x = unaliased(x, into, reread=True)  # the rule reads the input again after the run
    result, rep = _run(correlate_, x, kernel, axes, ax, ay, border, cval, opts, report, into)
    if skip_rule:
        result = _skip_zero_taps(correlate_, x, kernel, axes, ax, ay, border, cval, opts, result)
    return result, rep


def _skip_zero_taps(correlate_, x, kernel, axes, ax, ay, border, cval, opts, result):
    """The result under scipy's rule for NaN and infinities: a zero tap is skipped, not
    multiplied (0 * NaN would be NaN), so a non-finite sample reaches only the outputs of the
    kernel's non-zero taps (docs/python.md, *Non-finite values*).

    Nothing to do unless the result holds a non-finite value (one float32 sum over it, the only
    cost on finite data: 5 ms at 4096x4096 where the float64 sum took 10; a sum that overflows
    only sends finite data to the check of the samples below, which finds nothing to do). Then the sum over the finite samples is filtered again with the
    non-finite ones at 0, and the outputs each kind reaches through the non-zero taps are set:
    NaN where a NaN is reached or +inf meets -inf, else the infinity of the taps' signs."""
    with np.errstate(invalid="ignore", over="ignore"):
        if np.isfinite(np.add.reduce(result, axis=None)):
            return result
    samples = np.asarray(x, kernel.dtype)
    finite = np.isfinite(samples)
    if finite.all():
        return result  # an overflow, not a non-finite sample: the engine's rule holds
    exact = _Options("direct", opts.device, opts.threads, "multiply")
    mask_border = "constant" if constant_value(border, cval) is not None else border  # the masks read no constant

    def reach(indicator, taps):
        out, _ = _run(correlate_, indicator.astype(FLOAT32), kernel_2d(taps), axes, ax, ay, mask_border, 0.0, exact)
        return out > 0.5

    fixed, _ = _run(correlate_, np.where(finite, samples, samples.dtype.type(0)), kernel, axes, ax, ay, border, cval, opts)
    positive, negative = (kernel > 0).astype(FLOAT32), (kernel < 0).astype(FLOAT32)
    up_inf, down_inf = np.isposinf(samples), np.isneginf(samples)
    up = reach(up_inf, positive) | reach(down_inf, negative)
    down = reach(up_inf, negative) | reach(down_inf, positive)
    fixed[up] = np.inf
    fixed[down] = -np.inf
    fixed[(up & down) | reach(np.isnan(samples), positive + negative)] = np.nan
    if result is not fixed and isinstance(result, np.ndarray) and result.flags.writeable and \
            result.dtype == fixed.dtype and result.shape == fixed.shape:
        np.copyto(result, fixed)  # the caller's output array, written where it lies
        return result
    return fixed


def _deliver(result, into):
    if into is None or result is into or np.shares_memory(result, into):
        return into if into is not None else result
    np.copyto(into, result)
    return into


def _finish(result, source, output):
    """The float32 result as the caller's output: into `output` (an array), as its dtype, or as
    the input's dtype (docs/python.md, *Dtypes*)."""
    dtype = output_dtype(source.dtype, output)
    if isinstance(output, np.ndarray):
        if result is not output:
            np.copyto(output, cast_result(result, dtype), casting="unsafe")
        return output
    return cast_result(result, dtype)


def _check_output(source, output):
    """Fails before any work for an output that cannot receive the result."""
    if isinstance(output, np.ndarray):
        if output.shape != source.shape:
            # scipy raises RuntimeError("output shape not correct"): a class that is both.
            raise OutputShapeError(f"output's shape {output.shape} differs from the input's {source.shape}")
        if not output.flags.writeable:
            raise ValueError("output is read-only")
    elif output is not None:
        np.dtype(output)  # TypeError for what is neither an array nor a dtype
    if output_dtype(source.dtype, output).kind not in "fiub":
        raise TypeError(f"output dtype {output_dtype(source.dtype, output)} is not a real number type")


def _source(input, precision):
    source = real_array(input, "input")
    if source.ndim == 0:
        raise ValueError("input must have at least one axis, got a scalar")
    check_precision(precision)
    return source


def _work_dtype(source, weights, precision, on_gpu=False):
    """The run's float type (_args.work_dtype) for these weights; float32 for GPU arrays."""
    if on_gpu:  # the device route computes in float32
        if precision == "float64":
            raise ValueError("precision='float64' is for arrays in host memory; GPU arrays are filtered in float32")
        return FLOAT32
    return work_dtype(source, precision, sums_beyond_float32(source, sum_gain(weights)))


def _border_and_cval(mode, cval):
    if type(cval) is not float and not isinstance(cval, (int, float, np.integer, np.floating)):
        raise TypeError(f"cval must be a real number, got {cval!r}")
    return engine_border(mode), float(cval)


# ---- convolve and correlate ----

def _filtered_axes(source, weights, axes, channel_axis):
    """The axes a call of convolve or correlate filters (one or two, in the weights' order) and
    the weights' axes that lie along them."""
    ndim = source.ndim
    if channel_axis is not None:
        if ndim != 3:
            raise ValueError(f"channel_axis is for an image with channels, (H, W, C) or (C, H, W); "
                             f"the input has shape {source.shape}")
        c = normalize_axes(channel_axis, ndim)[0]
        image_axes = tuple(a for a in range(3) if a != c)
        if axes is not None and tuple(sorted(normalize_axes(axes, ndim))) != image_axes:
            raise ValueError(f"axes {axes!r} include the channel axis {channel_axis}")
        if weights.ndim == 2:
            return image_axes, (0, 1)
        if weights.ndim == 3 and weights.shape[c] == 1:
            return image_axes, tuple(a for a in range(3) if a != c)
        raise ValueError(f"weights of shape {weights.shape} for an image with channels on axis {c}: "
                         "give (h, w) weights")
    if weights.ndim != ndim:
        hint = (": for an image with channels pass channel_axis (-1 for (H, W, C)), for a stack of "
                "images axes=(-2, -1)") if ndim == 3 and weights.ndim == 2 else ""
        raise ArgumentCountError(f"weights.ndim ({weights.ndim}) must match len(axes) ({ndim}): the weights have "
                                 f"{weights.ndim} axes and the input {ndim} (shape {source.shape}){hint}")
    if ndim <= 2:
        return tuple(range(ndim)), tuple(range(ndim))
    spread = tuple(a for a in range(ndim) if weights.shape[a] > 1)
    if len(spread) > 2:
        raise ValueError(f"weights of shape {weights.shape} spread over {len(spread)} axes; ConvLab filters "
                         "over one or two axes at a time (weights of size 1 along the others)")
    if not spread:
        spread = (ndim - 1,)
    return spread, spread


def _weights_on_axes(source, weights, origin, axes, channel_axis):
    """The weights and origin as the call reads them (over named axes made whole, as scipy), the
    axes they filter and the weights' axes along those (convolve, correlate and convlab.dask)."""
    if channel_axis is None and axes is not None:
        weights, origin = _along_named_axes(weights, origin, axes, source.ndim)
        axes = None
    filtered, weight_axes = _filtered_axes(source, weights, axes, channel_axis)
    return weights, origin, filtered, weight_axes


def _along_named_axes(weights, origin, axes, ndim):
    """Weights and origin over the axes named in `axes` as scipy reads them, made whole: the
    weights' axes lie along the named axes in the input's order (size 1 along the others), and
    the origin named for axis a (in the order named) goes to axis a (0 along the others). When
    `axes` names every axis, scipy reads weights and origins in the input's order, whatever
    order the axes are named in."""
    named = normalize_axes(axes, ndim)
    if weights.ndim != len(named):
        raise ArgumentCountError(f"weights.ndim ({weights.ndim}) must match len(axes) ({len(named)}): "
                                 f"one weights axis per axis named in axes={axes!r}")
    offsets = origins(origin, len(named))
    if len(named) == ndim:
        return weights, offsets
    whole = [0] * ndim
    for a, o in zip(named, offsets):
        whole[a] = o
    return np.expand_dims(weights, tuple(a for a in range(ndim) if a not in named)), whole


def _single_mode(mode):
    """correlate and convolve take one mode for every axis, as scipy's (RuntimeError there)."""
    if not isinstance(mode, str) and np.iterable(mode):
        raise ArgumentCountError(f"A sequence of modes is not supported by convolve and correlate, got {mode!r}: "
                                 "give one mode")


def _nd(correlate_, input, weights, output, mode, cval, origin, axes, channel_axis, method, device, threads,
        precision, zero_taps, return_report):
    _single_mode(mode)
    on_gpu = gpu_array_kind(input) is not None
    source = shape_only(input) if on_gpu else _source(input, precision)
    w = real_array(host_weights(weights) if gpu_array_kind(weights) else weights, "weights")
    if w.ndim == 0:
        raise ValueError("weights must have at least one axis, got a scalar")
    w, origin, filtered, weight_axes = _weights_on_axes(source, w, origin, axes, channel_axis)
    check_sides(source.shape, filtered)
    for a in weight_axes:
        check_taps(w.shape[a], f"weights of shape {w.shape}")
    offsets = origins(origin, w.ndim)
    for a in range(w.ndim):
        if a not in weight_axes and offsets[a] != 0:
            raise ValueError(f"origin along weights axis {a} (the channel axis, where they have size 1) must be 0, "
                             f"got {offsets[a]}")
    kept = np.moveaxis(w, weight_axes, range(len(weight_axes))).reshape(
        [w.shape[a] for a in weight_axes])
    offsets = [offsets[a] for a in weight_axes]
    if kept.ndim == 1:
        kernel = kernel_2d(kept.reshape(1, -1), _work_dtype(source, kept, precision, on_gpu))
        ay, ax = 0, anchor(offsets[0], kernel.shape[1], filtered[0])
    else:
        kernel = kernel_2d(kept, _work_dtype(source, kept, precision, on_gpu))
        ay = anchor(offsets[0], kernel.shape[0], filtered[0])
        ax = anchor(offsets[1], kernel.shape[1], filtered[1])
    border, cval = _border_and_cval(mode, cval)
    opts = _Options(method, device, threads, zero_taps)
    if on_gpu:
        result, report = _device.run(correlate_, input, kernel, filtered, ax, ay, border, cval, opts,
                                     bool(return_report), output)
        return (result, report) if return_report else result
    _check_output(source, output)
    if output_dtype(source.dtype, output).kind != "f":
        opts = opts.for_integers(kernel)
    into = output if _writable(output, source.shape, kernel.dtype) else None
    result, report = _filter_run(correlate_, source, kernel, filtered, ax, ay, border, cval, opts, bool(return_report),
                                  into)
    result = _finish(result, source, output)
    return (result, report) if return_report else result


@accepts_map
@accepts_complex()
def convolve(input, weights, output=None, mode="reflect", cval=0.0, origin=0, *, axes=None, channel_axis=None,
             method="auto", device="auto", threads=0, precision=None, zero_taps="skip", return_report=False):
    """Multidimensional convolution, as ``scipy.ndimage.convolve``.

    Parameters
    ----------
    input : array_like
        Real numbers (float, integer or bool) or complex ones, of any number of axes.
    weights : array_like
        The kernel, real or complex, with one axis per filtered axis of `input` (scipy's rule),
        or with size 1 along the axes that are not filtered. ConvLab filters over one or two
        axes at a time. Complex inputs or weights: the real and imaginary parts filtered as
        real arrays and combined, as scipy; correlations use the weights' conjugate.
    output : ndarray or dtype, optional
        Where to write the result, or its dtype. By default the result has the input's dtype:
        integers truncated toward zero and wrapped, as scipy writes them.
    mode : str, optional
        scipy's names ('reflect', 'mirror', 'nearest', 'wrap', 'constant' and the 'grid-'
        forms) or ConvLab's ('replicate', 'reflect101', 'constant:VALUE', ...).
    cval : float or complex, optional
        The value outside the input for mode 'constant' (complex for a complex input).
    origin : int or sequence of int, optional
        Shifts the kernel's centre from ``size // 2``, one per weights axis, as scipy's; with
        `axes`, one per named axis, in the order named.
    axes : int or sequence of int, optional
        The axes to filter, one per weights axis (scipy's ``axes``: the weights' axes lie along
        them in the input's order); every other index is an image of a batch (a stack or a
        volume filtered slice by slice).
    channel_axis : int, optional
        Says a 3-D input is one image with channels along this axis (skimage's convention);
        2-D weights then filter every channel alike. Without it, 3-D input needs 3-D weights
        or `axes`.
    method : {'auto', 'direct', 'separable', 'fft', 'reference'}, optional
        The engine's method; 'auto' picks the cheapest by its measured cost model.
    device : {'auto', 'cpu', 'cuda'}, optional
    threads : int, optional
        CPU threads; 0 for all.
    precision : {None, 'float32', 'float64'}, optional
        The float type computed in. None: by the input's dtype, as scipy: float64 inputs (and
        integers whose sums pass 2**24) in float64, others in float32; 'float32' asks for
        float32's speed, 'float64' for float64 whatever the input.
    zero_taps : {'skip', 'multiply'}, optional
        How a NaN or an infinity meets a weight of 0: 'skip' (scipy's convolve and correlate:
        the zero weight is not part of the footprint) or 'multiply' (IEEE: 0 * NaN is NaN, the
        engine's own rule, as scipy's 1-D filters have it). Only inputs with non-finite values
        see a difference.
    map : {None, 'clamp', 'abs', 'normalize', 'offset'}, optional
        None: integers written as scipy writes them (truncated, wrapped). A name: the CLI's
        ``--map`` (`map_samples`), filtered in float32 and written to uint8 or uint16 (the
        `output`'s dtype, else the input's), scaled from the input's nominal range (255 for
        uint8, 65535 for uint16, 1 for floats), clamped and rounded.
    return_report : bool, optional
        Also return a dict of the run (the method that ran and why, the estimates, stage
        timings in ms).

    Returns
    -------
    ndarray
        The filtered array, of the input's shape; ``(result, report)`` with `return_report`.

    Raises
    ------
    ValueError
        For shapes that do not go together, an origin outside the kernel, empty weights.
    RuntimeError
        As scipy, for per-axis arguments or weights that do not match the axes filtered (the
        error is also a ValueError).
    TypeError
        For a dtype that is not a number type, a real output for a complex result.
    convlab.Error
        For a mode, method or device the engine does not know, or a device that cannot run.

    Examples
    --------
    >>> import numpy as np, convlab
    >>> a = np.array([[1, 2, 0, 0], [5, 3, 0, 4], [0, 0, 0, 7], [9, 3, 0, 0]], np.float32)
    >>> convlab.convolve(a, np.array([[1, 1, 1], [1, 1, 0], [1, 0, 0]], np.float32), mode="constant")
    array([[11., 10.,  7.,  4.],
           [10.,  3., 11., 11.],
           [15., 12., 14.,  7.],
           [12.,  3.,  7.,  0.]], dtype=float32)
    >>> convlab.convolve(np.zeros((8, 8, 3), np.uint8), np.ones((3, 3)) / 9, channel_axis=-1).dtype
    dtype('uint8')
    """
    return _nd(False, input, weights, output, mode, cval, origin, axes, channel_axis, method, device, threads,
               precision, zero_taps, return_report)


@accepts_map
@accepts_complex(conjugate=True)
def correlate(input, weights, output=None, mode="reflect", cval=0.0, origin=0, *, axes=None, channel_axis=None,
              method="auto", device="auto", threads=0, precision=None, zero_taps="skip", return_report=False):
    """Multidimensional correlation, as ``scipy.ndimage.correlate`` (parameters as `convolve`).

    Returns
    -------
    ndarray
        The filtered array; ``(result, report)`` with `return_report`.

    Raises
    ------
    ValueError, TypeError, convlab.Error
        As `convolve`.

    Examples
    --------
    >>> import numpy as np, convlab
    >>> convlab.correlate(np.arange(5, dtype=np.float32)[None, :], np.array([[1, 0, -1]], np.float32))
    array([[-1., -2., -2., -2., -1.]], dtype=float32)
    """
    return _nd(True, input, weights, output, mode, cval, origin, axes, channel_axis, method, device, threads,
               precision, zero_taps, return_report)


# ---- one axis ----

def _one_d(correlate_, input, weights, axis, output, mode, cval, origin, method, device, threads, precision):
    on_gpu = gpu_array_kind(input) is not None
    source = shape_only(input) if on_gpu else _source(input, precision)
    w = real_array(host_weights(weights) if gpu_array_kind(weights) else weights, "weights")
    if w.ndim != 1:
        raise ValueError(f"weights must be 1-D, got shape {w.shape}")
    (a,) = normalize_axes(axis, source.ndim)
    check_sides(source.shape, (a,))
    check_taps(w.size, f"weights of shape {w.shape}")
    kernel = kernel_2d(w.reshape(1, -1), _work_dtype(source, w, precision, on_gpu))
    ax = anchor(origins(origin, 1)[0], kernel.shape[1], a)
    border, cval = _border_and_cval(mode, cval)
    opts = _Options(method, device, threads)
    if on_gpu:  # scipy's 1-D rule is IEEE's (zero weights multiply)
        opts.zero_taps = "multiply"
        return _device.run(correlate_, input, kernel, (a,), ax, 0, border, cval, opts, False, output)[0]
    _check_output(source, output)
    if output_dtype(source.dtype, output).kind != "f":
        opts = opts.for_integers(kernel)
    into = output if _writable(output, source.shape, kernel.dtype) else None
    result, _ = _run(correlate_, source, kernel, (a,), ax, 0, border, cval, opts, False, into)
    return _finish(result, source, output)


@accepts_map
@accepts_complex(conjugate=True)
def correlate1d(input, weights, axis=-1, output=None, mode="reflect", cval=0.0, origin=0, *, method="auto",
                device="auto", threads=0, precision=None):
    """One-dimensional correlation along `axis`, as ``scipy.ndimage.correlate1d``.

    Parameters
    ----------
    input : array_like
    weights : array_like
        A 1-D kernel.
    axis : int, optional
    output, mode, cval, origin, method, device, threads, precision, map
        As `convolve`.

    Returns
    -------
    ndarray

    Raises
    ------
    ValueError, TypeError, convlab.Error
        As `convolve`.

    Examples
    --------
    >>> import numpy as np, convlab
    >>> convlab.correlate1d([2, 8, 0, 4, 1, 9, 9, 0], [1, 3])
    array([ 8, 26,  8, 12,  7, 28, 36,  9])
    """
    return _one_d(True, input, weights, axis, output, mode, cval, origin, method, device, threads, precision)


@accepts_map
@accepts_complex()
def convolve1d(input, weights, axis=-1, output=None, mode="reflect", cval=0.0, origin=0, *, method="auto",
               device="auto", threads=0, precision=None):
    """One-dimensional convolution along `axis`, as ``scipy.ndimage.convolve1d`` (parameters as
    `correlate1d`).

    Returns
    -------
    ndarray

    Raises
    ------
    ValueError, TypeError, convlab.Error
        As `convolve`.

    Examples
    --------
    >>> import numpy as np, convlab
    >>> convlab.convolve1d([2, 8, 0, 4, 1, 9, 9, 0], [1, 3])
    array([14, 24,  4, 13, 12, 36, 27,  0])
    """
    return _one_d(False, input, weights, axis, output, mode, cval, origin, method, device, threads, precision)
