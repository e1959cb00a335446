# SPDX-License-Identifier: GPL-3.0-or-later
"""scipy.ndimage's separable filters on ConvLab's engine (docs/python.md): gaussian, uniform,
sobel, prewitt, laplace and gaussian_laplace, each scipy's sequence of 1-D passes, two of which
the engine may run as one outer product (its separable method)."""
import numpy as np

from ._complex import accepts_complex
from ._mapping import accepts_map
from ._args import (anchor, cast_result, constant_value, kernel_2d, normalize_axes,
                    output_dtype, per_axis, real_array, work_dtype)
from ._limits import check_sides, check_taps, gaussian_taps_limit, sum_gain, sums_beyond_float32
from ._ndimage import _border_and_cval, _check_output, _nd, _Options, _run, _source, correlate1d

__all__ = ["gaussian_filter", "gaussian_filter1d", "uniform_filter", "uniform_filter1d", "sobel", "prewitt",
           "laplace", "gaussian_laplace"]


# ---- separable filters: a sequence of 1-D passes, as scipy runs them ----

def _passes(input, output, steps, method, device, threads, precision):
    """Runs 1-D correlations one axis after another, as scipy does: float results through
    intermediates of the run's float type (_args.work_dtype) (two axes in one engine run where their modes agree: the kernel's
    outer product, rank 1, which the engine runs as row and column passes); integer results
    written after each pass, truncated and wrapped, as scipy's intermediate output array holds
    them. `steps`: (axis, 1-D weights, (border, cval), origin) in order."""
    source = _source(input, precision)
    _check_output(source, output)
    check_sides(source.shape, [step[0] for step in steps])
    work = work_dtype(source, precision, sums_beyond_float32(source, _passes_gain(steps)))
    opts = _Options(method, device, threads)
    dtype = output_dtype(source.dtype, output)
    whole_passes = dtype.kind != "f"
    # scipy writes each pass of a bool result into its bool array as a C cast to a byte, and
    # the next pass reads those bytes (0..255), not 0 and 1: the passes carry uint8.
    pass_dtype = np.dtype(np.uint8) if dtype.kind == "b" else dtype
    current = source
    i = 0
    steps = _in_axis_order(steps, whole_passes)
    while i < len(steps):
        axis, w, (border, cval), origin = steps[i]
        if not whole_passes and i + 1 < len(steps) and steps[i + 1][2] == steps[i][2] and \
                _pass_keeps_the_constant(border, cval, w):
            axis2, w2, _, origin2 = steps[i + 1]
            if axis2 < axis:  # rows along the lower axis: the array's own order, no transposed copy
                axis, w, origin, axis2, w2, origin2 = axis2, w2, origin2, axis, w, origin
            kernel = kernel_2d(np.outer(w, w2), work)
            ay, ax = anchor(origin, kernel.shape[0], axis), anchor(origin2, kernel.shape[1], axis2)
            result, _ = _run(True, current, kernel, (axis, axis2), ax, ay, border, cval, opts)
            i += 2
        else:
            divisor = _uniform_divisor(w)
            # Whole passes read the previous pass's integers, which may be far larger than the
            # input's (a negative sum wrapped into an unsigned type): their float type per pass.
            pass_work = work_dtype(current, precision, sums_beyond_float32(current, _passes_gain([steps[i]]))) \
                if whole_passes else work
            kernel = kernel_2d((np.ones(len(w)) if divisor else np.asarray(w, np.float64)).reshape(1, -1), pass_work)
            ax = anchor(origin, kernel.shape[1], axis)
            # One row of taps: direct, whose float sums are exact where the data and taps allow
            # (auto may take separable, whose SVD factors of a row round it for nothing).
            result, _ = _run(True, current, kernel, (axis,), ax, 0, border, cval, opts.for_integers(kernel))
            if divisor:  # scipy's uniform filter: the sum, then one division (float32's is
                result /= result.dtype.type(divisor)  # correctly rounded: the double's, rounded)
            i += 1
        current = cast_result(result, pass_dtype) if whole_passes else result
    if current is source:  # nothing to filter (every sigma 0, every size 1): scipy's copy
        current = source.astype(dtype)
    elif not whole_passes or pass_dtype != dtype:
        current = cast_result(current, dtype)
    if isinstance(output, np.ndarray):
        np.copyto(output, current, casting="unsafe")
        return output
    return current


def _passes_gain(steps):
    """The largest sum a pass makes, over the largest sample (_limits.check_sum_precision): a
    pass sums its taps' magnitudes times what the passes before it make, a uniform pass `size`
    of them before its one division."""
    gain, before = 0.0, 1.0
    for _, weights, _, _ in steps:
        spread = sum_gain(weights)
        gain = max(gain, (_uniform_divisor(weights) or spread) * before)
        before *= spread
    return gain


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
    value = constant_value(border, cval)
    return value is None or value == 0 or abs(float(np.sum(weights)) - 1.0) <= 1e-12


def _in_axis_order(steps, whole_passes):
    """Float passes commute (unless a constant other than 0 pads an intermediate result): taken
    in the axes' order, float32's rounding is the same for any order the axes are named in
    (axes=(1, 0) as (0, 1)). Integer passes are truncated one after another, so they keep
    scipy's order, the order named."""
    if whole_passes or any(constant_value(*border) not in (None, 0.0) for _, _, border, _ in steps):
        return steps
    return sorted(steps, key=lambda step: step[0])


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
        reach = _radius(s, truncate, r)
        check_taps(2 * reach + 1, f"sigma {s:g} along axis {axis} (radius {reach}"
                   + (f"; below {gaussian_taps_limit(truncate):.4g} at truncate {float(truncate):g})"
                      if r is None else ")"))
        weights = _gaussian_kernel(s, int(o), reach)[::-1]
        steps.append((axis, weights, _border_and_cval(m, cval), 0))
    return steps


@accepts_map
@accepts_complex()
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
    output, mode, cval, method, device, threads, precision, map
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


@accepts_map
@accepts_complex()
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


def _uniform_steps(ndim, size, mode, cval, origin, axes, below_one_left=True):
    """The passes of a uniform filter: one per axis whose size is above 1. scipy's
    uniform_filter leaves an axis of size 0 (or below) as it is, as size 1
    (`below_one_left`); its uniform_filter1d refuses a size below 1."""
    filtered = normalize_axes(axes, ndim)
    n = len(filtered)
    sizes, modes, offsets = per_axis(size, n, "size"), per_axis(mode, n, "mode"), per_axis(origin, n, "origin")
    if below_one_left:
        sizes = [1 if isinstance(s, (int, np.integer)) and s < 1 else s for s in sizes]
    steps = []
    for axis, s, m, o in zip(filtered, sizes, modes, offsets):
        if not isinstance(s, (int, np.integer)) or s < 1:
            raise ValueError(f"size must be a positive integer, got {s!r}")
        check_taps(int(s), f"size {s} along axis {axis}")
        if s > 1:
            steps.append((axis, np.full(int(s), 1.0 / int(s)), _border_and_cval(m, cval), int(o)))
    return steps


@accepts_map
@accepts_complex()
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
    steps = _uniform_steps(max(source.ndim, 1), [size], [mode], cval, [origin], (a,), below_one_left=False)
    return _passes(source, output, steps, method, device, threads, precision)


@accepts_map
@accepts_complex()
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
    steps = [(a, np.asarray(derivative, np.float64), _border_and_cval(modes[a], cval), 0)]
    steps += [(b, np.asarray(smooth, np.float64), _border_and_cval(modes[b], cval), 0) for b in range(ndim) if b != a]
    return steps


@accepts_map
@accepts_complex(pairs=False)  # smooths along every axis but `axis`: no float pairs
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


@accepts_map
@accepts_complex(pairs=False)  # smooths along every axis but `axis`: no float pairs
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


def _laplace_sum(input, output, axes, second_derivative, precision):
    """scipy's generic_laplace: the second derivatives along each axis (each pass judging its
    own float type), added in the output's dtype (integers wrap as scipy's in-place sum does)."""
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


@accepts_map
@accepts_complex()
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
                           device=device, threads=threads, precision=precision)
    return _laplace_sum(source, output, filtered, second, precision)


@accepts_map
@accepts_complex()
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
                               method=method, device=device, threads=threads, precision=precision, **kwargs)
    return _laplace_sum(source, output, filtered, second, precision)
