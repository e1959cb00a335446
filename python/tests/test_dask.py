# SPDX-License-Identifier: GPL-3.0-or-later
"""convlab.dask against convlab on the whole array: every border mode, both semantics, even
kernels and origins (asymmetric overlap), kernels larger than a chunk and than the array,
channel-last arrays, on a distributed.LocalCluster of two workers."""
import warnings

import dask.array as da
import numpy as np
import pytest
from distributed import Client, LocalCluster

import convlab
import convlab.dask
from helpers import relative_error, tolerance

MODES = ["constant", "nearest", "reflect", "mirror", "wrap"]
FUNCTIONS = ["convolve", "correlate"]


@pytest.fixture(scope="module")
def client():
    # Threads, not processes: two cores here, and the engine releases the GIL.
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        with Client(cluster, set_as_default=False) as c:
            yield c


@pytest.fixture(scope="module")
def large(client):
    """A 4096x4096 float32 array and its 512x512 chunks, held by the cluster's workers."""
    data = np.random.default_rng(1).uniform(-1, 1, (4096, 4096)).astype(np.float32)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Sending large graph", UserWarning)  # the data, sent once
        return data, client.persist(da.from_array(data, chunks=(512, 512)))


def check_equal_to_whole(function, data, chunks, weights, mode, origin, method="direct", cval=1.5, client=None):
    image = chunks if isinstance(chunks, da.Array) else da.from_array(data, chunks=chunks)
    lazy = getattr(convlab.dask, function)(image, weights, mode=mode, cval=cval, origin=origin, method=method)
    # The small cases run on the local threads: the cluster's cost per task would dominate.
    result = client.compute(lazy).result() if client else lazy.compute(scheduler="threads")
    expected, report = getattr(convlab, function)(data, weights, mode=mode, cval=cval, origin=origin,
                                                  method=method, return_report=True)
    assert result.shape == data.shape and result.dtype == expected.dtype
    error = relative_error(result, expected, weights, data, cval if mode == "constant" else 0.0)
    assert error <= tolerance(report), (function, mode, data.shape, image.chunks, weights.shape, origin, error)
    return lazy


@pytest.mark.parametrize("mode", MODES)
def test_a_4096_square_array_in_512_chunks_equals_the_whole(client, large, mode):
    data, image = large
    weights = np.random.default_rng(2).uniform(-1, 1, (4, 5)).astype(np.float32)
    for function in FUNCTIONS:
        lazy = check_equal_to_whole(function, data, image, weights, mode, (1, -2), client=client)
        assert lazy.chunks == ((512,) * 8, (512,) * 8)


@pytest.mark.parametrize("mode", MODES)
def test_kernels_larger_than_a_chunk_and_than_the_array(mode):
    rng = np.random.default_rng(2)
    cases = [((300, 260), (64, 50), (81, 70), (-20, 17)),
             ((97, 61), (16, 16), (40, 3), (0, 1)),
             ((40, 30), (16, 7), (101, 77), (3, -5)),
             ((5, 3), (2, 1), (9, 12), (-1, 0))]
    for shape, chunks, kernel, origin in cases:
        data = rng.uniform(0, 4, shape).astype(np.float32)
        weights = rng.uniform(-1, 1, kernel).astype(np.float32)
        for function in FUNCTIONS:
            check_equal_to_whole(function, data, chunks, weights, mode, origin, method="auto")


@pytest.mark.parametrize("mode", MODES)
def test_channel_last_arrays(mode):
    rng = np.random.default_rng(3)
    data = rng.uniform(0, 1, (150, 123, 5)).astype(np.float32)
    weights = rng.uniform(-1, 1, (6, 3)).astype(np.float32)
    for chunks in [(40, 50, 5), (33, 17, 2)]:
        for function in FUNCTIONS:
            check_equal_to_whole(function, data, chunks, weights, mode, (2, 0))


def test_chunk_merging_keeps_every_block_at_least_the_depth():
    assert convlab.dask.merged_chunks((512,) * 4, 3) == (512,) * 4
    assert convlab.dask.merged_chunks((64, 64, 64, 64, 44), 81) == (128, 172)
    assert convlab.dask.merged_chunks((10, 10, 3), 12) == (23,)
    assert convlab.dask.merged_chunks((5,), 100) == (5,)
    assert convlab.dask.window_reach((4, 5), (2, 2), True) == [(2, 1), (2, 2)]
    assert convlab.dask.window_reach((4, 5), (2, 2), False) == [(1, 2), (2, 2)]


def test_dtypes():
    rng = np.random.default_rng(4)
    weights = rng.uniform(-1, 1, (3, 3)).astype(np.float32)
    for dtype in (np.float64, np.uint8, np.uint16):
        data = rng.uniform(0, 200, (70, 90)).astype(dtype)
        lazy = convlab.dask.convolve(da.from_array(data, chunks=(32, 32)), weights, mode="mirror")
        result = lazy.compute(scheduler="threads")
        expected = convlab.convolve(data, weights, mode="mirror", method="auto")
        assert result.dtype == expected.dtype
        assert relative_error(result, expected, weights, data) <= 1e-5


def test_a_numpy_array_and_scipy_style_three_axis_weights_are_accepted():
    rng = np.random.default_rng(5)
    data = rng.uniform(0, 1, (20, 30, 2)).astype(np.float32)
    weights = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
    result = convlab.dask.correlate(data, weights[:, :, None], origin=(0, 1, 0), mode="wrap").compute(scheduler="sync")
    expected = convlab.correlate(data, weights, origin=(0, 1), mode="wrap")
    assert relative_error(result, expected, weights, data) <= 1e-5


def test_matches_dask_image_where_scipy_has_the_mode():
    from dask_image import ndfilters
    rng = np.random.default_rng(6)
    data = rng.uniform(0, 1, (120, 90)).astype(np.float32)
    weights = rng.uniform(-1, 1, (5, 4)).astype(np.float32)
    image = da.from_array(data, chunks=(32, 32))
    for mode in MODES:
        ours = convlab.dask.convolve(image, weights, mode=mode, cval=0.25, origin=(0, 1)).compute(scheduler="threads")
        theirs = ndfilters.convolve(image.astype(np.float64), weights.astype(np.float64), mode=mode, cval=0.25,
                                    origin=(0, 1)).compute(scheduler="threads")
        assert relative_error(ours, theirs, weights, data, 0.25) <= 1e-5, mode


def test_bad_arguments_fail_before_any_work():
    image = da.zeros((10, 10), chunks=5, dtype=np.float32)
    weights = np.ones((3, 3), np.float32)
    with pytest.raises(ValueError, match="unknown border mode 'sideways'"):
        convlab.dask.convolve(image, weights, mode="sideways")
    with pytest.raises(ValueError, match="not finite"):
        convlab.dask.convolve(image, np.full((3, 3), np.nan, np.float32))
    with pytest.raises(ValueError, match="unknown method"):
        convlab.dask.convolve(image, weights, method="fastest")
    with pytest.raises(ValueError, match=r"2-D \(H, W\) or 3-D"):
        convlab.dask.convolve(da.zeros((2, 2, 2, 2), chunks=1), weights)
    with pytest.raises(ValueError, match="origin 2 along axis 0"):
        convlab.dask.convolve(image, weights, origin=(2, 0))
    with pytest.raises(TypeError, match="dtype complex"):
        convlab.dask.convolve(image.astype(np.complex64), weights)
