# SPDX-License-Identifier: GPL-3.0-or-later
"""Arrays in GPU memory (CuPy arrays, torch CUDA tensors, anything with
``__cuda_array_interface__``; DLPack producers on CUDA through CuPy) filtered where they lie by
the CUDA session, the result written into a new array of the same kind or into `output`
(docs/python.md, *GPU arrays*). convolve, correlate, convolve1d and correlate1d take them."""
import importlib

import numpy as np

from . import _convlab
from ._args import FLOAT32, Error

# cudaStreamLegacy as __cuda_array_interface__ numbers streams: waiting on it waits for the work
# of every blocking stream of the device.
LEGACY_STREAM = 1

# DLPack's device types that are GPU memory (kDLCUDA, kDLCUDAManaged; kDLCUDAHost is host memory).
_DLPACK_CUDA = {2: "CUDA", 13: "CUDA managed"}


def gpu_array_kind(value):
    """What GPU memory `value` lies in ("CUDA", via __cuda_array_interface__ or DLPack), or None
    for host memory and everything else."""
    if isinstance(value, np.ndarray):
        return None
    if getattr(type(value), "__cuda_array_interface__", None) is not None or \
            hasattr(value, "__cuda_array_interface__"):
        return "CUDA"
    device = getattr(value, "__dlpack_device__", None)
    if callable(device):
        try:
            kind = int(device()[0])
        except Exception:  # a producer that cannot say: treated as host memory, as numpy would
            return None
        return _DLPACK_CUDA.get(kind)
    return None


def _interface(value, what):
    """The array's __cuda_array_interface__ (a DLPack producer is first wrapped by CuPy, which
    reads it in place), and the object that owns the memory."""
    if not hasattr(value, "__cuda_array_interface__"):
        try:
            cupy = importlib.import_module("cupy")
        except ImportError:
            raise TypeError(f"{what} is a DLPack array in CUDA memory: convlab reads GPU arrays through "
                            "__cuda_array_interface__ (CuPy, torch, numba) and DLPack ones through CuPy, "
                            "which is not installed") from None
        value = cupy.from_dlpack(value)
    return value.__cuda_array_interface__, value


def _c_strides(shape, itemsize):
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


def _planes_of(value, what):
    """(data pointer, shape, stream, owner) of a C-contiguous float32 CUDA array, else TypeError
    or ValueError saying what to pass."""
    cai, owner = _interface(value, what)
    shape = tuple(int(n) for n in cai["shape"])
    if np.dtype(cai["typestr"]) != FLOAT32:
        raise TypeError(f"{what} in GPU memory has dtype {np.dtype(cai['typestr'])}: on the GPU convlab filters "
                        "float32 (e.g. x.astype(cupy.float32), x.float())")
    strides = cai.get("strides")
    if strides is not None and tuple(strides) != _c_strides(shape, 4) and int(np.prod(shape)) > 1:
        raise ValueError(f"{what} in GPU memory is not C-contiguous (strides {tuple(strides)}): pass a contiguous "
                         "copy (cupy.ascontiguousarray(x), x.contiguous())")
    if int(np.prod(shape)) == 0:
        raise ValueError(f"{what} of shape {shape} is empty")
    return int(cai["data"][0]), shape, stream_to_wait(cai, _current_stream(owner)), owner


def stream_to_wait(interface, current_stream=None):
    """The stream (an integer handle; 0 for none) the session waits on before it reads or writes
    an array exported with `interface` (__cuda_array_interface__):
    - a "stream" entry (version 3, CuPy's): the producer's stream; None when nothing is pending;
    - none (version 2, torch's): unknown. The producer's current stream when known (torch's
      current stream, `current_stream`), else the legacy default stream, which orders after the
      work of every blocking stream. Stream 0 (the null stream) is the legacy stream."""
    if "stream" in interface:
        stream = interface["stream"]
        return 0 if stream is None else int(stream)
    if current_stream is not None:
        return int(current_stream) or LEGACY_STREAM
    return LEGACY_STREAM


def _current_stream(owner):
    """torch's current stream on the tensor's device (its __cuda_array_interface__ has no stream),
    or None for other producers."""
    if type(owner).__module__.split(".")[0] != "torch":
        return None
    torch = importlib.import_module("torch")
    return torch.cuda.current_stream(owner.device).cuda_stream


def shape_only(value, what="input"):
    """A host stand-in of the GPU array's shape and dtype (no memory: every stride 0), so that
    the filters' argument handling reads shape and dtype as for a host array."""
    _, shape, _, _ = _planes_of(value, what)
    return np.lib.stride_tricks.as_strided(np.zeros(1, FLOAT32), shape, (0,) * len(shape), writeable=False)


def host_weights(value):
    """Weights given as a GPU array, copied to the host (a few values, uploaded with each run)."""
    for move in ("get", "cpu"):  # CuPy's, torch's
        if callable(getattr(value, move, None)):
            moved = getattr(value, move)()
            return np.asarray(moved.numpy() if hasattr(moved, "numpy") else moved)
    raise TypeError("weights in GPU memory: pass them as a host array (they travel with each run)")


def _new_like(value, owner):
    """An empty float32 array of the same kind (CuPy's, torch's) and shape on the same device."""
    for name in (type(value).__module__.split(".")[0], type(owner).__module__.split(".")[0]):
        if name in ("cupy", "torch"):
            library = importlib.import_module(name)
            return library.empty_like(owner)
    raise TypeError(f"no empty_like for a {type(value).__module__}.{type(value).__name__}: pass output= (a "
                    "C-contiguous float32 CUDA array of the input's shape)")


def run(correlate_, value, kernel, axes, ax, ay, border, cval, opts, report, output):
    """The filter over the GPU array `value` (axes the last one or two of a C-contiguous float32
    array; every leading index an image of a batch) into `output` or a new array of its kind.
    Returns (result, report)."""
    pointer, shape, stream, owner = _planes_of(value, "input")
    ndim = len(shape)
    if tuple(axes) not in ((ndim - 1,), (ndim - 2, ndim - 1)):
        raise ValueError(f"on the GPU convlab filters the last one or two axes of a C-contiguous array, not axes "
                         f"{tuple(axes)} of shape {shape}: move them last (e.g. cupy.moveaxis and "
                         "cupy.ascontiguousarray)")
    if output is not None and not (gpu_array_kind(output) and hasattr(output, "__cuda_array_interface__")) and \
            np.dtype(output) != FLOAT32:
        raise TypeError("output for a GPU array: a float32 CUDA array of the input's shape, or float32")
    if output is None or not gpu_array_kind(output):
        output = _new_like(value, owner)
    out_pointer, out_shape, out_stream, _ = _planes_of(output, "output")
    if out_shape != shape:
        raise ValueError(f"output's shape {out_shape} differs from the input's {shape}")
    # The planes of a batch lie one after another: runs of up to four, each filtered alike (a row
    # of weights over a 2-D plane is the 1-D filter of each of its rows).
    height = shape[-2] if ndim >= 2 else 1
    width = shape[-1]
    planes = int(np.prod(shape)) // (height * width)
    plane_bytes = 4 * height * width
    runs = []
    first_plane = 0
    while first_plane < planes:
        count = min(4, planes - first_plane)
        offset = first_plane * plane_bytes
        non_finite, run_report = _convlab.filter_device(
            pointer + offset, out_pointer + offset, height, width, count, stream, kernel, border, cval, ax, ay,
            correlate_, opts.method, opts.device, bool(report), output_stream=out_stream)
        if non_finite and opts.zero_taps == "skip" and not np.all(kernel):
            raise Error("the GPU array holds NaN or infinite values and the weights have zero taps: scipy's "
                        "footprint (zero_taps='skip') is computed on the host; pass zero_taps='multiply' "
                        "(IEEE's 0 * NaN) or a host array")
        runs.append(run_report)
        first_plane += count
    if not report:
        return output, None
    first = runs[0]
    if len(runs) > 1:
        first = dict(first, plane_groups=runs)
    return output, first
