# SPDX-License-Identifier: GPL-3.0-or-later
"""ConvLab's convolution engine for NumPy arrays, with scipy.ndimage's conventions.

``convlab.convolve`` and ``convlab.correlate`` take the arguments of
``scipy.ndimage.convolve`` and ``scipy.ndimage.correlate`` (input, weights, output, mode,
cval, origin) and compute the same thing (docs/semantics.md, Convolution and correlation),
for 2-D arrays and for (H, W, C) arrays filtered channel by channel. ``convlab.dask`` does the
same for dask arrays.

Values are filtered as float32 (ConvLab's sample type). float32 in gives float32 out, float64
in gives float64 out (the float32 result, widened); integer and bool inputs give float32 (scipy
would cast the result back to the input's integer type, dropping fractions and negative
values; pass ``output=np.uint8`` for that). uint8 and uint16 arrays of up to four channels are
read by the engine as samples, as decoded image files are, with the same results.
"""
import numbers

import numpy as np

from . import _convlab
from ._convlab import Error, __version__

_FLOAT32 = np.dtype(np.float32)
_FLOAT64 = np.dtype(np.float64)

__all__ = ["convolve", "correlate", "Error", "border_modes", "methods", "SCIPY_MODES", "__version__"]

# scipy.ndimage's mode names and the ConvLab border mode each one is (docs/semantics.md,
# Border modes). For convolve/correlate scipy treats the grid- forms as the plain ones.
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


def border_modes():
    """ConvLab's border modes: name, aliases, rule, n = 4 example and scipy's name, as dicts."""
    return _convlab.border_modes()


def methods():
    """The engine's methods (auto, direct, separable, fft, reference), as dicts."""
    return _convlab.methods()


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
        return _convlab.border_name(mode)
    except Error as e:
        raise Error(f"{e}; scipy's names: {', '.join(SCIPY_MODES)}") from None


def engine_border(mode):
    """The mode as the engine reads it: ConvLab's name, or "constant:VALUE" as written."""
    name = border_name(mode)
    return mode if ":" in mode or "=" in mode else name


def convolve(input, weights, output=None, mode="reflect", cval=0.0, origin=0, *,
             method="auto", device="auto", threads=0, return_report=False):
    """scipy.ndimage.convolve on ConvLab's engine.

    input: a 2-D array, or (H, W, C) filtered per channel; weights: a 2-D kernel (for 3-D
    input also (h, w, 1)). mode: scipy's names (reflect, mirror, nearest, wrap, constant and
    their grid- forms) or ConvLab's (replicate, reflect101, ...); cval: the constant. origin:
    an int or one per axis, shifting the kernel's centre as scipy does. method: auto, direct,
    separable, fft or reference; device: auto, cpu or cuda; threads: 0 for all.
    return_report=True returns (result, report), the report a dict of the run (the method
    that ran and why, the estimates auto compared, stages and timings in ms).
    """
    return _filter(False, input, weights, output, mode, cval, origin, method, device, threads, return_report)


def correlate(input, weights, output=None, mode="reflect", cval=0.0, origin=0, *,
              method="auto", device="auto", threads=0, return_report=False):
    """scipy.ndimage.correlate on ConvLab's engine (arguments as for convolve)."""
    return _filter(True, input, weights, output, mode, cval, origin, method, device, threads, return_report)


def _real_array(value, what):
    """`value` as an ndarray of real numbers, or TypeError saying what it is instead."""
    array = np.asarray(value)
    if array.dtype.kind not in "fiub":
        raise TypeError(f"{what} has dtype {array.dtype}: ConvLab filters real numbers "
                        "(float, integer or bool arrays)")
    return array


def prepare_input(input, keep_samples=False):
    """The input as a C-order float32 array (no copy when it already is one) of 2 or 3 axes;
    with keep_samples, a uint8 or uint16 array of up to four channels stays as it is (C order),
    for the engine to read its samples itself."""
    array = _real_array(input, "input")
    if array.ndim not in (2, 3):
        raise ValueError(f"input must be 2-D (H, W) or 3-D (H, W, C), got shape {array.shape}")
    if array.size == 0:
        raise ValueError(f"input of shape {array.shape} is empty")
    if keep_samples and _reads_samples(array):
        return np.ascontiguousarray(array)
    return np.ascontiguousarray(array, dtype=_FLOAT32)


def _reads_samples(array):
    """Whether the engine filters this array from its 8/16-bit samples (as it does decoded image
    files): no float32 copy is made, and the result is the same, bit for bit."""
    return array.dtype.char in "BH" and array.dtype.isnative and (array.ndim == 2 or array.shape[2] <= 4)


def prepare_weights(weights, input_ndim):
    """The kernel as a C-order float32 (h, w) array; (h, w, 1) is accepted for 3-D input."""
    array = _real_array(weights, "weights")
    if array.ndim == 3 and input_ndim == 3 and array.shape[2] == 1:
        array = array[:, :, 0]
    if array.ndim != 2:
        expected = "(h, w) or (h, w, 1)" if input_ndim == 3 else "(h, w)"
        raise ValueError(f"weights must be {expected}, got shape {array.shape}")
    if array.size == 0:
        raise ValueError(f"weights of shape {array.shape} are empty")
    return np.ascontiguousarray(array, dtype=_FLOAT32)


def anchors(origin, kernel_shape, input_ndim):
    """scipy's origin (an int or one per axis) as ConvLab's anchor (ax, ay).

    scipy's origin shifts the kernel's centre from size // 2 along each axis, for both
    convolve and correlate and for even sizes too, so the anchor in the kernel as written is
    origin + size // 2 (docs/semantics.md, Convolution and correlation). scipy allows
    -(size // 2) <= origin <= (size - 1) // 2: exactly the anchors inside the kernel.
    """
    if type(origin) is int or isinstance(origin, numbers.Integral):  # (an int's check first: the
        per_axis = [int(origin), int(origin)]                          # ABC's takes a quarter µs)
    else:
        per_axis = list(np.atleast_1d(origin))
        if len(per_axis) == 3 and input_ndim == 3:
            if per_axis[2] != 0:
                raise ValueError(f"origin along the channel axis must be 0, got {per_axis[2]}")
            per_axis = per_axis[:2]
        if len(per_axis) != 2:
            raise ValueError(f"origin must be an int or one per axis, got {origin!r}")
        if not all(isinstance(o, numbers.Integral) for o in per_axis):
            raise TypeError(f"origin must be integers, got {origin!r}")
        per_axis = [int(o) for o in per_axis]
    ay = _anchor(per_axis[0], kernel_shape[0], 0)  # first: an error names the first axis out of range
    return _anchor(per_axis[1], kernel_shape[1], 1), ay


def _anchor(o, size, axis):
    """The anchor in the kernel as written along one axis, for scipy's origin `o` there."""
    if not -(size // 2) <= o <= (size - 1) // 2:
        raise ValueError(f"origin {o} along axis {axis} is outside {-(size // 2)}..{(size - 1) // 2} "
                         f"for weights of size {size} there")
    return o + size // 2


def _writable_float32(array):
    """Whether the engine can write a result into this array where it lies."""
    flags = array.flags
    return (array.dtype is _FLOAT32 or array.dtype == _FLOAT32) and flags.c_contiguous and flags.writeable


def _result_dtype(input_dtype):
    return _FLOAT64 if input_dtype is _FLOAT64 or input_dtype == _FLOAT64 else _FLOAT32


def _filter(correlate_, input, weights, output, mode, cval, origin, method, device, threads, return_report):
    source = _real_array(input, "input")
    output_array = isinstance(output, np.ndarray)
    writable_output = output_array and _writable_float32(output)
    # 8/16-bit samples are read by the engine as they are, unless an output array other than a
    # C-order float32 one is to receive the result (which then goes through the float32 path).
    samples = prepare_input(source, keep_samples=not output_array or writable_output)
    kernel = prepare_weights(weights, samples.ndim)
    ax, ay = anchors(origin, kernel.shape, samples.ndim)
    if type(cval) is not float and not isinstance(cval, numbers.Real):
        raise TypeError(f"cval must be a real number, got {cval!r}")
    if type(threads) is not int and not isinstance(threads, numbers.Integral):
        raise TypeError(f"threads must be an int, got {threads!r}")
    border = engine_border(mode)

    direct_out = None
    if output_array:
        if output.shape != samples.shape:
            raise ValueError(f"output's shape {output.shape} differs from the input's {samples.shape}")
        if writable_output:
            direct_out = output
    elif output is not None:
        np.dtype(output)  # TypeError for what is neither an array nor a dtype

    arguments = (border, float(cval), ax, ay, correlate_, str(method), str(device), int(threads), bool(return_report))
    kind = samples.dtype.char  # float32 ("f") unless prepare_input kept native 8/16-bit samples
    if kind == "f":
        result, report = _convlab.filter(samples, kernel, direct_out, *arguments)
    elif kind == "B":
        result, report = _convlab.filter_u8(samples, kernel, direct_out, *arguments)
    else:
        result, report = _convlab.filter_u16(samples, kernel, direct_out, *arguments)
    if output_array:
        if direct_out is None:
            np.copyto(output, result, casting="unsafe")
        result = output
    elif output is not None:
        result = result.astype(output, copy=False)
    else:
        result = result.astype(_result_dtype(source.dtype), copy=False)
    return (result, report) if return_report else result
