# SPDX-License-Identifier: GPL-3.0-or-later
"""What a Python program may do around a filter: fork, exit with a daemon thread filtering,
Ctrl-C, an output in the input's memory, extreme dtypes and sizes (docs/python.md,
Reliability). Each case that once hung, aborted or answered wrongly has its test."""
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time
import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.ndimage as ndi

import convlab
from convlab import _convlab

MAX_SIDE = _convlab.max_side
BUILD_PYTHON = os.path.dirname(os.path.dirname(convlab.__file__))


def _python(script, **kwargs):
    """A fresh interpreter running `script` against the convlab under test."""
    env = dict(os.environ, PYTHONPATH=BUILD_PYTHON)
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(script)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kwargs)


# ---- fork, exit, Ctrl-C ----

def _pooled_calls(image, kernel):
    """Filters on every core (the pool's workers) with direct and FFT (the FFT plan cache)."""
    return (convlab.correlate(image, kernel, method="direct", threads=0),
            convlab.correlate(image, kernel, method="fft", threads=0))


def test_a_forked_child_filters_on_the_pool():
    rng = np.random.default_rng(1)
    image, kernel = rng.random((700, 501), np.float32), rng.random((9, 9), np.float32)
    in_parent = _pooled_calls(image, kernel)  # the pool now has workers, which the child lacks
    _, report = convlab.correlate(image, kernel, method="direct", threads=0, return_report=True)
    if os.cpu_count() > 1:
        assert report["threads"] > 1, "the call must reach the pool for the test to mean anything"
    with multiprocessing.get_context("fork").Pool(1) as pool:
        in_child = pool.apply_async(_pooled_calls, (image, kernel)).get(timeout=120)
    for parent, child in zip(in_parent, in_child):
        np.testing.assert_array_equal(child, parent)


def test_exit_while_a_daemon_thread_filters():
    script = """
        import threading, time
        import numpy as np, convlab
        image = np.random.default_rng(2).random((600, 600), np.float32)
        kernel = np.ones((15, 15), np.float32) / 225
        def loop():
            while True:
                convlab.correlate(image, kernel, method=METHOD, threads=0)
        threading.Thread(target=loop, daemon=True).start()
        time.sleep(0.3)
    """
    for run, method in enumerate(["direct", "fft", "separable", "direct", "fft", "direct"]):
        proc = _python(script.replace("METHOD", repr(method)))
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, f"run {run} ({method}): exit status {proc.returncode}, stderr {err[-500:]}"
        assert "terminate" not in err


def test_ctrl_c_stops_a_long_run_within_a_second():
    # A 4096x4096 image and a 255x255 kernel by direct: about ten seconds of work on two cores.
    proc = _python("""
        import sys, time
        import numpy as np, convlab
        rng = np.random.default_rng(3)
        image, kernel = rng.random((4096, 4096), np.float32), rng.random((255, 255), np.float32)
        print("ready", flush=True)
        try:
            convlab.correlate(image, kernel, method="direct")
        except KeyboardInterrupt as e:
            tb = e.__traceback__
            while tb.tb_next:
                tb = tb.tb_next
            print("interrupted", time.monotonic(), tb.tb_frame.f_code.co_name, flush=True)
            sys.exit(3)
        print("finished", flush=True)
    """)
    try:
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(1.5)  # well inside the engine's run
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    words = out.split()
    assert proc.returncode == 3 and words[0] == "interrupted", (out, err)
    assert words[2] == "_engine", "the interrupt must come from inside the engine's call"
    assert float(words[1]) - sent < 1.0, f"{float(words[1]) - sent:.2f} s after SIGINT"


def test_a_run_off_the_main_thread_is_not_watched_and_still_right():
    import threading
    rng = np.random.default_rng(4)
    image, kernel = rng.random((512, 512), np.float32), rng.random((15, 15), np.float32)
    results = []
    thread = threading.Thread(target=lambda: results.append(convlab.correlate(image, kernel, method="direct")))
    thread.start()
    thread.join(60)
    np.testing.assert_array_equal(results[0], convlab.correlate(image, kernel, method="direct"))


# ---- silent wrong results ----

def test_output_in_the_input_with_a_nan_and_zero_taps():
    x = np.arange(81, dtype=np.float32).reshape(9, 9)
    x[4, 4] = np.nan
    x[0, 8] = np.inf
    kernel = np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]], np.float32)  # zero corners
    expected = ndi.convolve(x, kernel, mode="nearest")
    result = convlab.convolve(x, kernel, output=x, mode="nearest")
    assert result is x
    np.testing.assert_array_equal(np.isnan(x), np.isnan(expected))
    assert np.isnan(x).sum() == 5  # the plus: the NaN and its four neighbours, as scipy
    np.testing.assert_allclose(x, expected, rtol=1e-6)


def test_output_overlapping_the_input_at_an_offset():
    stack = np.random.default_rng(5).random((6, 7, 5)).astype(np.float32)
    source, output = stack[:-1], stack[1:]  # image i's result lands on image i + 1's samples
    kernel = np.random.default_rng(6).random((3, 3)).astype(np.float32)
    expected = ndi.correlate(source.copy(), kernel[None], mode="reflect")
    convlab.correlate(source, kernel, output=output, axes=(1, 2))
    np.testing.assert_allclose(output, expected, rtol=1e-5, atol=1e-6)


def test_integer_sums_beyond_float32_are_computed_in_float64():
    rng = np.random.default_rng(7)
    small = rng.integers(0, 1 << 20, (40, 40)).astype(np.int32)
    box = np.ones((31, 31))  # sums up to 961 * 2**20: beyond 2**24, exact in float64
    odd = small | 1  # odd samples: float32 sums of them round
    big = rng.integers(10 ** 6, 2 * 10 ** 6, (20, 20)).astype(np.int64)
    cases = [
        lambda m: m.correlate(odd, box, mode="constant"),
        lambda m: m.correlate(np.full((20, 20), 65535, np.uint16), np.ones((17, 17))),  # 289 * 65535
        lambda m: m.uniform_filter(big, 20),  # a pass of 20 sums 4e7 > 2**24
        lambda m: m.sobel(3 * big),           # passes multiply: 2 * 4 * 6e6 > 2**24
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for case in cases:
            np.testing.assert_array_equal(case(convlab), case(ndi))
    rounded = convlab.correlate(odd, box, mode="constant", precision="float32")  # float32 asked for
    assert (rounded != ndi.correlate(odd, box, mode="constant")).any()


def test_uint64_beyond_2_63_comes_back_exactly():
    values = np.array([[0, 2 ** 63, 3 * 2 ** 62], [2 ** 64 - 2 ** 40, 5, 2 ** 63 + 2 ** 40]], np.uint64)
    result = convlab.correlate(values, np.ones((1, 1)), precision="float32")  # rounding said wanted
    assert result.dtype == np.uint64
    np.testing.assert_array_equal(result, values)  # each a float32 exactly
    np.testing.assert_array_equal(convlab.correlate(values, [[0.5, 0.5]], mode="nearest", precision="float32"),
                                  ndi.correlate(values, [[0.5, 0.5]], mode="nearest"))


@pytest.mark.parametrize("name,args", [("sobel", ()), ("prewitt", ()), ("gaussian_filter", (1.5,)),
                                       ("uniform_filter", (3,)), ("gaussian_laplace", (1.0,)), ("laplace", ())])
def test_bool_passes_carry_bytes_as_scipy(name, args):
    image = np.random.default_rng(8).random((33, 40)) > 0.6
    expected = getattr(ndi, name)(image, *args)
    result = getattr(convlab, name)(image, *args)
    assert result.dtype == expected.dtype == np.bool_
    np.testing.assert_array_equal(result, expected)


# ---- sizes checked before memory is spent ----

def _peak_bytes(call):
    tracemalloc.start()
    try:
        with pytest.raises(ValueError) as error:
            call()
        return tracemalloc.get_traced_memory()[1], str(error.value)
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("sigma", [129.0, 1500, 1e6])
def test_a_gaussian_beyond_the_taps_is_refused_before_it_is_built(sigma):
    image = np.zeros((64, 64), np.float32)
    peak, message = _peak_bytes(lambda: convlab.gaussian_filter(image, sigma))
    assert peak < 4 << 20, f"{peak} bytes before the refusal"
    assert f"sigma {sigma:g}" in message and str(_convlab.max_kernel_side) in message
    assert "128.1" in message  # the largest sigma the engine takes at truncate 4
    convlab.gaussian_filter(image, 128.0)  # the largest that fits runs


def test_a_box_beyond_the_taps_is_refused_before_it_is_built():
    peak, message = _peak_bytes(lambda: convlab.uniform_filter(np.zeros((8, 8)), 50000))
    assert peak < 4 << 20 and "size 50000" in message


def test_a_broadcast_view_beyond_the_side_is_refused_before_a_copy():
    huge = np.broadcast_to(np.float32(1), (70000, 70000))  # 18 GiB once copied
    peak, message = _peak_bytes(lambda: convlab.correlate(huge, np.ones((3, 3))))
    assert peak < 4 << 20 and "(70000, 70000)" in message


# ---- limits and messages ----

@pytest.mark.parametrize("shape,call", [
    ((MAX_SIDE + 1, 3), lambda x: convlab.correlate(x, np.ones((3, 3)))),
    ((MAX_SIDE + 1,), lambda x: convlab.correlate1d(x, [1, 2, 1])),
    ((3, MAX_SIDE + 1), lambda x: convlab.gaussian_filter(x, 1)),
])
def test_a_side_beyond_the_limit_names_the_callers_shape(shape, call):
    with pytest.raises(ValueError, match=f"of shape {tuple(shape)}".replace("(", "\\(").replace(")", "\\)")):
        call(np.zeros(shape, np.float32))


@pytest.mark.parametrize("shape,axis", [((MAX_SIDE + 7, 5), 1), ((4, MAX_SIDE + 3), 0), ((2, MAX_SIDE + 3, 3), 0)])
def test_a_long_axis_that_is_not_filtered_runs(shape, axis):
    x = np.random.default_rng(9).random(shape, dtype=np.float32)
    result = convlab.correlate1d(x, [1, -2, 3], axis=axis, mode="wrap")
    np.testing.assert_allclose(result, ndi.correlate1d(x, [1, -2, 3], axis=axis, mode="wrap"), rtol=1e-5, atol=1e-5)


def test_threads_beyond_an_int_is_a_python_error():
    for threads in (2 ** 31, -2 ** 31 - 1):
        with pytest.raises(ValueError, match="threads"):
            convlab.correlate(np.zeros((4, 4)), np.ones((3, 3)), threads=threads)


def test_an_unused_nan_cval_is_accepted():
    x = np.random.default_rng(10).random((12, 9)).astype(np.float32)
    k = np.ones((3, 3), np.float32)
    np.testing.assert_array_equal(convlab.correlate(x, k, mode="reflect", cval=np.nan), convlab.correlate(x, k))
    np.testing.assert_array_equal(convlab.gaussian_filter(x, 1, cval=np.nan), convlab.gaussian_filter(x, 1))


def test_a_mode_with_an_empty_value_is_refused():
    for mode in ("constant:", "constant="):
        with pytest.raises(ValueError, match="nothing after"):
            convlab.correlate(np.zeros((4, 4), np.float32), np.ones((3, 3)), mode=mode, cval=5.0)


def test_border_indices_at_the_extremes():
    with pytest.raises(convlab.Error, match="range"):
        _convlab.border_indices(-2 ** 62, 2 ** 62, 5, "reflect")
    with pytest.raises(convlab.Error):
        _convlab.border_indices(-2 ** 63, 2 ** 63 - 1, 5, "wrap")
    far = 2 ** 62
    np.testing.assert_array_equal(_convlab.border_indices(far, far + 7, 5, "wrap"), [(far + i) % 5 for i in range(7)])


def test_dask_messages():
    da = pytest.importorskip("dask.array")
    import convlab.dask
    x = da.from_array(np.arange(100, dtype=np.float32).reshape(10, 10), chunks=5)
    unknown = x[x[:, 0] > 30]  # boolean indexing: unknown chunk sizes
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        convlab.dask.correlate(unknown, np.ones((3, 3)))
    with pytest.raises(ValueError, match="threads"):
        convlab.dask.correlate(x, np.ones((3, 3)), threads=2 ** 31)
    k = np.ones((3, 3), np.float32)
    np.testing.assert_array_equal(convlab.dask.correlate(x, k, cval=np.nan).compute(),
                                  convlab.correlate(x.compute(), k))
