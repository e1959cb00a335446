# SPDX-License-Identifier: GPL-3.0-or-later
"""Complex inputs, weights and cval, axes named in any order, weights over a subset of axes,
per-axis arguments of the wrong length and empty inputs: each against scipy.ndimage
(docs/python.md, *Complex numbers* and *Shapes*)."""
import itertools
import warnings

import numpy as np
import pytest
import scipy.ndimage as ndi

import convlab

CORRELATIONS = ["convolve", "correlate", "convolve1d", "correlate1d"]
# The separable family with arguments that reach every axis; each takes complex inputs in scipy.
FAMILY = [("gaussian_filter", (1.3,), {}), ("gaussian_filter", ((0.7, 2.0),), {"order": (1, 0)}),
          ("gaussian_filter1d", (1.5,), {"axis": 0}), ("uniform_filter", ((3, 2),), {}),
          ("uniform_filter1d", (4,), {"origin": -1}), ("sobel", (), {"axis": 0}), ("prewitt", (), {}),
          ("laplace", (), {}), ("gaussian_laplace", (1.1,), {})]
EVERY_FUNCTION = CORRELATIONS + ["gaussian_filter", "gaussian_filter1d", "uniform_filter", "uniform_filter1d",
                                 "sobel", "prewitt", "laplace", "gaussian_laplace"]


def _random(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    values = rng.uniform(-4, 4, shape)
    if np.dtype(dtype).kind == "c":
        values = values + 1j * rng.uniform(-4, 4, shape)
    return values.astype(dtype)


def _close(ours, theirs, scale):
    """float32 arithmetic against scipy's float64: within 1e-5 of the values' scale."""
    assert ours.shape == theirs.shape
    assert np.abs(ours.astype(np.complex128) - theirs).max() <= 1e-5 * max(scale, 1.0)


def _scale(data, weights, cval=0):
    return float(np.abs(weights).sum()) * max(float(np.abs(data).max(initial=0)), abs(cval))


@pytest.mark.parametrize("name", CORRELATIONS)
@pytest.mark.parametrize("input_dtype, weights_dtype", [
    (np.complex64, np.float32), (np.complex128, np.float64), (np.float32, np.complex64),
    (np.int16, np.complex128), (np.complex64, np.complex128), (np.complex128, np.complex64)])
@pytest.mark.parametrize("shape", [(1,), (7,), (1, 1), (5, 8), (9, 3)])
def test_complex_correlations_equal_scipy(name, input_dtype, weights_dtype, shape):
    one_d = name.endswith("1d")
    data = _random(shape, input_dtype, 1) if np.dtype(input_dtype).kind != "i" else \
        np.arange(np.prod(shape), dtype=input_dtype).reshape(shape) - 3
    weights = _random((3,) if one_d or len(shape) == 1 else (2, 3), weights_dtype, 2)
    weights.flat[0] = 0  # a zero tap: scipy leaves it out of the footprint, per real run
    cval = (2.5 - 1.5j) if np.dtype(input_dtype).kind == "c" else 2.5
    for mode, extra in [("reflect", {}), ("wrap", {}), ("constant", {"cval": cval})]:
        ours = getattr(convlab, name)(data, weights, mode=mode, precision="float32", **extra)
        theirs = getattr(ndi, name)(data, weights, mode=mode, **extra)
        assert ours.dtype == theirs.dtype
        _close(ours, theirs, _scale(data, weights, abs(cval)))


@pytest.mark.parametrize("name, args, kwargs", FAMILY)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("shape", [(1, 1), (6, 9), (13, 4)])
def test_complex_family_equals_scipy(name, args, kwargs, dtype, shape):
    data = _random(shape, dtype, 3)
    for mode, cval in [("nearest", 0.0), ("mirror", 0.0), ("constant", 1.5 + 2j)]:
        ours = getattr(convlab, name)(data, *args, mode=mode, cval=cval, precision="float32", **kwargs)
        theirs = getattr(ndi, name)(data, *args, mode=mode, cval=cval, **kwargs)
        assert ours.dtype == theirs.dtype == dtype
        _close(ours, theirs, 8 * max(float(np.abs(data).max()), abs(cval)))


@pytest.mark.parametrize("name, args, kwargs", FAMILY + [("correlate", (np.array([[1, 2j], [0, -1]]),), {}),
                                                     ("convolve1d", ([1j, 0, 2],), {"axis": 0})])
def test_complex_as_float_pairs_and_as_parts_equal_scipy(name, args, kwargs):
    # A cval whose parts agree, a strided input and C-order output arrays go as float pairs
    # (one run); F-order output arrays and other cvals as parts: each equal to scipy.
    data = _random((9, 14), np.complex64, 10)[:, ::2]
    for cval in (1 + 1j, 0, 1 + 2j):
        for order in "CF":
            into = np.zeros((9, 7), np.complex128, order=order)
            ours = getattr(convlab, name)(data, *args, mode="constant", cval=cval, output=into, precision="float32",
                                          **kwargs)
            assert ours is into
            theirs = getattr(ndi, name)(data, *args, mode="constant", cval=cval, output=np.complex128, **kwargs)
            _close(ours, theirs, 8 * 8)


def test_correlation_conjugates_complex_weights_and_convolution_does_not():
    # One sample of 1 through weights (1j): correlate gives -1j (the conjugate, as numpy's
    # correlate), convolve gives 1j.
    data = np.zeros(5, np.complex64)
    data[2] = 1
    assert convlab.correlate1d(data, [0, 1j, 0])[2] == -1j
    assert convlab.convolve1d(data, [0, 1j, 0])[2] == 1j


def test_complex_output_follows_scipys_rule():
    data = _random((4, 5), np.complex64, 4)
    weights = np.ones((3, 3), np.float32)
    with pytest.warns(UserWarning, match="promoting specified output dtype to complex"):
        promoted = convlab.correlate(data, weights, output=np.float32)
    assert promoted.dtype == np.complex64
    with pytest.warns(UserWarning, match="promoting specified output dtype to complex"):
        assert convlab.convolve(data, weights, output=np.float64).dtype == np.complex128
    with pytest.raises(RuntimeError, match="output must have complex dtype"):
        convlab.correlate(data, weights, output=np.zeros((4, 5), np.float32))
    with pytest.raises(TypeError, match="output must have complex dtype"):  # and a TypeError
        convlab.gaussian_filter(data, 1.0, output="float32")
    into = np.full((4, 5), 7 + 7j, np.complex128)
    assert convlab.correlate(data, weights, output=into) is into
    _close(into, ndi.correlate(data, weights), 9 * 6)
    with pytest.raises(ValueError, match="shape"):
        convlab.correlate(data, weights, output=np.zeros((5, 4), np.complex64))
    with pytest.raises(ValueError, match="cval .* is complex and the input real"):  # scipy refuses it too
        convlab.correlate(np.ones((4, 5), np.float32), weights.astype(np.complex64), mode="constant", cval=1j)
    with pytest.raises(ValueError, match="return_report is for real inputs"):
        convlab.correlate(data, weights, return_report=True)


def test_real_input_into_a_complex_output():
    # scipy's correlate refuses it ("array type not supported"); its 1-D filters write the real
    # result. convlab writes it for every filter.
    data = _random((6, 7), np.float32, 5)
    weights = _random((3, 2), np.float32, 6)
    ours = convlab.convolve(data, weights, output=np.complex64)
    assert ours.dtype == np.complex64
    assert not ours.imag.any()
    _close(ours, ndi.convolve(data, weights), _scale(data, weights))
    ours = convlab.gaussian_filter(data, 1.0, output=np.complex128)
    assert ours.dtype == np.complex128
    _close(ours, ndi.gaussian_filter(data.astype(np.float64), 1.0), 8)


@pytest.mark.parametrize("name", ["convolve", "correlate"])
@pytest.mark.parametrize("axes", list(itertools.permutations(range(-3, 3), 2)))
@pytest.mark.parametrize("origin", [(0, 0), (-1, 1), (1, -2)])
def test_axes_in_any_order_put_each_origin_on_its_axis(name, axes, origin):
    data = np.arange(6 * 8 * 12, dtype=np.float32).reshape(6, 8, 12)
    weights = np.arange(15, dtype=np.float32).reshape(3, 5)
    if len({a % 3 for a in axes}) < 2:
        with pytest.raises(ValueError, match="axes must be unique"):
            getattr(convlab, name)(data, weights, axes=axes, origin=origin)
        return
    # scipy's valid range: -(size // 2) <= origin <= (size - 1) // 2 along each weights axis
    named = [a % 3 for a in axes]
    size_of = dict(zip(sorted(named), weights.shape))
    if any(not -(size_of[a] // 2) <= o <= (size_of[a] - 1) // 2 for a, o in zip(named, origin)):
        with pytest.raises(ValueError):
            ndi.correlate(data, weights, axes=axes, origin=origin)
        with pytest.raises(ValueError, match="origin"):
            getattr(convlab, name)(data, weights, axes=axes, origin=origin)
        return
    ours = getattr(convlab, name)(data, weights, axes=axes, origin=origin)
    theirs = getattr(ndi, name)(data, weights, axes=axes, origin=origin)
    np.testing.assert_array_equal(ours, theirs)  # integer sums: exact in float32


@pytest.mark.parametrize("axes, weights_shape, origin", [
    ((2, 0, 1), (3, 1, 4), (1, 0, -1)),  # every axis named: scipy reads them in the input's order
    ((1,), (5,), 2),                      # 1-D weights along one named axis of a volume
    ((-1,), (2,), -1),
    ((3, 1), (3, 2), (-1, 0)),            # a 4-D input, two of its axes named out of order
])
def test_weights_over_named_axes_equal_scipy(axes, weights_shape, origin):
    data = _random((5, 6, 7) if max(axes) < 3 else (3, 4, 5, 6), np.float32, 7)
    weights = _random(weights_shape, np.float32, 8)
    for name in ("convolve", "correlate"):
        ours = getattr(convlab, name)(data, weights, axes=axes, origin=origin, mode="nearest")
        theirs = getattr(ndi, name)(data, weights, axes=axes, origin=origin, mode="nearest")
        _close(ours, theirs, _scale(data, weights))


@pytest.mark.parametrize("name, kwargs, key, value", [
    ("gaussian_filter", {"sigma": 1.0}, "sigma", 1.0), ("gaussian_filter", {"sigma": 1.0}, "order", 0),
    ("gaussian_filter", {"sigma": 1.0}, "radius", 3), ("gaussian_filter", {"sigma": 1.0}, "mode", "constant"),
    ("uniform_filter", {}, "size", 3), ("uniform_filter", {}, "origin", 0), ("uniform_filter", {}, "mode", "wrap"),
    ("convolve", {"weights": np.ones((3, 3))}, "origin", 0), ("correlate", {"weights": np.ones((3, 3))}, "origin", 0),
])
@pytest.mark.parametrize("count", [1, 3])
def test_per_axis_arguments_of_the_wrong_length_raise_scipys_runtime_error(name, kwargs, key, value, count):
    data = np.zeros((4, 5, 6), np.float32)
    arguments = dict(kwargs, axes=(0, 2), **{key: (value,) * count})
    for library in (ndi, convlab):
        with pytest.raises(RuntimeError, match="sequence argument must have length equal to input rank"):
            getattr(library, name)(data, **arguments)
    with pytest.raises(ValueError, match=f"{key} must be"):  # convlab's: a ValueError that names the argument
        convlab.__dict__[name](data, **arguments)


def test_bad_axes_and_weights_raise_scipys_classes():
    data = np.zeros((4, 5, 6), np.float32)
    for library in (ndi, convlab):
        with pytest.raises(RuntimeError, match=r"weights.ndim \(3\) must match len\(axes\) \(2\)"):
            library.correlate(data, np.ones((3, 3, 3)), axes=(0, 1))
        with pytest.raises(RuntimeError, match=r"weights.ndim \(2\) must match"):
            library.convolve(data, np.ones((3, 3)))
        with pytest.raises(RuntimeError):
            library.correlate(data, np.ones((2, 2, 2)), mode=["nearest", "reflect", "wrap"])
        for name, args in [("convolve", (np.ones((3, 3)),)), ("gaussian_filter", (1.0,)), ("uniform_filter", (3,)),
                           ("laplace", ()), ("gaussian_laplace", (1.0,))]:
            with pytest.raises(ValueError, match="axes must be unique"):
                getattr(library, name)(data, *args, axes=(1, -2))
            with pytest.raises(ValueError, match="out of range"):
                getattr(library, name)(data, *args, axes=(0, 3))
            with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
                getattr(library, name)(data, *args, axes=(0, 1.5))
        with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
            library.gaussian_filter(data, 1.0, axes=1.5)


@pytest.mark.parametrize("name", EVERY_FUNCTION)
@pytest.mark.parametrize("shape", [(0,), (1, 0), (0, 3), (2, 0, 4)])
@pytest.mark.parametrize("dtype", [np.float32, np.uint8, np.complex64])
def test_empty_inputs_give_empty_results_as_scipy(name, shape, dtype):
    data = np.zeros(shape, dtype)
    weights = np.ones((2, 1, 2)[:len(shape)] if len(shape) == 3 else (2,) * len(shape))  # ConvLab: <= 2 axes
    args = {"convolve": (weights,), "correlate": (weights,),
            "convolve1d": ([1.0, 2.0],), "correlate1d": ([1.0, 2.0],), "gaussian_filter": (1.0,),
            "gaussian_filter1d": (1.0,), "uniform_filter": (3,), "uniform_filter1d": (3,),
            "gaussian_laplace": (1.0,)}.get(name, ())
    ours = getattr(convlab, name)(data, *args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = getattr(ndi, name)(data, *args)
    assert ours.shape == theirs.shape == shape
    assert ours.dtype == theirs.dtype


@pytest.mark.parametrize("size", [0, [0, 3], [1, 0], [3, 1]])
def test_uniform_filter_leaves_sizes_0_and_1_as_scipy(size):
    data = _random((5, 7), np.float32, 9)
    ours = convlab.uniform_filter(data, size, mode="constant")
    _close(ours, ndi.uniform_filter(data, size, mode="constant"), 4)
    if size == 0:
        np.testing.assert_array_equal(ours, data)
    with pytest.raises(ValueError, match="size"):
        convlab.uniform_filter1d(data, 0)


@pytest.mark.parametrize("name", ["convolve", "correlate", "gaussian_filter", "uniform_filter", "sobel"])
def test_an_output_of_the_wrong_shape_raises_what_scipy_raises(name):
    x = np.zeros((6, 5), np.float32)
    args = {"convolve": (np.ones((3, 3)),), "correlate": (np.ones((3, 3)),), "gaussian_filter": (1.0,),
            "uniform_filter": (3,), "sobel": ()}[name]
    wrong = np.zeros((5, 6), np.float32)
    with pytest.raises(RuntimeError):
        getattr(ndi, name)(x, *args, output=wrong)
    with pytest.raises(RuntimeError, match=r"output's shape \(5, 6\) differs from the input's \(6, 5\)"):
        getattr(convlab, name)(x, *args, output=wrong)
    with pytest.raises(ValueError):  # and still the ValueError convlab raised before
        getattr(convlab, name)(x, *args, output=wrong)
