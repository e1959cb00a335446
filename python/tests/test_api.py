# SPDX-License-Identifier: GPL-3.0-or-later
"""convlab.convolve and convlab.correlate against scipy.ndimage: every mode name, origins,
even and non-square kernels, kernels larger than the image, sizes from 1x1 to 1000x1500,
channels, dtypes, the output argument, the report and the errors."""
import threading
import time
import zlib

import numpy as np
import pytest

import convlab
from helpers import padded_oracle, relative_error, scipy_reflect_is_wrong, scipy_result, tolerance

SCIPY_MODES = ["reflect", "constant", "nearest", "mirror", "wrap", "grid-wrap", "grid-mirror", "grid-constant"]
FUNCTIONS = ["convolve", "correlate"]
SIZES = [(1, 1), (1, 7), (9, 1), (2, 3), (5, 5), (13, 4), (31, 37), (64, 48)]
KERNELS = [(1, 1), (1, 2), (2, 1), (2, 2), (3, 3), (3, 4), (4, 3), (5, 2), (6, 6), (7, 12), (17, 9), (40, 3)]


def random_case(rng, size, kernel):
    data = rng.uniform(-2, 3, size).astype(np.float32)
    weights = rng.uniform(-1, 1, kernel).astype(np.float32)
    origin = tuple(int(rng.integers(-(k // 2), (k - 1) // 2 + 1)) for k in kernel[:2])
    return data, weights, origin


def channels(data, weights):
    """channel_axis for an (H, W, C) image under 2-D weights (ConvLab's rule; scipy refuses them)."""
    return {"channel_axis": -1} if np.ndim(data) == 3 and np.ndim(weights) == 2 else {}


def check_against_scipy(function, data, weights, mode, cval, origin, **kwargs):
    result, report = getattr(convlab, function)(data, weights, mode=mode, cval=cval, origin=origin,
                                                return_report=True, **channels(data, weights), **kwargs)
    assert result.shape == data.shape
    correlate = function == "correlate"
    if scipy_reflect_is_wrong(data.shape[:2], weights.shape, origin, correlate, mode):
        planes = data[..., None] if data.ndim == 2 else data
        expected = np.stack([padded_oracle(planes[..., c], weights, "reflect", cval, origin, correlate)
                             for c in range(planes.shape[2])], axis=-1).reshape(data.shape)
    else:
        expected = scipy_result(function, data, weights, mode, cval, origin)
    error = relative_error(result, expected, weights, data, cval if "constant" in mode else 0.0)
    assert error <= tolerance(report), (function, mode, data.shape, weights.shape, origin, report["method"],
                                        error)
    return result


@pytest.mark.parametrize("mode", SCIPY_MODES)
@pytest.mark.parametrize("function", FUNCTIONS)
def test_every_scipy_mode_size_kernel_and_origin(function, mode):
    rng = np.random.default_rng(zlib.crc32(f"{function} {mode}".encode()))
    for size in SIZES:
        for kernel in KERNELS:
            data, weights, origin = random_case(rng, size, kernel)
            check_against_scipy(function, data, weights, mode, 1.25, origin)


@pytest.mark.parametrize("mode", SCIPY_MODES)
def test_every_origin_of_an_even_kernel(mode):
    rng = np.random.default_rng(7)
    data = rng.uniform(-1, 1, (11, 10)).astype(np.float32)
    weights = rng.uniform(-1, 1, (4, 6)).astype(np.float32)
    for oy in range(-2, 2):
        for ox in range(-3, 3):
            for function in FUNCTIONS:
                check_against_scipy(function, data, weights, mode, -0.5, (oy, ox))


def test_a_scalar_origin_applies_to_both_axes():
    rng = np.random.default_rng(3)
    data, weights, _ = random_case(rng, (12, 15), (4, 5))
    for function in FUNCTIONS:
        for origin in (-2, -1, 0, 1):
            pair = getattr(convlab, function)(data, weights, origin=(origin, origin))
            assert np.array_equal(getattr(convlab, function)(data, weights, origin=origin), pair)
            check_against_scipy(function, data, weights, "reflect", 0.0, (origin, origin))


@pytest.mark.parametrize("method", ["direct", "separable", "fft", "reference", "auto"])
@pytest.mark.parametrize("mode", ["reflect", "constant", "nearest", "mirror", "wrap"])
def test_every_method_on_a_large_image(method, mode):
    rng = np.random.default_rng(11)
    data = rng.uniform(0, 255, (1000, 1500)).astype(np.float32)
    kernel = (5, 4) if method != "reference" else (3, 2)
    weights = rng.uniform(-1, 1, kernel).astype(np.float32)
    for function in FUNCTIONS:
        check_against_scipy(function, data, weights, mode, 7.0, (1, -1), method=method)


def test_kernels_far_larger_than_the_image_in_every_mode():
    rng = np.random.default_rng(5)
    for mode in SCIPY_MODES:
        for size in [(1, 1), (2, 3), (3, 2)]:
            for kernel in [(25, 31), (64, 1), (1, 50)]:
                for function in FUNCTIONS:
                    data, weights, origin = random_case(rng, size, kernel)
                    check_against_scipy(function, data, weights, mode, 2.0, origin)


def test_scipy_reflect_cases_that_scipy_gets_wrong_follow_correlate1d():
    # The oracle substituted in check_against_scipy is checked here against scipy's 1-D filter,
    # which follows the periodic rule at any distance.
    import scipy.ndimage as ndi
    data = np.arange(1, 4, dtype=np.float32)[None, :]
    weights = np.zeros((1, 31), np.float32)
    weights[0, 0] = 1
    expected = ndi.correlate1d(data[0].astype(np.float64), weights[0].astype(np.float64), mode="reflect")
    assert scipy_reflect_is_wrong(data.shape, weights.shape, (0, 0), True, "reflect")
    assert np.array_equal(convlab.correlate(data, weights, mode="reflect")[0], expected)
    assert np.array_equal(padded_oracle(data, weights, "reflect", 0.0, (0, 0), True)[0], expected)


@pytest.mark.parametrize("channels", [1, 2, 3, 4, 5, 6, 9])
def test_channels_are_filtered_one_by_one(channels):
    rng = np.random.default_rng(channels)
    data = rng.uniform(-1, 1, (23, 19, channels)).astype(np.float32)
    weights = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
    for function in FUNCTIONS:
        for mode in ["reflect", "mirror", "constant", "wrap", "nearest"]:
            result = check_against_scipy(function, data, weights, mode, 0.5, (0, 1))
            for c in range(channels):
                alone = getattr(convlab, function)(data[:, :, c], weights, mode=mode, cval=0.5, origin=(0, 1))
                assert np.array_equal(result[:, :, c], alone)


def test_three_axis_weights_and_origin_as_scipy_writes_them():
    rng = np.random.default_rng(2)
    data = rng.uniform(-1, 1, (16, 12, 3)).astype(np.float32)
    weights = rng.uniform(-1, 1, (3, 2)).astype(np.float32)
    expected = convlab.convolve(data, weights, origin=(1, 0), channel_axis=-1)
    assert np.array_equal(convlab.convolve(data, weights[:, :, None], origin=(1, 0, 0)), expected)
    # 2-D weights over a 3-D array say nothing of its axes: an error, naming the ways to say it.
    with pytest.raises(ValueError, match="channel_axis.*axes="):
        convlab.convolve(data, weights)
    with pytest.raises(ValueError, match="channel axis"):
        convlab.convolve(data, weights[:, :, None], origin=(1, 0, 1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.uint8, np.uint16, np.int16, np.int32, np.bool_,
                                   np.float16])
def test_the_result_has_the_input_dtype_written_as_scipy_writes_it(dtype):
    # scipy sums in float64 and writes the sum into the input's dtype: integers truncated toward
    # zero and wrapped; ConvLab sums in float32 and writes alike. Off by one only where the
    # float64 sum lies within float32's rounding of an integer.
    import scipy.ndimage as ndi
    rng = np.random.default_rng(4)
    values = rng.uniform(-300, 300, (20, 17)) if np.dtype(dtype).kind in "if" else rng.uniform(0, 200, (20, 17))
    data = values.astype(dtype)
    weights = rng.uniform(-1, 1, (3, 3))
    result = convlab.convolve(data, weights, mode="mirror", precision="float32")
    assert result.dtype == np.dtype(dtype)
    exact = ndi.convolve(data.astype(np.float64), weights, mode="mirror")
    if np.dtype(dtype).kind == "f":
        eps = {2: 1e-3, 4: 1e-6, 8: 1e-6}[np.dtype(dtype).itemsize]
        assert relative_error(result, exact, weights, data) <= eps
        return
    expected = ndi.convolve(data, weights, mode="mirror")  # scipy's own dtype rule
    assert expected.dtype == np.dtype(dtype)
    differ = result != expected
    near_integer = np.abs(exact - np.round(exact)) <= 1e-5 * (np.abs(exact) + 1)
    assert not (differ & ~near_integer).any(), (dtype, np.argwhere(differ & ~near_integer)[:3])
    if dtype is not np.bool_:
        assert np.abs(result.astype(np.int64) - expected.astype(np.int64))[differ].max(initial=0) <= 1
    # output= picks another dtype: the float32 result as it is.
    as_float = convlab.convolve(data, weights, mode="mirror", output=np.float32, precision="float32")
    assert as_float.dtype == np.float32
    assert relative_error(as_float, exact, weights, data) <= 1e-6


def test_float64_input_is_computed_in_float64_and_float32_on_request():
    import scipy.ndimage as ndi
    data = np.random.default_rng(5).uniform(0, 1, (9, 9))
    weights = np.ones((3, 3)) / 9
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no PrecisionWarning any more: float64 is computed as such
        result, report = convlab.convolve(data, weights, return_report=True)
        fast = convlab.convolve(data, weights, precision="float32")
    assert result.dtype == fast.dtype == np.float64
    expected = ndi.convolve(data, weights)
    np.testing.assert_allclose(result, expected, rtol=1e-14, atol=0)
    assert np.abs(fast - expected).max() > 1e-12  # the float32 route rounds: a different result
    np.testing.assert_allclose(fast, expected, rtol=1e-6)
    assert report["method"] in ("direct", "separable")
    ints = np.full((9, 9), (1 << 25) + 1, np.int64)  # sums beyond 2**24: computed in float64, exactly
    np.testing.assert_array_equal(convlab.convolve(ints, np.ones((3, 3))), ndi.convolve(ints, np.ones((3, 3))))
    single = convlab.convolve(data.astype(np.float32), weights, precision="float64")  # asked for
    np.testing.assert_allclose(single, ndi.convolve(data.astype(np.float32).astype(np.float64), weights), rtol=1e-6)
    with pytest.raises(ValueError, match="precision"):
        convlab.convolve(data, weights, precision="float16")


@pytest.mark.parametrize("channels", [2, 3, 5])
def test_large_channel_last_arrays_on_several_threads_equal_each_plane_alone(channels):
    # Many bands of rows, each interleaved into the result as soon as it is done.
    rng = np.random.default_rng(20 + channels)
    data = rng.uniform(-1, 1, (1201, 1877, channels)).astype(np.float32)
    weights = rng.uniform(-1, 1, (3, 5)).astype(np.float32)
    for threads in (0, 2, 1):
        result = convlab.correlate(data, weights, mode="wrap", method="direct", threads=threads, channel_axis=-1)
        for c in range(channels):
            alone = convlab.correlate(np.ascontiguousarray(data[:, :, c]), weights, mode="wrap", method="direct")
            assert np.array_equal(result[:, :, c], alone), (threads, c)
    samples = rng.integers(0, 256, (1201, 1877, 3), dtype=np.uint8)
    assert np.array_equal(convlab.convolve(samples, weights, method="direct", threads=2, output=np.float32,
                                           channel_axis=-1),
                          convlab.convolve(samples.astype(np.float32), weights, method="direct", threads=2,
                                           channel_axis=-1))


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_8_and_16_bit_samples_give_the_float32_results_bit_for_bit(dtype):
    # The engine reads them as samples (PackedImage), up to four channels; five go through float32.
    rng = np.random.default_rng(12)
    top = np.iinfo(dtype).max
    for shape in [(37, 29), (37, 29, 1), (20, 31, 3), (16, 9, 4), (12, 10, 5), (1, 1)]:
        data = rng.integers(0, top, shape, dtype=dtype, endpoint=True)
        weights = rng.uniform(-1, 1, (4, 3)).astype(np.float32)
        kw = channels(data, weights)
        for method in ["direct", "separable", "fft", "reference"]:
            for mode in ["reflect", "mirror", "constant", "wrap", "nearest"]:
                result = convlab.correlate(data, weights, mode=mode, cval=3.5, origin=(1, 0), method=method,
                                           output=np.float32, **kw)
                expected = convlab.correlate(data.astype(np.float32), weights, mode=mode, cval=3.5, origin=(1, 0),
                                             method=method, **kw)
                assert result.dtype == np.float32 and result.shape == data.shape, (shape, method, mode)
                assert np.array_equal(result, expected), (shape, method, mode)
                # In the input's dtype by default: the float32 result truncated and wrapped.
                own = convlab.correlate(data, weights, mode=mode, cval=3.5, origin=(1, 0), method=method, **kw)
                assert own.dtype == dtype and np.array_equal(own, np.trunc(expected).astype(np.int64).astype(dtype))
                # Into a float32 output array, written where it lies; into a float64 one, converted.
                out = np.full(data.shape, np.nan, np.float32)
                got = convlab.correlate(data, weights, output=out, mode=mode, cval=3.5, origin=(1, 0), method=method,
                                        **kw)
                assert got is out and np.array_equal(out, expected), (shape, method, mode, "output")
                wide = np.zeros(data.shape, np.float64)
                assert convlab.correlate(data, weights, output=wide, mode=mode, cval=3.5, origin=(1, 0),
                                         method=method, **kw) is wide
                assert np.array_equal(wide, expected.astype(np.float64)), (shape, method, mode, "float64 output")
    with pytest.raises(ValueError, match="shape"):
        convlab.correlate(data, weights, output=np.zeros((2, 2), np.float32), **channels(data, weights))
    # The samples are read where they lie; an output sharing their memory gets the result of a
    # copy of them, not of samples it has already overwritten.
    shared = np.zeros(4 * 20 * 31 * 3, np.uint8)
    samples = shared[: shared.size // 4 if dtype == np.uint8 else shared.size // 2].view(dtype).reshape(20, 31, 3)
    samples[...] = rng.integers(0, top, samples.shape, dtype=dtype, endpoint=True)
    before = convlab.correlate(samples.copy(), weights, method="direct", output=np.float32, channel_axis=-1)
    overlapping = shared.view(np.float32).reshape(20, 31, 3)
    report = convlab.correlate(samples, weights, output=overlapping, method="direct", return_report=True,
                               channel_axis=-1)[1]
    assert np.array_equal(overlapping, before) and report["copy_in_ms"] > 0
    strided = rng.integers(0, top, (30, 40, 3), dtype=dtype, endpoint=True)[::2, 1::3]
    assert np.array_equal(convlab.convolve(strided, weights, output=np.float32, channel_axis=-1),
                          convlab.convolve(strided.astype(np.float32), weights, channel_axis=-1))
    report = convlab.convolve(strided, weights, return_report=True, channel_axis=-1)[1]
    assert report["copy_in_ms"] >= 0 and report["copy_out_ms"] >= 0 and "channel_groups" not in report


def test_non_contiguous_and_read_only_inputs_give_the_same_result():
    rng = np.random.default_rng(8)
    base = rng.uniform(-1, 1, (40, 60)).astype(np.float32)
    weights = rng.uniform(-1, 1, (5, 3)).astype(np.float32)
    views = [base[::2, ::3], np.asfortranarray(base), base.T, base[5:30, 7:50]]
    for view in views:
        expected = convlab.correlate(np.ascontiguousarray(view), weights)
        assert np.array_equal(convlab.correlate(view, weights), expected)
    frozen = base.copy()
    frozen.setflags(write=False)
    assert np.array_equal(convlab.correlate(frozen, weights), convlab.correlate(base, weights))
    untouched = base.copy()
    convlab.correlate(base, weights)
    assert np.array_equal(base, untouched)


def test_one_channel_float32_is_read_in_place_and_may_be_its_own_output():
    rng = np.random.default_rng(13)
    data = rng.uniform(-1, 1, (70, 90)).astype(np.float32)
    weights = rng.uniform(-1, 1, (5, 4)).astype(np.float32)
    # The same plane as channel 0 of an interleaved array, which is gathered first.
    gathered = convlab.convolve(np.stack([data, data], axis=2), weights, channel_axis=-1)[:, :, 0]
    for shaped in (data, data[:, :, np.newaxis]):
        result, report = convlab.convolve(shaped, weights, return_report=True, **channels(shaped, weights))
        assert result.shape == shaped.shape
        assert np.array_equal(result.reshape(data.shape), gathered)
        assert report["copy_in_ms"] == 0 and report["copy_out_ms"] == 0, report
    in_place = data.copy()
    assert convlab.convolve(in_place, weights, output=in_place) is in_place
    assert np.array_equal(in_place, gathered)


def test_channel_last_float32_is_read_and_written_where_it_lies():
    # The engine reads the interleaved samples in place and writes the result's pixels itself:
    # no copy in or out. Direct and separable filter the whole pixels where they lie (taps a
    # pixel apart), with no stage of interleaving; FFT interleaves its planar result as a stage.
    rng = np.random.default_rng(23)
    data = rng.uniform(-1, 1, (61, 47, 3)).astype(np.float32)
    weights = rng.uniform(-1, 1, (5, 5)).astype(np.float32)
    for method in ["direct", "separable", "fft"]:
        planes = [convlab.correlate(np.ascontiguousarray(data[:, :, c]), weights, method=method) for c in range(3)]
        out = np.full(data.shape, np.nan, np.float32)
        result, report = convlab.correlate(data, weights, output=out, method=method, return_report=True,
                                           channel_axis=-1)
        assert result is out
        for c in range(3):
            assert np.array_equal(out[:, :, c], planes[c]), (method, c)
        assert report["copy_in_ms"] == 0 and report["copy_out_ms"] == 0, report
        stages = [s["name"] for s in report["stages"]]
        assert ("interleave output" in stages) == (method == "fft"), (method, stages)
        assert np.array_equal(convlab.correlate(data, weights, method=method, channel_axis=-1), out), method
        in_place = data.copy()
        assert convlab.correlate(in_place, weights, output=in_place, method=method, channel_axis=-1) is in_place
        assert np.array_equal(in_place, out), method


def test_output_array_or_dtype():
    rng = np.random.default_rng(9)
    data = rng.uniform(0, 10, (30, 20, 2)).astype(np.float32)
    weights = rng.uniform(0, 1, (3, 3)).astype(np.float32)
    expected = convlab.convolve(data, weights, channel_axis=-1)
    out = np.full(data.shape, np.nan, np.float32)
    assert convlab.convolve(data, weights, channel_axis=-1, output=out) is out
    assert np.array_equal(out, expected)
    wide = np.zeros(data.shape, np.float64)
    assert convlab.convolve(data, weights, channel_axis=-1, output=wide) is wide
    assert np.array_equal(wide, expected.astype(np.float64))
    as_dtype = convlab.convolve(data, weights, channel_axis=-1, output=np.float64)
    assert as_dtype.dtype == np.float64 and np.array_equal(as_dtype, expected)
    assert np.array_equal(convlab.convolve(data, weights, channel_axis=-1, output=np.uint8), np.trunc(expected).astype(np.uint8))
    plane = np.zeros((30, 20), np.float32)
    with pytest.raises(ValueError, match="shape"):
        convlab.convolve(data, weights, channel_axis=-1, output=plane)


def test_one_channel_outputs_without_a_result_image_or_a_fresh_one():
    # A float32 output array is the engine's output itself (no "allocate output", no copy out), at
    # any alignment of its storage; an output that is the input gets the result through a copy.
    rng = np.random.default_rng(21)
    data = rng.uniform(0, 1, (70, 90)).astype(np.float32)
    weights = rng.uniform(-1, 1, (5, 3)).astype(np.float32)
    expected = convlab.correlate(data, weights, mode="wrap")
    for offset in (0, 1, 3):
        storage = np.full(data.size + 8, np.nan, np.float32)
        out = storage[offset:offset + data.size].reshape(data.shape)
        result, report = convlab.correlate(data, weights, output=out, mode="wrap", return_report=True)
        assert result is out and np.array_equal(out, expected)
        assert report["copy_out_ms"] == 0 and "allocate output" not in [s["name"] for s in report["stages"]]
        assert np.isnan(storage[:offset]).all() and np.isnan(storage[offset + data.size:]).all()
    inplace = data.copy()
    assert convlab.correlate(inplace, weights, output=inplace, mode="wrap") is inplace
    assert np.array_equal(inplace, expected)
    # A result numpy let go lends its memory to the next of its size; a result still held is
    # never written again.
    held = convlab.correlate(data, weights, mode="wrap")
    for _ in range(3):
        other, report = convlab.correlate(data, -weights, mode="wrap", return_report=True)
        assert np.array_equal(other, -expected)
        del other
    assert "allocate output" not in [s["name"] for s in report["stages"]]
    assert np.array_equal(held, expected)


def test_convlab_mode_names_and_a_constant_written_in_the_mode():
    rng = np.random.default_rng(10)
    data, weights, origin = random_case(rng, (14, 9), (4, 5))
    for convlab_name, scipy_name in [("replicate", "nearest"), ("reflect101", "mirror"), ("symmetric", "reflect"),
                                     ("circular", "wrap"), ("BORDER_REFLECT_101", "mirror"), ("edge", "nearest")]:
        assert np.array_equal(convlab.convolve(data, weights, mode=convlab_name, origin=origin),
                              convlab.convolve(data, weights, mode=scipy_name, origin=origin))
    assert np.array_equal(convlab.convolve(data, weights, mode="constant:2.5", cval=9.0),
                          convlab.convolve(data, weights, mode="constant", cval=2.5))
    assert convlab.border_name("grid-mirror") == "reflect" and convlab.border_name("nearest") == "replicate"


def test_the_report_says_what_ran_and_why():
    rng = np.random.default_rng(12)
    data = rng.uniform(0, 1, (200, 300, 3)).astype(np.float32)
    weights = np.array([[1, 1, 1], [1, -8, 1], [1, 1, 1]], np.float32)
    result, report = convlab.convolve(data, weights, return_report=True, channel_axis=-1)
    assert report["method"] in ("direct", "separable", "fft") and report["reason"]
    assert {e["method"] for e in report["estimates"]} == {"direct", "separable", "fft"}
    # The stages add up to the total but for an "other" below 0.01 ms (docs/semantics.md).
    assert abs(sum(s["ms"] for s in report["stages"]) - report["total_ms"]) <= 0.01 + 1e-9
    assert report["copy_in_ms"] >= 0 and report["copy_out_ms"] >= 0
    forced = convlab.convolve(data, weights, method="fft", device="cpu", threads=1, return_report=True,
                              channel_axis=-1)[1]
    assert forced["method"] == "fft" and forced["reason"] and forced["threads"] == 1
    wide = np.repeat(data, 2, axis=2)
    groups = convlab.convolve(wide, weights, return_report=True, channel_axis=-1)[1]["channel_groups"]
    assert len(groups) == 2
    assert convlab.convolve(data, weights, return_report=False, channel_axis=-1).shape == result.shape


def test_the_engine_runs_without_the_gil():
    data = np.random.default_rng(13).uniform(0, 1, (1500, 1500)).astype(np.float32)
    weights = np.ones((9, 9), np.float32)
    done = threading.Event()
    worker = threading.Thread(target=lambda: (convlab.convolve(data, weights, method="reference", threads=1),
                                               done.set()))
    ticks = 0
    worker.start()
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    worker.join()
    # With the GIL held for the whole run this thread could not have counted during it.
    assert ticks >= 10


def test_bad_arguments_raise_with_a_clear_message():
    data = np.zeros((8, 8), np.float32)
    weights = np.ones((3, 3), np.float32)
    with pytest.raises(ValueError, match=r"weights have 2 axes and the input 1"):
        convlab.convolve(np.zeros(8, np.float32), weights)
    with pytest.raises(ValueError, match=r"weights have 2 axes and the input 4"):
        convlab.convolve(np.zeros((2, 2, 2, 2), np.float32), weights)
    with pytest.raises(ValueError, match=r"weights have 1 axes and the input 2"):
        convlab.convolve(data, np.ones(3))
    with pytest.raises(ValueError, match=r"spread over 3 axes"):
        convlab.convolve(np.zeros((4, 4, 4), np.float32), np.ones((2, 2, 2)))
    with pytest.raises(ValueError, match=r"channel_axis is for an image with channels"):
        convlab.convolve(data, weights, channel_axis=-1)
    with pytest.raises(ValueError, match="empty"):
        convlab.convolve(data, np.ones((0, 3), np.float32))
    bad = weights.copy()
    bad[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"row 1.*column 2.*not finite|not finite"):
        convlab.convolve(data, bad)
    with pytest.raises(ValueError, match=r"unknown border mode 'sideways'.*valid: .*replicate.*scipy's names"):
        convlab.convolve(data, weights, mode="sideways")
    with pytest.raises(TypeError, match="dtype object"):
        convlab.convolve(np.array([[1, "a"], [2, 3]], dtype=object), weights)
    with pytest.raises(TypeError, match="output must have complex dtype"):  # a complex result, a real array
        convlab.convolve(data.astype(np.complex64), weights, output=np.zeros_like(data))
    with pytest.raises(TypeError, match="weights has dtype"):
        convlab.convolve(data, np.array([["x"]]))
    with pytest.raises(ValueError, match=r"origin 2 along axis 1 is outside -1..1"):
        convlab.convolve(data, weights, origin=(0, 2))
    with pytest.raises(ValueError, match=r"origin 3 along axis 0 is outside"):  # the first axis first
        convlab.convolve(data, weights, origin=3)
    with pytest.raises(TypeError, match="origin must be integers"):
        convlab.convolve(data, weights, origin=(0.5, 0))
    with pytest.raises(ValueError, match="unknown method 'fastest'"):
        convlab.convolve(data, weights, method="fastest")
    with pytest.raises(ValueError, match="not a finite"):
        convlab.convolve(data, weights, mode="constant", cval=float("nan"))
    with pytest.raises(ValueError, match="outside 1..1025"):
        convlab.convolve(data, np.ones((1, 1026), np.float32))
    with pytest.raises(TypeError, match="mode must be a string"):
        convlab.convolve(data, weights, mode=3)
    assert issubclass(convlab.Error, ValueError)


def test_tables_come_from_the_engine():
    names = [m["name"] for m in convlab.border_modes()]
    assert names == ["constant", "replicate", "reflect", "mirror", "wrap"]
    assert {m["scipy"] for m in convlab.border_modes()} == {"constant", "nearest", "reflect", "mirror", "wrap"}
    for m in convlab.border_modes():
        assert convlab.border_name(m["scipy"]) == m["name"]
    assert "fft" in [m["name"] for m in convlab.methods()]
