# SPDX-License-Identifier: GPL-3.0-or-later
"""Complex inputs and weights (complex64, complex128) as scipy.ndimage defines them: the real
and imaginary parts filtered as real arrays and combined (docs/python.md, *Complex numbers*).
A filter is linear, so with x = xr + i·xi, w = wr + i·wi and cval = cr + i·ci,

    filter(x, w) = filter(xr, wr, cr) - filter(xi, wi, ci) + i·(filter(xr, wi, cr) + filter(xi, wr, ci)),

two real runs for a complex input or complex weights, four for both (_filter_parts). A
complex input whose parts share their constant goes faster as float pairs, (..., 2): both
parts in one run, as two channels (_filter_pairs). correlate and correlate1d correlate with
the conjugate weights, as numpy's correlate and scipy's do.
"""
import functools
import inspect
import numbers
import warnings

import numpy as np

from ._args import normalize_axes
from ._device import gpu_array_kind


class ComplexOutputError(TypeError, RuntimeError):
    """An output array (or dtype name) that cannot hold a complex result: a TypeError, and the
    RuntimeError scipy.ndimage raises there."""


def _is_complex(value):
    if value is None or gpu_array_kind(value) is not None:
        return False  # GPU arrays go their own way (convlab._device), which says what it takes
    dtype = value.dtype if isinstance(value, np.ndarray) else np.asarray(value).dtype
    return dtype.kind == "c"


def complex_output(input_dtype, output, shape):
    """The result's complex dtype and the caller's array to write it in (or None), as scipy's
    rule for complex results: the input's dtype promoted to complex by default; a real dtype
    given as a type is promoted with a warning; a real array or a real dtype name is refused."""
    if output is None:
        return np.promote_types(input_dtype, np.complex64), None
    if isinstance(output, np.ndarray):
        if output.dtype.kind != "c":
            raise ComplexOutputError(f"output must have complex dtype: the result is complex, the output array "
                                     f"is {output.dtype}")
        if output.shape != shape:
            raise ValueError(f"output's shape {output.shape} differs from the input's {shape}")
        if not output.flags.writeable:
            raise ValueError("output is read-only")
        return output.dtype, output
    dtype = np.dtype(output)
    if dtype.kind != "c":
        if isinstance(output, str):
            raise ComplexOutputError(f"output must have complex dtype: the result is complex, output={output!r}")
        warnings.warn(f"promoting specified output dtype to complex: the result is complex, output={dtype}",
                      UserWarning, stacklevel=5)  # the caller, past the two decorators
        dtype = np.promote_types(dtype, np.complex64)
    return dtype, None


def _real_and_imaginary(cval):
    if not isinstance(cval, (numbers.Number, np.number)):
        raise TypeError(f"cval must be a number, got {cval!r}")
    c = complex(cval)
    return c.real, c.imag


def _filter_complex(function, conjugate, pairs, bound):
    """`function` (a real filter) applied to the parts of the complex input or weights in
    `bound`, its arguments, and the parts combined into the complex result."""
    args = bound.arguments
    x = np.asarray(args["input"])
    w = np.asarray(args["weights"]) if "weights" in args else None
    if args.get("return_report"):
        raise ValueError("return_report is for real inputs: a complex one runs the engine two or four times")
    dtype, into = complex_output(x.dtype, args.get("output"), x.shape)
    cval = _real_and_imaginary(args.get("cval", 0.0))
    if w is not None and w.dtype.kind == "c" and conjugate:
        w = w.conj()
    named = _pair_axes(args, x, w, into, cval) if pairs else None
    if named is not None:
        return _filter_pairs(function, bound, x, w, dtype, into, named)
    return _filter_parts(function, bound, x, w, dtype, into, cval)


def _pair_axes(args, x, w, into, cval):
    """The axis arguments (`axes` or `axis`, made non-negative) under which the call can filter
    a complex input as pairs of floats, (..., 2), its parts two channels of one run: a filter
    that filters only the axes it names (`pairs`), no channel_axis, the
    same constant for both parts, a C-order output array if any. None when it cannot."""
    if x.dtype.kind != "c" or x.ndim == 0 or cval[0] != cval[1] or args.get("channel_axis") is not None:
        return None
    if into is not None and not into.flags.c_contiguous:
        return None
    if "axes" in args:
        axes = normalize_axes(args["axes"], x.ndim)
        return {"axes": axes} if w is None or w.ndim == len(axes) else None
    if "axis" in args:
        return {"axis": normalize_axes(args["axis"], x.ndim)[0]}
    return None


def _filter_pairs(function, bound, x, w, dtype, into, named):
    """The complex input seen as (..., 2) floats and filtered over its own axes, so that both
    parts go through one engine run (the engine's channels), written into the result's own
    float pairs: no copy of the parts out or back. Complex weights take two such runs."""
    args = bound.arguments
    pairs = np.ascontiguousarray(x).view(x.real.dtype).reshape(x.shape + (2,))
    result = into if into is not None else np.empty(x.shape, dtype)
    out = result.view(result.real.dtype).reshape(x.shape + (2,))
    args.update(named, input=pairs, cval=float(np.real(args.get("cval", 0.0))))
    if w is None or w.dtype.kind != "c":
        args["output"] = out
        function(*bound.args, **bound.kwargs)
        return result
    args.update(weights=w.real, output=out.dtype)
    by_real = function(*bound.args, **bound.kwargs)
    args["weights"] = w.imag
    by_imaginary = function(*bound.args, **bound.kwargs)
    np.subtract(by_real[..., 0], by_imaginary[..., 1], out=out[..., 0])
    np.add(by_imaginary[..., 0], by_real[..., 1], out=out[..., 1])
    return result


def _filter_parts(function, bound, x, w, dtype, into, cval):
    """The parts filtered one by one as real arrays (two runs, four for complex input and
    weights), each with its part of `cval`, and combined."""
    args = bound.arguments
    part_dtype = np.empty(0, dtype).real.dtype
    cr, ci = cval

    def run(part, weights, c):
        args.update(input=part, output=part_dtype, cval=c)
        if w is not None:
            args["weights"] = weights
        return function(*bound.args, **bound.kwargs)

    if w is not None and w.dtype.kind == "c":
        if x.dtype.kind == "c":
            real = run(x.real, w.real, cr) - run(x.imag, w.imag, ci)
            imaginary = run(x.real, w.imag, cr) + run(x.imag, w.real, ci)
        else:
            if ci != 0:
                raise ValueError(f"cval {args.get('cval')!r} is complex and the input real: the constant outside a "
                                 "real input is real")
            real, imaginary = run(x, w.real, cr), run(x, w.imag, cr)
    else:
        real, imaginary = run(x.real, w, cr), run(x.imag, w, ci)
    result = into if into is not None else np.empty(x.shape, dtype)
    result.real, result.imag = real, imaginary
    return result


def _is_complex_output(output):
    """Whether `output` is a complex array or dtype (anything else is the filter's to judge)."""
    if output is None or isinstance(output, np.ndarray):
        return output is not None and output.dtype.kind == "c"
    try:
        return np.dtype(output).kind == "c"
    except TypeError:
        return False


def _real_into_complex(function, bound):
    """A real call whose `output` is complex: the real result, written as the real part."""
    args = bound.arguments
    if args.get("return_report"):
        raise ValueError("return_report is for real outputs")
    x = np.asarray(args["input"])
    dtype, into = complex_output(x.dtype, args["output"], x.shape)
    args["output"] = np.empty(0, dtype).real.dtype
    real = function(*bound.args, **bound.kwargs)
    result = into if into is not None else np.empty(x.shape, dtype)
    result.real, result.imag = real, 0
    return result


def accepts_complex(conjugate=False, pairs=True):
    """Gives a real filter scipy's complex inputs (and complex weights, for a filter that takes
    weights): `conjugate` for the correlations, which use the weights' conjugate; `pairs` for a
    filter that touches only the axes its `axes` or `axis` names (not sobel and prewitt, which
    smooth along every other axis), so that a complex input may go as float pairs. Real
    arguments go straight through; the check reads the dtypes of `input` and `weights` only."""
    def decorate(function):
        signature = inspect.signature(function)
        takes_weights = "weights" in signature.parameters
        output_at = list(signature.parameters).index("output")

        @functools.wraps(function)
        def filtered(*args, **kwargs):
            x = args[0] if args else kwargs.get("input")
            w = (args[1] if len(args) > 1 else kwargs.get("weights")) if takes_weights else None
            if not (_is_complex(x) or _is_complex(w)):
                output = args[output_at] if len(args) > output_at else kwargs.get("output")
                if not _is_complex_output(output):
                    return function(*args, **kwargs)
                bound = signature.bind(*args, **kwargs)
                bound.apply_defaults()
                return _real_into_complex(function, bound)
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            return _filter_complex(function, conjugate, pairs, bound)
        return filtered
    return decorate
