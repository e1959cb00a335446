# SPDX-License-Identifier: GPL-3.0-or-later
"""The CLI's output mappings (``--map clamp|abs|normalize|offset``, docs/semantics.md, *Output
mapping*) for arrays: `map_samples`, and the ``map=`` keyword every filter takes, which writes
its float32 result as uint8 or uint16 samples through one of them instead of scipy's truncate
and wrap."""
import functools
import inspect

import numpy as np

from ._args import FLOAT32, real_array

OUTPUT_MAPS = ("clamp", "abs", "normalize", "offset")
_MAPPED_DTYPES = (np.dtype(np.uint8), np.dtype(np.uint16))


def nominal_max(dtype):
    """The top of a dtype's nominal range, which the mappings scale from: an integer type's
    largest value (255 for uint8, 65535 for uint16), 1 for floats and bool (the CLI's depth
    tags U8, U16 and F32)."""
    dtype = np.dtype(dtype)
    return float(np.iinfo(dtype).max) if dtype.kind in "iu" else 1.0


def _mapped_dtype(dtype, map):
    if map not in OUTPUT_MAPS:
        raise ValueError(f"map must be one of {', '.join(OUTPUT_MAPS)} (or None for scipy's cast), got {map!r}")
    dtype = np.dtype(dtype)
    if dtype not in _MAPPED_DTYPES:
        raise ValueError(f"map={map!r} writes uint8 or uint16 samples, not {dtype}: "
                         "pass output=np.uint8 or output=np.uint16")
    return dtype


def _round_half_away(r):
    # C's round (the CLI's): halves away from zero, where numpy's rint rounds them to even.
    down = np.floor(r)
    return np.where(r - down >= 0.5, down + 1.0, down)


def map_samples(values, map="clamp", dtype=np.uint8, source_max=1.0):
    """Float values as integer samples, as the CLI writes a result to an 8- or 16-bit file.

    Parameters
    ----------
    values : array_like
        Real numbers (a filter's float result).
    map : {'clamp', 'abs', 'normalize', 'offset'}, optional
        With ``dst`` the dtype's largest value: 'clamp' ``v * dst / source_max``; 'abs' its
        magnitude; 'normalize' ``(v - lo) / (hi - lo) * dst`` with lo, hi the smallest and
        largest finite value (0 everywhere when hi <= lo); 'offset' ``v * dst / source_max +
        (dst + 1) / 2`` (zero at mid-grey). Then clamped to ``[0, dst]`` and rounded to the
        nearest integer, halves away from zero; NaN becomes 0.
    dtype : {numpy.uint8, numpy.uint16}, optional
        The samples' type.
    source_max : float, optional
        The top of the values' nominal range: 255 for values of 8-bit samples, 65535 for
        16-bit, 1 for floats in 0..1.

    Returns
    -------
    ndarray of `dtype`, the shape of `values`

    Raises
    ------
    ValueError
        An unknown mapping, a dtype other than uint8 and uint16, or a `source_max` that is not a
        positive finite number.

    Examples
    --------
    >>> import numpy as np, convlab
    >>> convlab.map_samples([-0.5, 0.25, 2.0])
    array([  0,  64, 255], dtype=uint8)
    >>> convlab.map_samples([-40.0, 0.0, 40.0], "offset", source_max=255)
    array([ 88, 128, 168], dtype=uint8)
    """
    dtype = _mapped_dtype(dtype, map)
    source_max = float(source_max)
    if not (np.isfinite(source_max) and source_max > 0):
        raise ValueError(f"source_max must be a positive finite number, got {source_max}")
    v = np.asarray(real_array(values, "values"), np.float64)
    dst = float(np.iinfo(dtype).max)
    with np.errstate(invalid="ignore", over="ignore"):
        if map == "normalize":
            finite = v[np.isfinite(v)]
            lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
            r = (v - lo) / (hi - lo) * dst if hi > lo else np.zeros_like(v)
        else:
            r = v * dst / source_max
            if map == "abs":
                r = np.abs(r)
            elif map == "offset":
                r = r + (dst + 1.0) / 2.0
        r = np.where(np.isnan(r), 0.0, np.clip(r, 0.0, dst))
    return _round_half_away(r).astype(dtype)


def accepts_map(filter_function):
    """Gives a filter the keyword ``map``: None keeps the filter's own writing (scipy's cast);
    a mapping's name filters in float32 and writes the result as `map_samples` does, into
    `output` (a uint8 or uint16 array or dtype; by default the input's, which must then be one
    of those), scaled from the input dtype's nominal range (`nominal_max`)."""
    signature = inspect.signature(filter_function)
    if "output" not in signature.parameters:
        raise TypeError(f"{filter_function.__name__} has no output parameter to map into")

    @functools.wraps(filter_function)
    def filtered(input, *args, map=None, **kwargs):
        if map is None:
            return filter_function(input, *args, **kwargs)
        bound = signature.bind(input, *args, **kwargs)
        output = bound.arguments.get("output")
        source = real_array(input, "input")
        wanted = output.dtype if isinstance(output, np.ndarray) else np.dtype(output) if output is not None \
            else source.dtype
        dtype = _mapped_dtype(wanted, map)  # fails before any filtering
        if isinstance(output, np.ndarray):
            if output.shape != source.shape:
                raise ValueError(f"output's shape {output.shape} differs from the input's {source.shape}")
            if not output.flags.writeable:
                raise ValueError("output is read-only")
        bound.arguments["output"] = FLOAT32
        bound.arguments["input"] = source
        result = filter_function(*bound.args, **bound.kwargs)
        report = None
        if isinstance(result, tuple):  # return_report=True
            result, report = result
        mapped = map_samples(result, map, dtype, nominal_max(source.dtype))
        if isinstance(output, np.ndarray):
            np.copyto(output, mapped)
            mapped = output
        return mapped if report is None else (mapped, report)

    params = list(signature.parameters.values())
    extra = inspect.Parameter("map", inspect.Parameter.KEYWORD_ONLY, default=None)
    at = next((i for i, p in enumerate(params) if p.kind == inspect.Parameter.VAR_KEYWORD), len(params))
    filtered.__signature__ = signature.replace(parameters=params[:at] + [extra] + params[at:])
    return filtered
