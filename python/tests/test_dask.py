# SPDX-License-Identifier: GPL-3.0-or-later
"""convlab.dask against convlab on the whole array: every border mode, both semantics, even
kernels and origins (asymmetric overlap), kernels larger than a chunk and than the array,
channel-last arrays, on a distributed.LocalCluster of two workers."""
import warnings

import dask.array as da
import numpy as np
import pytest
from dask.core import get_dependencies
from distributed import Client, LocalCluster

import convlab
import convlab.dask
from helpers import relative_error, tolerance

MODES = ["constant", "nearest", "reflect", "mirror", "wrap"]
FUNCTIONS = ["convolve", "correlate"]


@pytest.fixture(scope="module")
def client():
    # Threads, not processes: two cores here, and the engine releases the GIL.
    # dashboard_address=None still binds the default port 8787; ":0" takes any free one, so two
    # runs of the suite at once do not meet.
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster:
        with Client(cluster, set_as_default=False) as c:
            yield c


@pytest.fixture(scope="module")
def large(client):
    """An 8192x8192 float32 array and its 1024x1024 chunks, held by the cluster's workers."""
    data = np.random.default_rng(1).uniform(-1, 1, (8192, 8192)).astype(np.float32)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Sending large graph", UserWarning)  # the data, sent once
        return data, client.persist(da.from_array(data, chunks=(1024, 1024)))


def check_equal_to_whole(function, data, chunks, weights, mode, origin, method="direct", cval=1.5, client=None):
    image = chunks if isinstance(chunks, da.Array) else da.from_array(data, chunks=chunks)
    channels = {"channel_axis": -1} if data.ndim == 3 and np.ndim(weights) == 2 else {}
    lazy = getattr(convlab.dask, function)(image, weights, mode=mode, cval=cval, origin=origin, method=method,
                                           **channels)
    # The small cases run on the local threads: the cluster's cost per task would dominate.
    result = client.compute(lazy).result() if client else lazy.compute(scheduler="threads")
    expected, report = getattr(convlab, function)(data, weights, mode=mode, cval=cval, origin=origin,
                                                  method=method, return_report=True, **channels)
    assert result.shape == data.shape and result.dtype == expected.dtype
    error = relative_error(result, expected, weights, data, cval if mode == "constant" else 0.0)
    assert error <= tolerance(report), (function, mode, data.shape, image.chunks, weights.shape, origin, error)
    return lazy


@pytest.mark.parametrize("mode", MODES)
def test_an_8192_square_array_in_1024_chunks_equals_the_whole(client, large, mode):
    data, image = large
    weights = np.random.default_rng(2).uniform(-1, 1, (4, 5)).astype(np.float32)
    for function in FUNCTIONS:
        lazy = check_equal_to_whole(function, data, image, weights, mode, (1, -2), client=client)
        assert lazy.chunks == ((1024,) * 8, (1024,) * 8)


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


def test_each_chunk_reads_its_window_by_the_border_rule():
    assert convlab.dask.window_reach((4, 5), (2, 2), True) == [(2, 1), (2, 2)]
    assert convlab.dask.window_reach((4, 5), (2, 2), False) == [(1, 2), (2, 2)]
    # Chunks (4, 4, 2) of an axis of 10, reaching 2 before and 1 after: the first chunk reads
    # coordinates -2..4, the reflected -2, -1 from its own start, 0..3 as a slice, 4 from chunk 1.
    axis = convlab.dask.AxisWindows((4, 4, 2), 2, 1, "reflect")
    assert axis.lengths == [7, 7, 5] and axis.constant == [False, False, False]
    (d0, c0, s0), (d1, c1, s1) = axis.runs[0]
    assert (d0, c0, d1, c1, s1) == (slice(0, 6), 0, slice(6, 7), 1, slice(0, 1))
    assert list(s0) == [1, 0, 0, 1, 2, 3]
    # wrap: the last chunk's window ends in the first chunk's first sample.
    assert convlab.dask.AxisWindows((4, 4, 2), 2, 1, "wrap").runs[2][-1] == (slice(4, 5), 0, slice(0, 1))
    # constant: coordinates outside read the constant, and only chunks inside are sources.
    constant = convlab.dask.AxisWindows((4, 4, 2), 2, 1, "constant")
    assert constant.constant == [True, False, True]
    assert [(d, c) for d, c, _ in constant.runs[0]] == [(slice(2, 6), 0), (slice(6, 7), 1)]
    # A window longer than the axis reads it again and again (a kernel larger than the array).
    long = convlab.dask.AxisWindows((3,), 5, 4, "mirror")
    assert long.lengths == [12] and list(long.runs[0][0][2]) == [1, 0, 1, 2] * 3


def test_one_task_per_output_chunk():
    image = da.zeros((4096, 4096), chunks=(512, 512), dtype=np.float32)
    inputs = len(image.__dask_graph__())
    for mode in MODES:
        out = convlab.dask.convolve(image, np.ones((3, 3), np.float32), mode=mode)
        assert len(out.__dask_graph__()) == inputs + 64 + 1, mode  # and the kernel, once
        # An interior chunk reads its 3 x 3 neighbourhood; a corner, under wrap, the far
        # corners too, and otherwise only the chunks beside it (and each, the kernel).
        graph = dict(out.__dask_graph__())
        assert len(get_dependencies(graph, (out.name, 3, 3))) == 9 + 1, mode
        corner = get_dependencies(graph, (out.name, 0, 0))
        assert len(corner) == (9 if mode == "wrap" else 4) + 1, mode
        assert ((image.name, 7, 7) in corner) == (mode == "wrap"), mode


def test_worker_processes_receive_the_tasks_pickled():
    # A cluster of processes, as on several machines: each task and its plan travel pickled.
    rng = np.random.default_rng(7)
    data = rng.uniform(-1, 1, (300, 250, 2)).astype(np.float32)
    weights = rng.uniform(-1, 1, (7, 4)).astype(np.float32)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        with Client(cluster, set_as_default=False) as c:
            for mode in MODES:
                check_equal_to_whole("correlate", data, (64, 100, 1), weights, mode, (-3, 1), client=c)


def test_dtypes():
    rng = np.random.default_rng(4)
    weights = rng.uniform(-1, 1, (3, 3)).astype(np.float32)
    # The input's dtype, as convlab.convolve: integers truncated and wrapped.
    for dtype in (np.float64, np.uint8, np.uint16, np.int16):
        data = rng.uniform(0, 200, (70, 90)).astype(dtype)
        lazy = convlab.dask.convolve(da.from_array(data, chunks=(32, 32)), weights, mode="mirror", method="direct")
        result = lazy.compute(scheduler="threads")
        expected = convlab.convolve(data, weights, mode="mirror", method="direct", precision="float32")
        assert result.dtype == expected.dtype == dtype
        if dtype == np.float64:
            assert relative_error(result, expected, weights, data) <= 1e-5
        else:
            assert np.array_equal(result, expected), dtype


def test_a_numpy_array_and_scipy_style_three_axis_weights_are_accepted():
    rng = np.random.default_rng(5)
    data = rng.uniform(0, 1, (20, 30, 2)).astype(np.float32)
    weights = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
    result = convlab.dask.correlate(data, weights[:, :, None], origin=(0, 1, 0), mode="wrap").compute(scheduler="sync")
    expected = convlab.correlate(data, weights, origin=(0, 1), mode="wrap", channel_axis=-1)
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
    with pytest.raises(ValueError, match="weights have 2 axes and the input 4"):
        convlab.dask.convolve(da.zeros((2, 2, 2, 2), chunks=1), weights)
    with pytest.raises(ValueError, match=r"channel_axis \(-1 for \(H, W, C\)\)"):
        convlab.dask.convolve(da.zeros((4, 4, 3), chunks=2), weights)
    with pytest.raises(ValueError, match="origin 2 along axis 0"):
        convlab.dask.convolve(image, weights, origin=(2, 0))
    with pytest.raises(TypeError, match="dtype complex"):
        convlab.dask.convolve(image.astype(np.complex64), weights)
