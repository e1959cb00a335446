# SPDX-License-Identifier: GPL-3.0-or-later
"""Argument handling shared by convlab's filters and convlab.dask: the mode names, the
kernel, scipy's origin as ConvLab's anchor, the axes a call filters, and how a float32 result
becomes the caller's dtype and which float type the engine computes in (docs/python.md, *Dtypes*)."""
import numbers
import operator

import numpy as np

from ._convlab import Error, border_name as _engine_border_name

FLOAT32 = np.dtype(np.float32)
FLOAT64 = np.dtype(np.float64)


class PrecisionWarning(UserWarning):
    """Kept for programs that filter it: float64 inputs are computed in float64 now, and
    precision='float32' asks for float32 without a warning."""


class ArgumentCountError(ValueError, RuntimeError):
    """A per-axis argument (sigma, size, origin, mode, ...) or weights whose number of values or
    axes does not match the axes filtered: a ValueError, and the RuntimeError scipy.ndimage
    raises there (its message's first words are scipy's, for code that matches them)."""


class OutputShapeError(ValueError, RuntimeError):
    """An `output` array whose shape is not the input's: a ValueError, and the RuntimeError
    scipy.ndimage raises there."""


SCIPY_LENGTH_MESSAGE = "sequence argument must have length equal to input rank"


# scipy.ndimage's mode names and the ConvLab border mode each one is (docs/semantics.md,
# Border modes). For these filters scipy treats the grid- forms as the plain ones.
SCIPY_MODES = {
    "reflect": "reflect",       # cba|abcd|dcb, the edge sample repeated
    "grid-mirror": "reflect",
    "mirror": "mirror",         # dcb|abcd|cba (OpenCV's BORDER_REFLECT_101)
    "nearest": "replicate",     # aaa|abcd|ddd
    "wrap": "wrap",             # bcd|abcd|abc
    "grid-wrap": "wrap",
    "constant": "constant",     # cval outside
    "grid-constant": "constant",
}


def border_name(mode):
    """ConvLab's name for `mode`, a scipy or ConvLab name ("nearest" -> "replicate")."""
    scipy_name = SCIPY_MODES.get(mode) if type(mode) is str else None  # the common case, first
    if scipy_name is not None:
        return scipy_name
    if not isinstance(mode, str):
        raise TypeError(f"mode must be a string, got {type(mode).__name__}")
    scipy_name = SCIPY_MODES.get(mode.lower())
    if scipy_name is not None:
        return scipy_name
    try:
        return _engine_border_name(mode)
    except Error as e:
        raise Error(f"{e}; scipy's names: {', '.join(SCIPY_MODES)}") from None


def engine_border(mode):
    """The mode as the engine reads it: ConvLab's name, or "constant:VALUE" as written."""
    name = border_name(mode)
    return mode if ":" in mode or "=" in mode else name


def constant_value(border, cval):
    """For an engine border string (engine_border's), the constant it pads with: the value
    written in it ("constant:2.5") or `cval`; None for a mode that is not constant."""
    name, sep, value = border.replace("=", ":").partition(":")
    if border_name(name) != "constant":
        return None
    return float(value) if sep else float(cval)


def real_array(value, what):
    """`value` as an ndarray of real numbers, or TypeError saying what it is instead. An array
    in GPU memory that reaches here (a filter that does not take them) is refused with what to
    do: numpy would copy it to the host, or fail with a misleading dtype."""
    from ._device import gpu_array_kind  # _device imports this module
    kind = gpu_array_kind(value)
    if kind is not None:
        raise TypeError(f"{what} is a {type(value).__module__}.{type(value).__name__} in {kind} memory: "
                        "convolve, correlate, convolve1d and correlate1d filter GPU arrays where they lie; "
                        "this filter takes host arrays (docs/python.md, GPU arrays): copy it to the host "
                        "(e.g. cupy.asnumpy(x), x.cpu().numpy()) or use cupyx.scipy.ndimage on the device")
    array = np.asarray(value)
    if array.dtype.kind not in "fiub":
        raise TypeError(f"{what} has dtype {array.dtype}: ConvLab filters real numbers "
                        "(float, integer or bool arrays)")
    return array


def kernel_2d(weights, dtype=FLOAT32):
    """A 2-D kernel as the engine takes it: C-order, of the float type the run computes in
    (work_dtype; no copy when it already is). The kernel's dtype chooses the engine's route."""
    if weights.size == 0:
        raise ValueError(f"weights of shape {weights.shape} are empty")
    return np.ascontiguousarray(weights, dtype=dtype)


def origins(origin, count, what="origin"):
    """scipy's origin, an int or one per filtered axis, as a list of `count` ints."""
    if type(origin) is int or isinstance(origin, numbers.Integral):  # an int first: the ABC's
        return [int(origin)] * count                                   # check takes a quarter µs
    per_axis = list(np.atleast_1d(origin))
    if len(per_axis) != count:
        raise ArgumentCountError(f"{SCIPY_LENGTH_MESSAGE}: {what} must be an int or one per filtered axis "
                                 f"({count}), got {origin!r}")
    if not all(isinstance(o, numbers.Integral) for o in per_axis):
        raise TypeError(f"{what} must be integers, got {origin!r}")
    return [int(o) for o in per_axis]


def anchor(o, size, axis):
    """The anchor in the kernel as written along one axis, for scipy's origin `o` there.

    scipy's origin shifts the kernel's centre from size // 2, for convolve and correlate and
    for even sizes too, so the anchor is origin + size // 2 (docs/semantics.md, Convolution and
    correlation); scipy allows -(size // 2) <= origin <= (size - 1) // 2: exactly the anchors
    inside the kernel."""
    if not -(size // 2) <= o <= (size - 1) // 2:
        raise ValueError(f"origin {o} along axis {axis} is outside {-(size // 2)}..{(size - 1) // 2} "
                         f"for weights of size {size} there")
    return o + size // 2


def normalize_axes(axes, ndim):
    """`axes` (an int or a sequence) as a tuple of distinct non-negative axes of an ndim array."""
    if axes is None:
        return tuple(range(ndim))
    listed = [axes] if isinstance(axes, numbers.Integral) or np.ndim(axes) == 0 else list(axes)
    out = []
    for a in listed:
        a = operator.index(a)  # TypeError: '...' object cannot be interpreted as an integer (scipy's)
        if not -ndim <= a < ndim:
            raise ValueError(f"axis {a} is out of range for an input of {ndim} axes")
        out.append(int(a) % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"axes must be unique: {axes!r} name an axis twice")
    return tuple(out)


def per_axis(value, count, what):
    """A scalar or a sequence of `count` values (scipy's sigma, order, mode, radius, size)."""
    if isinstance(value, (str, bytes)) or np.ndim(value) == 0:
        return [value] * count
    values = list(value)
    if len(values) != count:
        raise ArgumentCountError(f"{SCIPY_LENGTH_MESSAGE}: {what} must be one value or one per filtered axis "
                                 f"({count}), got {value!r}")
    return values


def check_precision(precision):
    """Refuses a precision other than None (by the input's dtype), 'float32' or 'float64'."""
    if precision not in (None, "float32", "float64"):
        raise ValueError(f"precision must be None (the input's), 'float32' or 'float64', got {precision!r}")


def work_dtype(source, precision, sums_beyond_float32=False):
    """The float type the engine computes in, as scipy chooses by the input's dtype: float64 for
    float64 (or wider) inputs and for integers whose sums float32 would round
    (_limits.sums_beyond_float32), float32 otherwise; precision='float32' or 'float64' says."""
    if precision is not None:
        return np.dtype(precision)
    wide_float = source.dtype.kind == "f" and source.dtype.itemsize > 4
    return FLOAT64 if wide_float or sums_beyond_float32 else FLOAT32


def output_dtype(source_dtype, output):
    """The dtype of the result: `output`'s (an array's, or a dtype), else the input's (float16
    included, which scipy refuses)."""
    if isinstance(output, np.ndarray):
        return output.dtype
    if output is not None:
        return np.dtype(output)
    return source_dtype


def cast_result(result, dtype):
    """The float32 `result` as `dtype`, the way scipy.ndimage writes its float64 sums into an
    output of that type: integers truncated toward zero and wrapped modulo their range (C's
    cast), NaN and infinities as 0 (where C's cast is undefined); bool as scipy's byte: the
    truncated value modulo 256 is True when not 0."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return result if dtype == result.dtype else result.astype(dtype)
    if dtype.kind == "b":
        return cast_result(result, np.uint8) != 0
    if dtype.kind not in "iu":
        raise TypeError(f"output dtype {dtype} is not a real number type")
    # numpy's float to integer conversion truncates toward zero, as C's cast; to a narrower type
    # it wraps. Through int32 when every value fits (the common case: min and max are cheap next
    # to the conversion), else int64, the non-finite values (whose min or max is NaN) set after.
    lo, hi = (float(result.min()), float(result.max())) if result.size else (0.0, 0.0)
    if -2.0 ** 31 < lo and hi < 2.0 ** 31 and dtype.itemsize <= 4:
        return result.astype(np.int32).astype(dtype, copy=False)
    if dtype == np.uint64 and hi >= 2.0 ** 63:
        return _as_uint64(result)
    with np.errstate(invalid="ignore"):
        out = result.astype(np.int64).astype(dtype, copy=False)
    finite = np.isfinite(result)
    if not finite.all():
        out[~finite] = 0
    return out


def _as_uint64(result):
    """cast_result for uint64 with values from 2**63 on, which int64 cannot hold: those cast
    directly (a float32 that large is an integer, exact in uint64), the others through int64
    as cast_result casts them (negatives wrap), non-finite values as 0."""
    with np.errstate(invalid="ignore"):
        out = result.astype(np.int64).astype(np.uint64)
        high = result >= 2.0 ** 63
        out[high] = result[high].astype(np.uint64)
    out[~np.isfinite(result)] = 0
    return out


def check_engine_arguments(weights, method):
    """The engine's own checks of a call's taps and method, made where no image is at hand yet:
    convlab.dask builds its graph before any block exists, and a check that fails on a worker
    fails late and far from the call. The engine repeats them on every run."""
    taps = np.asarray(weights, np.float64)
    bad = np.flatnonzero(~np.isfinite(taps))
    if bad.size:
        raise ValueError(f"weight {np.unravel_index(bad[0], taps.shape)} is not finite ({taps.flat[bad[0]]})")
    from ._convlab import methods
    known = [entry["name"] for entry in methods()]
    if str(method) not in known:
        raise ValueError(f"unknown method '{method}' (valid: {', '.join(known)})")

