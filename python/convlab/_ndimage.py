# SPDX-License-Identifier: GPL-3.0-or-later
"""scipy.ndimage's linear filters on ConvLab's engine (docs/python.md).

Every function takes scipy's arguments and computes the same result to float32 precision:
the engine filters over one or two axes of the array at a time, every other index being one
image of a batch; the separable filters (gaussian, uniform, sobel, prewitt, laplace) pass the
engine their 1-D factors, which it runs as row and column passes.
"""
import numpy as np

from . import _convlab
from ._args import (FLOAT32, anchor, border_name, cast_result, check_precision, engine_border, kernel_2d,
                    normalize_axes, origins, output_dtype, per_axis, real_array)

__all__ = ["convolve", "correlate", "convolve1d", "correlate1d", "gaussian_filter", "gaussian_filter1d",
           "uniform_filter", "uniform_filter1d", "sobel", "prewitt", "laplace", "gaussian_laplace"]


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
        if zero_taps not in ("skip", "multiply"):
            raise ValueError(f"zero_taps must be 'skip' (scipy's rule) or 'multiply' (IEEE's), got {zero_taps!r}")
        self.method, self.device, self.threads = str(method), str(device), int(threads)
        self.zero_taps = zero_taps

    def for_integers(self, kernel):
        """The options for a run whose result is written as integers (see _EXACT_DIRECT_TAPS)."""
        if self.method != "auto" or kernel.size > _EXACT_DIRECT_TAPS:
            return self
        return _Options("direct", self.device, self.threads, self.zero_taps)


def _samples(plane):
    """An image as the engine reads it: C-order, float32, or uint8/uint16 samples as they are
    (the engine converts those itself, with the float32 path's results bit for bit)."""
    if plane.dtype.char in "BH" and plane.dtype.isnative and (plane.ndim == 2 or plane.shape[2] <= 4):
        return np.ascontiguousarray(plane)
    return np.ascontiguousarray(plane, dtype=FLOAT32)


def _engine(samples, kernel, into, border, cval, ax, ay, correlate_, opts, report):
    kind = samples.dtype.char
    run = _convlab.filter if kind == "f" else _convlab.filter_u8 if kind == "B" else _convlab.filter_u16
    return run(samples, kernel, into, border, float(cval), ax, ay, correlate_, opts.method, opts.device,
               opts.threads, report)


def _writable_float32(array, shape):
    return (isinstance(array, np.ndarray) and array.dtype == FLOAT32 and array.shape == shape
            and array.flags.c_contiguous and array.flags.writeable)


def _run(correlate_, x, kernel, axes, ax, ay, border, cval, opts, report=False, into=None):
    """x filtered with the 2-D float32 `kernel` (kh, kw) over `axes`: (row, col), or one axis
    (then kh == 1); every other index of x is an image of a batch. Returns the float32 result
    (`into` when given: a C-order float32 array of x's shape, written where it lies) and the
    report of the last engine run."""
    ndim = x.ndim
    last = ndim - 1
    if len(axes) == 1:
        (axis,) = axes
        if ndim == 1:
            rows = x.reshape(1, -1)
        elif axis == last:
            rows = x.reshape(-1, x.shape[-1])  # rows of the last axis, whatever lies before
        elif axis == last - 1:  # the axis before the last: a column kernel over the last two
            return _run(correlate_, x, np.ascontiguousarray(kernel.T), (axis, last), ay, ax, border, cval, opts,
                        report, into)
        else:
            moved = np.moveaxis(x, axis, -1)
            out, rep = _run(correlate_, moved, kernel, (ndim - 1,), ax, ay, border, cval, opts, report)
            return _deliver(np.moveaxis(out, -1, axis), into), rep
        target = into.reshape(rows.shape) if into is not None else None
        out, rep = _engine(_samples(rows), kernel, target, border, cval, ax, ay, correlate_, opts, report)
        return (into if into is not None else out.reshape(x.shape)), rep
    row, col = axes
    if ndim == 2 and (row, col) == (0, 1):
        out, rep = _engine(_samples(x), kernel, into, border, cval, ax, ay, correlate_, opts, report)
        return out, rep
    if ndim == 3 and (row, col) == (0, 1):  # an image with its channels last: the engine's own layout
        out, rep = _engine(_samples(x), kernel, into, border, cval, ax, ay, correlate_, opts, report)
        return out, rep
    in_place = (row, col) == (last - 1, last)
    moved = x if in_place else np.moveaxis(x, (row, col), (-2, -1))
    images = moved.reshape((-1,) + moved.shape[-2:])
    out = into.reshape(images.shape) if (into is not None and in_place) else np.empty(images.shape, FLOAT32)
    rep = None
    for i in range(images.shape[0]):
        _, rep = _engine(_samples(images[i]), kernel, out[i], border, cval, ax, ay, correlate_, opts, report)
    result = out.reshape(moved.shape)
    if not in_place:
        result = np.moveaxis(result, (-2, -1), (row, col))
    return _deliver(result, into), rep


def _filter_run(correlate_, x, kernel, axes, ax, ay, border, cval, opts, report=False, into=None):
    """_run, then scipy's rule for non-finite samples unless the caller asked for IEEE's."""
    result, rep = _run(correlate_, x, kernel, axes, ax, ay, border, cval, opts, report, into)
    if opts.zero_taps == "skip" and x.dtype.kind == "f" and (kernel == 0).any():
        result = _skip_zero_taps(correlate_, x, kernel, axes, ax, ay, border, cval, opts, result)
    return result, rep


def _skip_zero_taps(correlate_, x, kernel, axes, ax, ay, border, cval, opts, result):
    """The result under scipy's rule for NaN and infinities: a zero tap is skipped, not
    multiplied (0 * NaN would be NaN), so a non-finite sample reaches only the outputs of the
    kernel's non-zero taps (docs/python.md, *Non-finite values*).

    Nothing to do unless the result holds a non-finite value (one float64 sum over it, the only
    cost on finite data). Then the sum over the finite samples is filtered again with the
    non-finite ones at 0, and the outputs each kind reaches through the non-zero taps are set:
    NaN where a NaN is reached or +inf meets -inf, else the infinity of the taps' signs."""
    with np.errstate(invalid="ignore", over="ignore"):
        if np.isfinite(np.add.reduce(result, axis=None, dtype=np.float64)):
            return result
    samples = np.asarray(x, FLOAT32)
    finite = np.isfinite(samples)
    if finite.all():
        return result  # an overflow, not a non-finite sample: the engine's rule holds
    exact = _Options("direct", opts.device, opts.threads, "multiply")
    mask_border = border_name(border.split(":")[0].split("=")[0])  # the masks read no constant

    def reach(indicator, taps):
        out, _ = _run(correlate_, indicator.astype(FLOAT32), kernel_2d(taps), axes, ax, ay, mask_border, 0.0, exact)
        return out > 0.5

    fixed, _ = _run(correlate_, np.where(finite, samples, np.float32(0)), kernel, axes, ax, ay, border, cval, opts)
    positive, negative = (kernel > 0).astype(FLOAT32), (kernel < 0).astype(FLOAT32)
    up_inf, down_inf = np.isposinf(samples), np.isneginf(samples)
    up = reach(up_inf, positive) | reach(down_inf, negative)
    down = reach(up_inf, negative) | reach(down_inf, positive)
    fixed[up] = np.inf
    fixed[down] = -np.inf
    fixed[(up & down) | reach(np.isnan(samples), positive + negative)] = np.nan
    if result is not fixed and isinstance(result, np.ndarray) and result.flags.writeable and \
            result.dtype == FLOAT32 and result.shape == fixed.shape:
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
        if output.shape != source.shape:
            raise ValueError(f"output's shape {output.shape} differs from the input's {source.shape}")
        if result is not output:
            np.copyto(output, cast_result(result, dtype), casting="unsafe")
        return output
    return cast_result(result, dtype)


def _check_output(source, output):
    """Fails before any work for an output that cannot receive the result."""
    if isinstance(output, np.ndarray):
        if output.shape != source.shape:
            raise ValueError(f"output's shape {output.shape} differs from the input's {source.shape}")
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
    if source.size == 0:
        raise ValueError(f"input of shape {source.shape} is empty")
    check_precision(source, precision)
    return source


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
    if axes is not None:
        # scipy places the weights' axes along the named axes in the input's order, whatever
        # order they are named in (axes=(2, 0) is axes=(0, 2)).
        filtered = tuple(sorted(normalize_axes(axes, ndim)))
        if len(filtered) != weights.ndim:
            raise ValueError(f"weights have {weights.ndim} axes and axes={axes!r} names {len(filtered)}: "
                             "they must be the same")
        if len(filtered) > 2:
            raise ValueError(f"ConvLab filters over one or two axes at a time; axes={axes!r} names {len(filtered)}")
        return filtered, tuple(range(weights.ndim))
    if weights.ndim != ndim:
        hint = (": for an image with channels pass channel_axis (-1 for (H, W, C)), for a stack of "
                "images axes=(-2, -1)") if ndim == 3 and weights.ndim == 2 else ""
        raise ValueError(f"weights have {weights.ndim} axes and the input {ndim} (shape {source.shape}){hint}")
    if ndim <= 2:
        return tuple(range(ndim)), tuple(range(ndim))
    spread = tuple(a for a in range(ndim) if weights.shape[a] > 1)
    if len(spread) > 2:
        raise ValueError(f"weights of shape {weights.shape} spread over {len(spread)} axes; ConvLab filters "
                         "over one or two axes at a time (weights of size 1 along the others)")
    if not spread:
        spread = (ndim - 1,)
    return spread, spread


def _nd(correlate_, input, weights, output, mode, cval, origin, axes, channel_axis, method, device, threads,
        precision, zero_taps, return_report):
    source = _source(input, precision)
    w = real_array(weights, "weights")
    if w.ndim == 0:
        raise ValueError("weights must have at least one axis, got a scalar")
    filtered, weight_axes = _filtered_axes(source, w, axes, channel_axis)
    offsets = origins(origin, w.ndim)
    for a in range(w.ndim):
        if a not in weight_axes and offsets[a] != 0:
            raise ValueError(f"origin along weights axis {a} (the channel axis, where they have size 1) must be 0, "
                             f"got {offsets[a]}")
    kept = np.moveaxis(w, weight_axes, range(len(weight_axes))).reshape(
        [w.shape[a] for a in weight_axes])
    offsets = [offsets[a] for a in weight_axes]
    if kept.ndim == 1:
        kernel = kernel_2d(kept.reshape(1, -1))
        ay, ax = 0, anchor(offsets[0], kernel.shape[1], filtered[0])
    else:
        kernel = kernel_2d(kept)
        ay = anchor(offsets[0], kernel.shape[0], filtered[0])
        ax = anchor(offsets[1], kernel.shape[1], filtered[1])
    border, cval = _border_and_cval(mode, cval)
    _check_output(source, output)
    opts = _Options(method, device, threads, zero_taps)
    if output_dtype(source.dtype, output).kind != "f":
        opts = opts.for_integers(kernel)
    into = output if _writable_float32(output, source.shape) else None
    result, report = _filter_run(correlate_, source, kernel, filtered, ax, ay, border, cval, opts, bool(return_report),
                                  into)
    result = _finish(result, source, output)
    return (result, report) if return_report else result


def convolve(input, weights, output=None, mode="reflect", cval=0.0, origin=0, *, axes=None, channel_axis=None,
             method="auto", device="auto", threads=0, precision=None, zero_taps="skip", return_report=False):
    """Multidimensional convolution, as ``scipy.ndimage.convolve``.

    Parameters
    ----------
    input : array_like
        Real numbers (float, integer or bool), of any number of axes.
    weights : array_like
        The kernel, with one axis per filtered axis of `input` (scipy's rule), or with size 1
        along the axes that are not filtered. ConvLab filters over one or two axes at a time.
    output : ndarray or dtype, optional
        Where to write the result, or its dtype. By default the result has the input's dtype:
        integers truncated toward zero and wrapped, as scipy writes them.
    mode : str, optional
        scipy's names ('reflect', 'mirror', 'nearest', 'wrap', 'constant' and the 'grid-'
        forms) or ConvLab's ('replicate', 'reflect101', 'constant:VALUE', ...).
    cval : float, optional
        The value outside the input for mode 'constant'.
    origin : int or sequence of int, optional
        Shifts the kernel's centre from ``size // 2``, one per weights axis, as scipy's.
    axes : int or sequence of int, optional
        The axes to filter, one per weights axis (scipy's ``axes``); every other index is an
        image of a batch (a stack or a volume filtered slice by slice).
    channel_axis : int, optional
        Says a 3-D input is one image with channels along this axis (skimage's convention);
        2-D weights then filter every channel alike. Without it, 3-D input needs 3-D weights
        or `axes`.
    method : {'auto', 'direct', 'separable', 'fft', 'reference'}, optional
        The engine's method; 'auto' picks the cheapest by its measured cost model.
    device : {'auto', 'cpu', 'cuda'}, optional
    threads : int, optional
        CPU threads; 0 for all.
    precision : {None, 'float32'}, optional
        ConvLab filters in float32; a float64 input (or integers beyond 2**24) warns
        (`convlab.PrecisionWarning`) unless this says 'float32'.
    zero_taps : {'skip', 'multiply'}, optional
        How a NaN or an infinity meets a weight of 0: 'skip' (scipy's convolve and correlate:
        the zero weight is not part of the footprint) or 'multiply' (IEEE: 0 * NaN is NaN, the
        engine's own rule, as scipy's 1-D filters have it). Only inputs with non-finite values
        see a difference.
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
        For shapes that do not go together, an origin outside the kernel, an empty input.
    TypeError
        For a dtype that is not a real number type.
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
    source = _source(input, precision)
    w = real_array(weights, "weights")
    if w.ndim != 1:
        raise ValueError(f"weights must be 1-D, got shape {w.shape}")
    (a,) = normalize_axes(axis, source.ndim)
    kernel = kernel_2d(w.reshape(1, -1))
    ax = anchor(origins(origin, 1)[0], kernel.shape[1], a)
    border, cval = _border_and_cval(mode, cval)
    _check_output(source, output)
    opts = _Options(method, device, threads)
    if output_dtype(source.dtype, output).kind != "f":
        opts = opts.for_integers(kernel)
    into = output if _writable_float32(output, source.shape) else None
    result, _ = _run(correlate_, source, kernel, (a,), ax, 0, border, cval, opts, False, into)
    return _finish(result, source, output)


def correlate1d(input, weights, axis=-1, output=None, mode="reflect", cval=0.0, origin=0, *, method="auto",
                device="auto", threads=0, precision=None):
    """One-dimensional correlation along `axis`, as ``scipy.ndimage.correlate1d``.

    Parameters
    ----------
    input : array_like
    weights : array_like
        A 1-D kernel.
    axis : int, optional
    output, mode, cval, origin, method, device, threads, precision
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


# ---- separable filters: a sequence of 1-D passes, as scipy runs them ----

def _passes(input, output, steps, method, device, threads, precision):
    """Runs 1-D correlations one axis after another, as scipy does: float results through
    float32 intermediates (two axes in one engine run where their modes agree: the kernel's
    outer product, rank 1, which the engine runs as row and column passes); integer results
    written after each pass, truncated and wrapped, as scipy's intermediate output array holds
    them. `steps`: (axis, 1-D weights, (border, cval), origin) in order."""
    source = _source(input, precision)
    _check_output(source, output)
    opts = _Options(method, device, threads)
    dtype = output_dtype(source.dtype, output)
    whole_passes = dtype.kind != "f"
    current = source
    i = 0
    while i < len(steps):
        axis, w, (border, cval), origin = steps[i]
        if not whole_passes and i + 1 < len(steps) and steps[i + 1][2] == steps[i][2] and \
                _pass_keeps_the_constant(border, cval, w):
            axis2, w2, _, origin2 = steps[i + 1]
            if axis2 < axis:  # rows along the lower axis: the array's own order, no transposed copy
                axis, w, origin, axis2, w2, origin2 = axis2, w2, origin2, axis, w, origin
            kernel = kernel_2d(np.outer(w, w2))
            ay, ax = anchor(origin, kernel.shape[0], axis), anchor(origin2, kernel.shape[1], axis2)
            result, _ = _run(True, current, kernel, (axis, axis2), ax, ay, border, cval, opts)
            i += 2
        else:
            divisor = _uniform_divisor(w)
            kernel = kernel_2d((np.ones(len(w)) if divisor else np.asarray(w, np.float64)).reshape(1, -1))
            ax = anchor(origin, kernel.shape[1], axis)
            # One row of taps: direct, whose float sums are exact where the data and taps allow
            # (auto may take separable, whose SVD factors of a row round it for nothing).
            result, _ = _run(True, current, kernel, (axis,), ax, 0, border, cval, opts.for_integers(kernel))
            if divisor:  # scipy's uniform filter: the sum, then one division (float32's is
                result /= np.float32(divisor)  # correctly rounded: the double's, rounded)
            i += 1
        current = cast_result(result, dtype) if whole_passes else result
    if current is source:  # nothing to filter (every sigma 0, every size 1): scipy's copy
        current = source.astype(dtype)
    elif not whole_passes:
        current = cast_result(current, dtype)
    if isinstance(output, np.ndarray):
        np.copyto(output, current, casting="unsafe")
        return output
    return current


def _uniform_divisor(weights):
    """The size of a uniform filter's weights (all 1/size), else 0: such a pass runs as the sum
    of ones and one division, as scipy computes it, so an integer mean comes out whole."""
    w = np.asarray(weights)
    return len(w) if len(w) > 1 and np.all(w == 1.0 / len(w)) else 0


def _pass_keeps_the_constant(border, cval, weights):
    """Whether a first pass turns the constant outside the image into the same constant, so
    that the second pass may read the padded source through it (one 2-D run) where scipy pads
    the first pass's result with the constant: true for every mode but constant, and for
    constant when the value is 0 or the weights sum to 1 (smoothing; not a derivative)."""
    name = border_name(border.split(":")[0].split("=")[0])
    if name != "constant":
        return True
    value = float(border.split(":" if ":" in border else "=", 1)[1]) if (":" in border or "=" in border) else cval
    return value == 0 or abs(float(np.sum(weights)) - 1.0) <= 1e-12


def _mode_with_cval(mode, cval):
    return (engine_border(mode), float(cval))


def _gaussian_kernel(sigma, order, radius):
    """The 1-D Gaussian of `sigma` sampled at -radius..radius and normalized to sum 1, or its
    `order`-th derivative: the Gaussian times the polynomial p_order, where p_0 = 1 and
    p_{n+1}(x) = p_n'(x) - x p_n(x) / sigma^2 (each derivative of exp(-x^2 / 2 sigma^2))."""
    if order < 0:
        raise ValueError(f"order must be non-negative, got {order}")
    x = np.arange(-radius, radius + 1, dtype=np.float64)
    phi = np.exp(-0.5 / (sigma * sigma) * x * x)
    phi /= phi.sum()
    if order == 0:
        return phi
    # p as coefficients of x^0..x^order: p' shifts down and scales, x p / sigma^2 shifts up.
    p = np.zeros(order + 1)
    p[0] = 1.0
    powers = np.arange(order + 1)
    for _ in range(order):
        derivative = np.roll(p * powers, -1)
        derivative[-1] = 0.0
        p = derivative - np.roll(p, 1) / (sigma * sigma)
    return np.polynomial.polynomial.polyval(x, p) * phi


def _radius(sigma, truncate, radius):
    if radius is not None:
        if not isinstance(radius, (int, np.integer)) or radius < 0:
            raise ValueError(f"radius must be a non-negative integer, got {radius!r}")
        return int(radius)
    return int(float(truncate) * float(sigma) + 0.5)


def _gaussian_steps(ndim, sigma, order, mode, cval, truncate, radius, axes):
    filtered = normalize_axes(axes, ndim)
    n = len(filtered)
    sigmas, orders = per_axis(sigma, n, "sigma"), per_axis(order, n, "order")
    modes, radii = per_axis(mode, n, "mode"), per_axis(radius, n, "radius")
    steps = []
    for axis, s, o, m, r in zip(filtered, sigmas, orders, modes, radii):
        s = float(s)
        if not np.isfinite(s) or s < 0:
            raise ValueError(f"sigma must be a finite number >= 0, got {s}")
        if s <= 1e-15:
            continue  # scipy leaves such an axis as it is
        weights = _gaussian_kernel(s, int(o), _radius(s, truncate, r))[::-1]
        steps.append((axis, weights, _mode_with_cval(m, cval), 0))
    return steps


def gaussian_filter1d(input, sigma, axis=-1, order=0, output=None, mode="reflect", cval=0.0, truncate=4.0, *,
                      radius=None, method="auto", device="auto", threads=0, precision=None):
    """A 1-D Gaussian filter (or its derivative of `order`) along `axis`, as
    ``scipy.ndimage.gaussian_filter1d``.

    Parameters
    ----------
    input : array_like
    sigma : float
        The standard deviation, in samples.
    axis : int, optional
    order : int, optional
        0 for the Gaussian, n for its n-th derivative.
    truncate : float, optional
        The kernel reaches ``int(truncate * sigma + 0.5)`` samples each side, unless `radius`.
    radius : int, optional
    output, mode, cval, method, device, threads, precision
        As `convolve`.

    Returns
    -------
    ndarray

    Raises
    ------
    ValueError, TypeError, convlab.Error
        As `convolve`; also for a negative sigma, order or radius.

    Examples
    --------
    >>> import numpy as np, convlab
    >>> convlab.gaussian_filter1d(np.array([1, 2, 3, 4, 5], np.float32), 1).round(4)
    array([1.427 , 2.0678, 3.    , 3.9322, 4.573 ], dtype=float32)
    """
    source = real_array(input, "input")
    (a,) = normalize_axes(axis, max(source.ndim, 1))
    steps = _gaussian_steps(max(source.ndim, 1), [sigma], [order], [mode], cval, truncate, [radius], (a,))
    return _passes(source, output, steps, method, device, threads, precision)


def gaussian_filter(input, sigma, order=0, output=None, mode="reflect", cval=0.0, truncate=4.0, *, radius=None,
                    axes=None, method="auto", device="auto", threads=0, precision=None):
    """A Gaussian filter over `axes` (all by default), as ``scipy.ndimage.gaussian_filter``.

    Parameters
    ----------
    input : array_like
    sigma : float or sequence of float
        One per filtered axis or one for all; an axis with sigma 0 is left as it is.
    order : int or sequence of int, optional
        The derivative's order along each axis (0: the Gaussian itself).
    mode : str or sequence of str, optional
        One per filtered axis or one for all.
    truncate, radius
        As `gaussian_filter1d` (radius: one per axis or one for all).
    axes : sequence of int, optional
    output, cval, method, device, threads, precision
        As `convolve`.

    Returns
    -------
    ndarray

    Raises
    ------
    ValueError, TypeError, convlab.Error
        As `gaussian_filter1d`.

    Examples
    --------
    >>> import numpy as np, convlab
    >>> a = np.zeros((5, 5), np.float32); a[2, 2] = 1
    >>> convlab.gaussian_filter(a, 1, truncate=1.0).round(3)
    array([[0.   , 0.   , 0.   , 0.   , 0.   ],
           [0.   , 0.075, 0.124, 0.075, 0.   ],
           [0.   , 0.124, 0.204, 0.124, 0.   ],
           [0.   , 0.075, 0.124, 0.075, 0.   ],
           [0.   , 0.   , 0.   , 0.   , 0.   ]], dtype=float32)
    """
    source = real_array(input, "input")
    steps = _gaussian_steps(source.ndim, sigma, order, mode, cval, truncate, radius, axes)
    return _passes(source, output, steps, method, device, threads, precision)


def _uniform_steps(ndim, size, mode, cval, origin, axes):
    filtered = normalize_axes(axes, ndim)
    n = len(filtered)
    sizes, modes, offsets = per_axis(size, n, "size"), per_axis(mode, n, "mode"), per_axis(origin, n, "origin")
    steps = []
    for axis, s, m, o in zip(filtered, sizes, modes, offsets):
        if not isinstance(s, (int, np.integer)) or s < 1:
            raise ValueError(f"size must be a positive integer, got {s!r}")
        if s > 1:
            steps.append((axis, np.full(int(s), 1.0 / int(s)), _mode_with_cval(m, cval), int(o)))
    return steps


def uniform_filter1d(input, size, axis=-1, output=None, mode="reflect", cval=0.0, origin=0, *, method="auto",
                     device="auto", threads=0, precision=None):
    """The mean over `size` samples along `axis`, as ``scipy.ndimage.uniform_filter1d``.

    Returns
    -------
    ndarray

    Raises
    ------
    ValueError, TypeError, convlab.Error
        As `convolve`; also for a size below 1.

    Examples
    --------
    >>> import numpy as np, convlab
    >>> convlab.uniform_filter1d(np.array([2, 8, 0, 4, 1, 9, 9, 0], np.float32), 3)
    array([4.       , 3.3333333, 4.       , 1.6666666, 4.6666665, 6.3333335,
           6.       , 3.       ], dtype=float32)
    """
    source = real_array(input, "input")
    (a,) = normalize_axes(axis, max(source.ndim, 1))
    steps = _uniform_steps(max(source.ndim, 1), [size], [mode], cval, [origin], (a,))
    return _passes(source, output, steps, method, device, threads, precision)


def uniform_filter(input, size=3, output=None, mode="reflect", cval=0.0, origin=0, *, axes=None, method="auto",
                   device="auto", threads=0, precision=None):
    """The mean over a box of `size` (one per axis or one for all), as
    ``scipy.ndimage.uniform_filter``.

    Returns
    -------
    ndarray

    Raises
    ------
    ValueError, TypeError, convlab.Error
        As `uniform_filter1d`.

    Examples
    --------
    >>> import numpy as np, convlab
    >>> convlab.uniform_filter(np.arange(16, dtype=np.float32).reshape(4, 4), 3, mode="nearest").round(4)
    array([[ 1.6667,  2.3333,  3.3333,  4.    ],
           [ 4.3333,  5.    ,  6.    ,  6.6667],
           [ 8.3333,  9.    , 10.    , 10.6667],
           [11.    , 11.6667, 12.6667, 13.3333]], dtype=float32)
    """
    source = real_array(input, "input")
    steps = _uniform_steps(source.ndim, size, mode, cval, origin, axes)
    return _passes(source, output, steps, method, device, threads, precision)


def _derivative_steps(ndim, axis, mode, cval, derivative, smooth):
    (a,) = normalize_axes(axis, ndim)
    modes = per_axis(mode, ndim, "mode")
    steps = [(a, np.asarray(derivative, np.float64), _mode_with_cval(modes[a], cval), 0)]
    steps += [(b, np.asarray(smooth, np.float64), _mode_with_cval(modes[b], cval), 0) for b in range(ndim) if b != a]
    return steps


def sobel(input, axis=-1, output=None, mode="reflect", cval=0.0, *, method="auto", device="auto", threads=0,
          precision=None):
    """The Sobel derivative along `axis`, smoothed by 1 2 1 along the others, as
    ``scipy.ndimage.sobel``.

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
    >>> convlab.sobel(np.array([[0, 0, 10, 10]] * 3, np.float32), axis=1)
    array([[ 0., 40., 40.,  0.],
           [ 0., 40., 40.,  0.],
           [ 0., 40., 40.,  0.]], dtype=float32)
    """
    source = real_array(input, "input")
    steps = _derivative_steps(source.ndim, axis, mode, cval, [-1, 0, 1], [1, 2, 1])
    return _passes(source, output, steps, method, device, threads, precision)


def prewitt(input, axis=-1, output=None, mode="reflect", cval=0.0, *, method="auto", device="auto", threads=0,
            precision=None):
    """The Prewitt derivative along `axis`, smoothed by 1 1 1 along the others, as
    ``scipy.ndimage.prewitt``.

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
    >>> convlab.prewitt(np.array([[0, 0, 10, 10]] * 3, np.float32), axis=1)
    array([[ 0., 30., 30.,  0.],
           [ 0., 30., 30.,  0.],
           [ 0., 30., 30.,  0.]], dtype=float32)
    """
    source = real_array(input, "input")
    steps = _derivative_steps(source.ndim, axis, mode, cval, [-1, 0, 1], [1, 1, 1])
    return _passes(source, output, steps, method, device, threads, precision)


def _laplace_sum(input, output, axes, second_derivative, method, device, threads, precision):
    """scipy's generic_laplace: the second derivatives along each axis, added in the output's
    dtype (integers wrap as scipy's in-place sum does)."""
    source = _source(input, precision)
    _check_output(source, output)
    dtype = output_dtype(source.dtype, output)
    filtered = normalize_axes(axes, source.ndim)
    total = None
    for axis in filtered:
        term = second_derivative(source, axis, dtype)
        with np.errstate(invalid="ignore"):  # +inf meeting -inf is NaN, as in scipy's sum
            total = term if total is None else (total + term).astype(dtype, copy=False)
    if total is None:
        total = source.astype(dtype)
    if isinstance(output, np.ndarray):
        np.copyto(output, total, casting="unsafe")
        return output
    return total


def laplace(input, output=None, mode="reflect", cval=0.0, *, axes=None, method="auto", device="auto", threads=0,
            precision=None):
    """The sum of the second differences (1 -2 1) along `axes` (all by default), as
    ``scipy.ndimage.laplace``.

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
    >>> a = np.zeros((3, 3), np.float32); a[1, 1] = 1
    >>> convlab.laplace(a, mode="constant")
    array([[ 0.,  1.,  0.],
           [ 1., -4.,  1.],
           [ 0.,  1.,  0.]], dtype=float32)
    """
    source = real_array(input, "input")
    filtered = normalize_axes(axes, source.ndim)
    modes = dict(zip(filtered, per_axis(mode, len(filtered), "mode")))

    if np.dtype(output_dtype(source.dtype, output)).kind == "f" and len(filtered) == 2 and \
            modes[filtered[0]] == modes[filtered[1]]:
        # Float: one engine run of the 3x3 kernel the two sums make (rank 2); its zero corners
        # skipped, as the two 1-D passes never reach them.
        kernel = np.zeros((3, 3))
        kernel[1] = [1, -2, 1]
        kernel[:, 1] += [1, -2, 1]
        return _nd(True, source, kernel, output, modes[filtered[0]], cval, 0, filtered, None, method, device, threads,
                   precision, "skip", False)

    def second(src, axis, dtype):
        return correlate1d(src, [1.0, -2.0, 1.0], axis, output=dtype, mode=modes[axis], cval=cval, method=method,
                           device=device, threads=threads, precision="float32")
    return _laplace_sum(source, output, filtered, second, method, device, threads, precision)


def gaussian_laplace(input, sigma, output=None, mode="reflect", cval=0.0, *, axes=None, method="auto",
                     device="auto", threads=0, precision=None, **kwargs):
    """The Laplacian of the Gaussian: the sum over `axes` of the Gaussian's second derivative
    along each (order 2 there, 0 along the others), as ``scipy.ndimage.gaussian_laplace``;
    `kwargs` (truncate, radius) go to `gaussian_filter`.

    Returns
    -------
    ndarray

    Raises
    ------
    ValueError, TypeError, convlab.Error
        As `gaussian_filter`.

    Examples
    --------
    >>> import numpy as np, convlab
    >>> a = np.zeros((7, 7), np.float32); a[3, 3] = 1
    >>> float(convlab.gaussian_laplace(a, 1)[3, 3]) < 0
    True
    """
    source = real_array(input, "input")
    filtered = normalize_axes(axes, source.ndim)
    sigmas = per_axis(sigma, len(filtered), "sigma")
    modes = dict(zip(filtered, per_axis(mode, len(filtered), "mode")))

    def second(src, axis, dtype):  # scipy's derivative2: the mode of this axis, for every axis
        orders = [2 if a == axis else 0 for a in filtered]
        return gaussian_filter(src, sigmas, orders, output=dtype, mode=modes[axis], cval=cval, axes=filtered,
                               method=method, device=device, threads=threads, precision="float32", **kwargs)
    return _laplace_sum(source, output, filtered, second, method, device, threads, precision)
