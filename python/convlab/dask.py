# SPDX-License-Identifier: GPL-3.0-or-later
"""convlab's filters for dask arrays, chunk by chunk: convolve, correlate, their 1-D forms,
gaussian_filter(1d), uniform_filter(1d), sobel, prewitt, laplace and gaussian_laplace.

Each result equals the in-memory function's on the whole array, bit for bit with a fixed
method ('auto' plans each block for its window and may pick another method there: then within
the methods' tolerance), seams and edges included, for every mode (wrap and grid-wrap too, whose
samples beyond an end are the other side's, and mirror, which dask's own boundaries lack), on
any chunking (chunks of one sample, uneven chunks, kernels larger than a chunk or than the
array). Each output chunk is one task that runs the in-memory function on the chunk and its
halo (the filter's reach per axis, from the helpers that size its kernels) and crops the chunk:
the modes, scipy's rule for NaN and zero taps, the dtypes, ``axes`` and ``channel_axis`` are
the in-memory function's own (_dask_blocks.py says how the halo is gathered).

Arguments are checked when the graph is built, by the in-memory front end's own checks (no
engine run): a bad call fails at the call, not on a worker. The result is lazy, with the
input's chunks and dtype. ``threads`` is the engine's threads per block (dask runs the blocks in
parallel); ``device`` defaults to the CPU.
"""
import numpy as np

from ._args import anchor, check_engine_arguments, normalize_axes, origins, per_axis, real_array
from ._dask_blocks import AxisWindows, Call, blockwise, border_name, borders_of, window_reach  # noqa: F401
from ._limits import check_sides, check_taps
from . import _ndimage, _separable
from ._ndimage import _border_and_cval, _Options, _source, _weights_on_axes

__all__ = ["convolve", "correlate", "convolve1d", "correlate1d", "gaussian_filter", "gaussian_filter1d",
           "uniform_filter", "uniform_filter1d", "sobel", "prewitt", "laplace", "gaussian_laplace"]

_ENGINE = dict(method="auto", device="cpu", threads=1, precision=None)


def _dask_input(image, precision):
    """`image` as a dask array, and a stand-in of its shape and dtype (no memory) on which the
    in-memory front end's checks run: a real dtype, at least one axis, not empty, precision."""
    import dask.array as da
    x = da.asarray(image)
    if any(np.isnan(c) for chunks in x.chunks for c in chunks):
        raise ValueError(f"input has unknown chunk sizes {x.chunks} (e.g. after boolean indexing): the "
                         "windows of each chunk need them; call x.compute_chunk_sizes() first")
    stand_in = np.lib.stride_tricks.as_strided(np.zeros(1, x.dtype), x.shape, (0,) * x.ndim, writeable=False)
    _source(stand_in, precision)
    return x, stand_in


def _engine_options(engine, zero_taps="skip", weights=None):
    """The engine's keywords of a call, checked as the in-memory functions check them."""
    unknown = sorted(set(engine) - set(_ENGINE))
    if unknown:
        raise TypeError(f"unexpected keyword argument {unknown[0]!r} (the engine's: {', '.join(_ENGINE)})")
    options = dict(_ENGINE, **engine)
    _Options(options["method"], options["device"], options["threads"], zero_taps)
    check_engine_arguments(np.zeros(1) if weights is None else weights, options["method"])
    return options


def _steps_reach(ndim, steps):
    """Per axis, (before, after) of the 1-D correlations `steps` (the in-memory separable
    filters' plans: axis, weights, (border, cval), origin), and each filtered axis's border."""
    reach, borders = [(0, 0)] * ndim, ["constant"] * ndim
    for axis, weights, (border, _), origin in steps:
        before = anchor(origin, len(weights), axis)
        reach[axis] = (max(reach[axis][0], before), max(reach[axis][1], len(weights) - 1 - before))
        borders[axis] = border_name(border)
    return reach, borders


def _run(function, name, x, reach, borders, args, kwargs):
    return blockwise(x, Call(function, args, kwargs), reach, borders, name)


# ---- convolve and correlate ----

def _correlation(correlate_, image, weights, mode, cval, origin, axes, channel_axis, zero_taps, engine):
    x, stand_in = _dask_input(image, engine.get("precision"))
    w = real_array(weights, "weights")
    if w.ndim == 0:
        raise ValueError("weights must have at least one axis, got a scalar")
    w, origin, filtered, weight_axes = _weights_on_axes(stand_in, w, origin, axes, channel_axis)
    axes = None if channel_axis is None else axes  # named axes are in the weights now
    check_sides(x.shape, filtered)
    offsets = origins(origin, w.ndim)
    reach = [(0, 0)] * x.ndim
    for axis, weight_axis in zip(filtered, weight_axes):
        size = w.shape[weight_axis]
        check_taps(size, f"weights of shape {w.shape}")
        reach[axis] = window_reach((size,), (anchor(offsets[weight_axis], size, axis),), correlate_)[0]
    _border_and_cval(mode, cval)
    options = _engine_options(engine, zero_taps, w)
    function = _ndimage.correlate if correlate_ else _ndimage.convolve
    kwargs = dict(mode=mode, cval=cval, origin=origin, axes=axes, channel_axis=channel_axis, zero_taps=zero_taps,
                  **options)
    return _run(function, function.__name__, x, reach, borders_of(mode, filtered, x.ndim), (w,), kwargs)


def convolve(image, weights, mode="reflect", cval=0.0, origin=0, *, axes=None, channel_axis=None, zero_taps="skip",
             **engine):
    """``convlab.convolve`` on a dask array.

    Parameters
    ----------
    image : dask.array.Array or array_like
    weights, mode, cval, origin, axes, channel_axis, zero_taps
        As ``convlab.convolve``.
    **engine
        method, device ('cpu' by default), threads (engine threads per block, 1 by default),
        precision: as ``convlab.convolve``.

    Returns
    -------
    dask.array.Array
        Lazy, with the input's chunks and dtype; equal to ``convlab.convolve`` of the whole array.

    Raises
    ------
    ValueError, TypeError, convlab.Error
        When the graph is built, as ``convlab.convolve`` would for the whole array.

    Examples
    --------
    >>> import numpy as np, dask.array as da, convlab.dask
    >>> x = da.from_array(np.ones((6, 6), np.float32), chunks=3)
    >>> float(convlab.dask.convolve(x, np.ones((3, 3), np.float32) / 9).compute().round(6).max())
    1.0
    """
    return _correlation(False, image, weights, mode, cval, origin, axes, channel_axis, zero_taps, engine)


def correlate(image, weights, mode="reflect", cval=0.0, origin=0, *, axes=None, channel_axis=None, zero_taps="skip",
              **engine):
    """``convlab.correlate`` on a dask array (parameters as `convolve`).

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
    return _correlation(True, image, weights, mode, cval, origin, axes, channel_axis, zero_taps, engine)


def _one_d(correlate_, image, weights, axis, mode, cval, origin, engine):
    x, _ = _dask_input(image, engine.get("precision"))
    w = real_array(weights, "weights")
    if w.ndim != 1:
        raise ValueError(f"weights must be 1-D, got shape {w.shape}")
    (a,) = normalize_axes(axis, x.ndim)
    check_sides(x.shape, (a,))
    check_taps(w.size, f"weights of shape {w.shape}")
    reach = [(0, 0)] * x.ndim
    reach[a] = window_reach((w.size,), (anchor(origins(origin, 1)[0], w.size, a),), correlate_)[0]
    _border_and_cval(mode, cval)
    options = _engine_options(engine, weights=w)
    function = _ndimage.correlate1d if correlate_ else _ndimage.convolve1d
    return _run(function, function.__name__, x, reach, borders_of(mode, (a,), x.ndim), (w, a),
                dict(mode=mode, cval=cval, origin=origin, **options))


def correlate1d(image, weights, axis=-1, mode="reflect", cval=0.0, origin=0, **engine):
    """``convlab.correlate1d`` on a dask array (engine keywords as `convolve`).

    Returns
    -------
    dask.array.Array

    Raises
    ------
    ValueError, TypeError, convlab.Error
        As ``convlab.correlate1d``, when the graph is built.

    Examples
    --------
    >>> import numpy as np, dask.array as da, convlab.dask
    >>> x = da.from_array(np.array([2, 8, 0, 4, 1, 9, 9, 0]), chunks=3)
    >>> convlab.dask.correlate1d(x, [1, 3]).compute()
    array([ 8, 26,  8, 12,  7, 28, 36,  9])
    """
    return _one_d(True, image, weights, axis, mode, cval, origin, engine)


def convolve1d(image, weights, axis=-1, mode="reflect", cval=0.0, origin=0, **engine):
    """``convlab.convolve1d`` on a dask array: `correlate1d` with the weights mirrored (and
    the origin with them), as scipy's.

    Returns
    -------
    dask.array.Array

    Raises
    ------
    ValueError, TypeError, convlab.Error
        As ``convlab.convolve1d``, when the graph is built.

    Examples
    --------
    >>> import numpy as np, dask.array as da, convlab.dask
    >>> signal = da.arange(6, chunks=4, dtype=np.float32)
    >>> convlab.dask.convolve1d(signal, [1, 0, -1], mode="wrap").compute()
    array([-4.,  2.,  2.,  2.,  2., -4.], dtype=float32)
    """
    return _one_d(False, image, weights, axis, mode, cval, origin, engine)


# ---- the separable filters: their plans of 1-D passes give the reach ----

def _passes(function, x, steps, args, kwargs, engine):
    reach, borders = _steps_reach(x.ndim, steps)
    options = _engine_options(engine)
    return _run(function, function.__name__, x, reach, borders, args, dict(kwargs, **options))


def gaussian_filter(image, sigma, order=0, mode="reflect", cval=0.0, truncate=4.0, *, radius=None, axes=None,
                    **engine):
    """``convlab.gaussian_filter`` on a dask array (engine keywords as `convolve`).

    Returns
    -------
    dask.array.Array

    Raises
    ------
    ValueError, TypeError, convlab.Error
        As ``convlab.gaussian_filter``, when the graph is built.

    Examples
    --------
    >>> import numpy as np, dask.array as da, convlab.dask
    >>> a = np.zeros((5, 5), np.float32); a[2, 2] = 1
    >>> float(convlab.dask.gaussian_filter(da.from_array(a, chunks=2), 1, mode="wrap").sum().compute().round(6))
    1.0
    """
    x, _ = _dask_input(image, engine.get("precision"))
    steps = _separable._gaussian_steps(x.ndim, sigma, order, mode, cval, truncate, radius, axes)
    return _passes(_separable.gaussian_filter, x, steps, (sigma, order),
                      dict(mode=mode, cval=cval, truncate=truncate, radius=radius, axes=axes), engine)


def gaussian_filter1d(image, sigma, axis=-1, order=0, mode="reflect", cval=0.0, truncate=4.0, *, radius=None,
                      **engine):
    """``convlab.gaussian_filter1d`` on a dask array (engine keywords as `convolve`).

    Returns
    -------
    dask.array.Array

    Raises
    ------
    ValueError, TypeError, convlab.Error
        As ``convlab.gaussian_filter1d``, when the graph is built.

    Examples
    --------
    >>> import numpy as np, dask.array as da, convlab.dask
    >>> x = da.from_array(np.array([1, 2, 3, 4, 5], np.float32), chunks=2)
    >>> convlab.dask.gaussian_filter1d(x, 1).compute().round(4)
    array([1.427 , 2.0678, 3.    , 3.9322, 4.573 ], dtype=float32)
    """
    x, _ = _dask_input(image, engine.get("precision"))
    (a,) = normalize_axes(axis, x.ndim)
    steps = _separable._gaussian_steps(x.ndim, [sigma], [order], [mode], cval, truncate, [radius], (a,))
    return _passes(_separable.gaussian_filter1d, x, steps, (sigma, a, order),
                      dict(mode=mode, cval=cval, truncate=truncate, radius=radius), engine)


def uniform_filter(image, size=3, mode="reflect", cval=0.0, origin=0, *, axes=None, **engine):
    """``convlab.uniform_filter`` on a dask array (engine keywords as `convolve`).

    Returns
    -------
    dask.array.Array

    Raises
    ------
    ValueError, TypeError, convlab.Error
        As ``convlab.uniform_filter``, when the graph is built.

    Examples
    --------
    >>> import numpy as np, dask.array as da, convlab.dask
    >>> x = da.from_array(np.arange(16, dtype=np.float32).reshape(4, 4), chunks=(1, 3))
    >>> convlab.dask.uniform_filter(x, 3, mode="wrap").compute()[0, 0]
    np.float32(6.666667)
    """
    x, _ = _dask_input(image, engine.get("precision"))
    steps = _separable._uniform_steps(x.ndim, size, mode, cval, origin, axes)
    return _passes(_separable.uniform_filter, x, steps, (size,),
                      dict(mode=mode, cval=cval, origin=origin, axes=axes), engine)


def uniform_filter1d(image, size, axis=-1, mode="reflect", cval=0.0, origin=0, **engine):
    """``convlab.uniform_filter1d`` on a dask array (engine keywords as `convolve`).

    Returns
    -------
    dask.array.Array

    Raises
    ------
    ValueError, TypeError, convlab.Error
        As ``convlab.uniform_filter1d``, when the graph is built.

    Examples
    --------
    >>> import numpy as np, dask.array as da, convlab.dask
    >>> x = da.from_array(np.array([2, 8, 0, 4, 1, 9, 9, 0], np.float32), chunks=3)
    >>> convlab.dask.uniform_filter1d(x, 3, mode="nearest").compute()[-1]
    np.float32(3.0)
    """
    x, _ = _dask_input(image, engine.get("precision"))
    (a,) = normalize_axes(axis, x.ndim)
    steps = _separable._uniform_steps(x.ndim, [size], [mode], cval, [origin], (a,), below_one_left=False)
    return _passes(_separable.uniform_filter1d, x, steps, (size, a), dict(mode=mode, cval=cval, origin=origin),
                      engine)


def _derivative(function, smooth, image, axis, mode, cval, engine):
    x, _ = _dask_input(image, engine.get("precision"))
    steps = _separable._derivative_steps(x.ndim, axis, mode, cval, [-1, 0, 1], smooth)
    return _passes(function, x, steps, (axis,), dict(mode=mode, cval=cval), engine)


def sobel(image, axis=-1, mode="reflect", cval=0.0, **engine):
    """``convlab.sobel`` on a dask array (engine keywords as `convolve`).

    Returns
    -------
    dask.array.Array

    Raises
    ------
    ValueError, TypeError, convlab.Error
        As ``convlab.sobel``, when the graph is built.

    Examples
    --------
    >>> import numpy as np, dask.array as da, convlab.dask
    >>> x = da.from_array(np.array([[0, 0, 10, 10]] * 3, np.float32), chunks=1)
    >>> convlab.dask.sobel(x, axis=1).compute()[0]
    array([ 0., 40., 40.,  0.], dtype=float32)
    """
    return _derivative(_separable.sobel, [1, 2, 1], image, axis, mode, cval, engine)


def prewitt(image, axis=-1, mode="reflect", cval=0.0, **engine):
    """``convlab.prewitt`` on a dask array: `sobel` with 1 1 1 across the derivative.

    Returns
    -------
    dask.array.Array

    Raises
    ------
    ValueError, TypeError, convlab.Error
        As ``convlab.prewitt``, when the graph is built.

    Examples
    --------
    >>> import numpy as np, dask.array as da, convlab.dask
    >>> convlab.dask.prewitt(da.eye(4, chunks=3, dtype=np.float32), axis=0, mode="wrap").compute()[:, 0]
    array([ 0., -1.,  0.,  1.], dtype=float32)
    """
    return _derivative(_separable.prewitt, [1, 1, 1], image, axis, mode, cval, engine)


def laplace(image, mode="reflect", cval=0.0, *, axes=None, **engine):
    """``convlab.laplace`` on a dask array (engine keywords as `convolve`).

    Returns
    -------
    dask.array.Array

    Raises
    ------
    ValueError, TypeError, convlab.Error
        As ``convlab.laplace``, when the graph is built.

    Examples
    --------
    >>> import numpy as np, dask.array as da, convlab.dask
    >>> a = np.zeros((3, 3), np.float32); a[1, 1] = 1
    >>> convlab.dask.laplace(da.from_array(a, chunks=2), mode="constant").compute()[1]
    array([ 1., -4.,  1.], dtype=float32)
    """
    x, _ = _dask_input(image, engine.get("precision"))
    filtered = normalize_axes(axes, x.ndim)
    modes = per_axis(mode, len(filtered), "mode")
    steps = [(a, [1.0, -2.0, 1.0], _border_and_cval(m, cval), 0) for a, m in zip(filtered, modes)]
    return _passes(_separable.laplace, x, steps, (), dict(mode=mode, cval=cval, axes=axes), engine)


def gaussian_laplace(image, sigma, mode="reflect", cval=0.0, *, axes=None, truncate=4.0, radius=None, **engine):
    """``convlab.gaussian_laplace`` on a dask array (engine keywords as `convolve`).

    Returns
    -------
    dask.array.Array

    Raises
    ------
    ValueError, TypeError, convlab.Error
        As ``convlab.gaussian_laplace``, when the graph is built.

    Examples
    --------
    >>> import numpy as np, dask.array as da, convlab.dask
    >>> a = np.zeros((7, 7), np.float32); a[3, 3] = 1
    >>> float(convlab.dask.gaussian_laplace(da.from_array(a, chunks=3), 1).compute()[3, 3]) < 0
    True
    """
    x, _ = _dask_input(image, engine.get("precision"))
    filtered = normalize_axes(axes, x.ndim)
    steps = _separable._gaussian_steps(x.ndim, sigma, 0, mode, cval, truncate, radius, axes)
    return _passes(_separable.gaussian_laplace, x, steps, (sigma,),
                      dict(mode=mode, cval=cval, axes=filtered, truncate=truncate, radius=radius), engine)
