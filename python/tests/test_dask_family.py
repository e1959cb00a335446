# SPDX-License-Identifier: GPL-3.0-or-later
"""convlab.dask's filter family (convolve, correlate, their 1-D forms, gaussian, uniform,
sobel, prewitt, laplace, gaussian_laplace) against the in-memory functions on the whole array:
bit for bit, every mode (the grid- forms too), chunks of one sample, uneven chunks, one chunk,
kernels larger than a chunk and than the array, non-finite samples, every dtype rule; dask-image's
wrap against convlab's on the same chunked array; checks made when the graph is built."""
import dask.array as da
import numpy as np
import pytest
import scipy.ndimage as ndi

import convlab
import convlab.dask
from convlab import _convlab

MODES = ["reflect", "grid-mirror", "mirror", "nearest", "wrap", "grid-wrap", "constant", "grid-constant"]
CHUNKINGS = [1, (4, 3), ((3, 1, 5), (2, 4, 1)), (9, 7)]
RNG = np.random.default_rng(11)
WEIGHTS_2D = RNG.uniform(-1, 1, (4, 3)).astype(np.float32)
WEIGHTS_2D[1, 1] = 0  # a zero tap: scipy's rule for NaN applies
WEIGHTS_1D = RNG.uniform(-1, 1, 4).astype(np.float32)
# Each function with arguments that make its reach asymmetric where it can be (even kernels,
# origins), a derivative order, per-axis sizes: (positional, keywords).
CALLS = {
    "convolve": ((WEIGHTS_2D,), dict(origin=(1, -1))),
    "correlate": ((WEIGHTS_2D,), dict(origin=(-2, 0))),
    "convolve1d": ((WEIGHTS_1D,), dict(axis=0, origin=1)),
    "correlate1d": ((WEIGHTS_1D,), dict(axis=1, origin=-2)),
    "gaussian_filter": ((1.5,), {}),
    "gaussian_filter1d": ((2.0,), dict(axis=0, order=1)),
    "uniform_filter": (((4, 3),), dict(origin=(1, 0))),
    "uniform_filter1d": ((5,), dict(axis=1, origin=-1)),
    "sobel": ((), dict(axis=0)),
    "prewitt": ((), dict(axis=1)),
    "laplace": ((), {}),
    "gaussian_laplace": ((1.2,), {}),
}


def both(name, data, chunks, *args, **kwargs):
    """(convlab.dask's result computed, the in-memory function's on the whole array), with one
    method for both ('direct' unless told): 'auto' plans each block for its own window."""
    kwargs.setdefault("method", "direct")
    lazy = getattr(convlab.dask, name)(da.from_array(data, chunks=chunks), *args, **kwargs)
    assert lazy.chunks == da.from_array(data, chunks=chunks).chunks and lazy.dtype == data.dtype
    return lazy.compute(scheduler="sync"), getattr(convlab, name)(data, *args, **kwargs)


def assert_identical(got, expected, what):
    assert got.dtype == expected.dtype, what
    assert np.array_equal(got, expected, equal_nan=got.dtype.kind == "f"), (what, np.abs(
        got.astype(np.float64) - expected.astype(np.float64)).max())


@pytest.mark.parametrize("name", CALLS)
def test_every_function_mode_and_chunking_equals_the_whole_array_bit_for_bit(name):
    data = RNG.uniform(-1, 1, (9, 7)).astype(np.float32)
    args, kwargs = CALLS[name]
    for mode in MODES:
        for chunks in CHUNKINGS:
            got, expected = both(name, data, chunks, *args, mode=mode, cval=0.5, **kwargs)
            assert_identical(got, expected, (name, mode, chunks))


def test_auto_plans_each_block_and_stays_within_the_methods_tolerance():
    # A block's window has other costs than the whole array, so 'auto' may take another method
    # there (separable where the whole took direct): equal within the tolerance of the methods
    # (docs/semantics.md, Tolerances), not bit for bit.
    data = RNG.uniform(-1, 1, (40, 37)).astype(np.float32)
    for name in CALLS:
        args, kwargs = CALLS[name]
        for mode in ("wrap", "mirror", "constant"):
            got, expected = both(name, data, (7, (30, 7)), *args, mode=mode, method="auto", **kwargs)
            scale = max(float(np.abs(expected).max()), 1.0)
            assert got.dtype == expected.dtype and np.abs(got - expected).max() <= 1e-5 * scale, (name, mode)


@pytest.mark.parametrize("mode", ["reflect", "mirror", "nearest", "wrap", "constant"])
def test_kernels_larger_than_the_array_and_tiny_arrays(mode):
    cases = [("gaussian_filter", (3.0,), {}), ("uniform_filter", (7,), dict(origin=2)),
             ("correlate", (RNG.uniform(-1, 1, (6, 5)).astype(np.float32),), dict(origin=(2, -2))),
             ("gaussian_laplace", (2.5,), {}), ("convolve1d", (RNG.uniform(0, 1, 8),), dict(axis=1, origin=3))]
    for shape in [(1, 1), (2, 3), (5, 1)]:
        data = RNG.uniform(-1, 1, shape).astype(np.float32)
        for name, args, kwargs in cases:
            got, expected = both(name, data, 1, *args, mode=mode, **kwargs)
            assert_identical(got, expected, (name, shape, mode))


def test_non_finite_samples_land_where_the_in_memory_rule_puts_them():
    # scipy's rule: a NaN or an infinity reaches only the outputs of non-zero taps. The issue's
    # case: 18 non-finite outputs from convlab.dask where convlab.correlate and scipy give 10.
    data = RNG.uniform(-1, 1, (12, 10)).astype(np.float32)
    data[2, 3], data[7, 0], data[10, 9] = np.nan, np.inf, -np.inf
    weights = np.array([[0, 1, 0], [1, -4, 1], [0, 1, 0]], np.float32)
    for mode in MODES:
        for chunks in [(5, 4), 1, ((1, 11), (9, 1))]:
            got, expected = both("correlate", data, chunks, weights, mode=mode)
            assert_identical(got, expected, (mode, chunks))
            reference = ndi.correlate(data.astype(np.float64), weights.astype(np.float64), mode=mode)
            assert np.array_equal(~np.isfinite(got), ~np.isfinite(reference)), (mode, chunks)
    for name in CALLS:
        args, kwargs = CALLS[name]
        got, expected = both(name, data, (5, 4), *args, mode="wrap", **kwargs)
        assert_identical(got, expected, name)


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint16, np.float64, np.bool_])
def test_dtypes_follow_the_in_memory_rules(dtype):
    # Integers truncated and wrapped after each pass, bool as scipy's bytes, float64 as float32
    # computed (asked for): the in-memory function's rules, applied per block.
    data = (RNG.uniform(0, 200, (11, 8)) if dtype != np.bool_ else RNG.uniform(0, 1, (11, 8)) > 0.5).astype(dtype)
    for name in CALLS:
        args, kwargs = CALLS[name]
        got, expected = both(name, data, (4, 3), *args, mode="mirror", precision="float32", **kwargs)
        assert_identical(got, expected, (name, dtype))


def test_axes_and_channel_axis_are_the_in_memory_functions():
    data = RNG.uniform(-1, 1, (3, 10, 9)).astype(np.float32)
    weights = RNG.uniform(-1, 1, (3, 4)).astype(np.float32)
    cases = [("convolve", (weights,), dict(channel_axis=0, mode="wrap")),
             ("correlate", (weights,), dict(axes=(1, 2), mode="mirror", origin=(1, -2))),
             ("gaussian_filter", ((1.0, 2.0),), dict(axes=(2, 1), mode=("wrap", "constant"))),
             ("uniform_filter", (3,), dict(axes=(0, 2), mode="nearest")),
             ("laplace", (), dict(axes=(1,), mode="wrap")),
             ("gaussian_laplace", (1.0,), dict(axes=(1, 2), mode="grid-wrap")),
             ("sobel", (), dict(axis=0, mode="wrap"))]
    for name, args, kwargs in cases:
        for chunks in [(1, 3, 4), (3, (6, 4), (2, 7))]:
            got, expected = both(name, data, chunks, *args, **kwargs)
            assert_identical(got, expected, (name, chunks))


def test_dask_image_wraps_wrongly_on_chunks_where_convlab_does_not():
    # dask-image 2026.5.0 pads a chunk at the array's end with its neighbour's samples only for
    # convolve/correlate and the exact string 'wrap'; gaussian_filter's wrap and convolve's
    # grid-wrap read the wrong side. Both on the same array in 16 x 16 chunks, against scipy on
    # the whole array (float64 both; convlab computes in float32).
    from dask_image import ndfilters
    data = RNG.uniform(0, 1, (40, 40))
    image = da.from_array(data, chunks=16)
    weights = RNG.uniform(-1, 1, (5, 5))
    cases = [("gaussian_filter", (3.0,), dict(mode="wrap"), ndi.gaussian_filter),
             ("convolve", (weights,), dict(mode="grid-wrap"), ndi.convolve),
             ("uniform_filter", (5,), dict(mode="wrap"), ndi.uniform_filter)]
    for name, args, kwargs, oracle in cases:
        truth = oracle(data, *args, **kwargs)
        theirs = getattr(ndfilters, name)(image, *args, **kwargs).compute(scheduler="sync")
        ours = getattr(convlab.dask, name)(image, *args, precision="float32", **kwargs).compute(scheduler="sync")
        assert np.abs(theirs - truth).max() > 1e-2, name  # dask-image's wrong seams
        assert np.abs(ours - truth).max() < 1e-5, name


def test_the_graph_is_built_without_running_the_engine(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the engine ran while the graph was built")
    image = da.zeros((20, 20), chunks=7, dtype=np.float32)
    for run in ("filter", "filter_u8", "filter_u16"):
        monkeypatch.setattr(_convlab, run, refuse)
    for name in CALLS:
        args, kwargs = CALLS[name]
        getattr(convlab.dask, name)(image, *args, **kwargs)  # builds, does not compute


def test_bad_arguments_of_the_family_fail_when_the_graph_is_built():
    image = da.zeros((10, 10), chunks=5, dtype=np.float32)
    with pytest.raises(ValueError, match="sigma must be a finite number"):
        convlab.dask.gaussian_filter(image, -1)
    with pytest.raises(ValueError, match="size must be a positive integer"):
        convlab.dask.uniform_filter1d(image, 0)
    # As scipy (and the in-memory function): sizes below 2 filter nothing.
    np.testing.assert_array_equal(convlab.dask.uniform_filter(image, 0).compute(), image.compute())
    with pytest.raises(ValueError, match="sigma must be one value or one per filtered axis"):
        convlab.dask.gaussian_laplace(image, [1, 2, 3])
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        convlab.dask.sobel(image, axis=2)
    with pytest.raises(ValueError, match="weights must be 1-D"):
        convlab.dask.correlate1d(image, np.ones((2, 2)))
    with pytest.raises(ValueError, match="asks for a kernel of 2001 taps"):
        convlab.dask.gaussian_filter1d(image, 250)
    with pytest.raises(ValueError, match="unknown method"):
        convlab.dask.laplace(image, method="fastest")
    with pytest.raises(TypeError, match="unexpected keyword argument 'output'"):
        convlab.dask.prewitt(image, output=np.float64)
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        convlab.dask.uniform_filter1d(image[image[:, 0] >= 0], 3)
    # As scipy (and the in-memory function): an empty array filters to an empty array.
    assert convlab.dask.gaussian_filter(da.zeros((0, 4), chunks=2), 1).compute().shape == (0, 4)
