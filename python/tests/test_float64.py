# SPDX-License-Identifier: GPL-3.0-or-later
"""float64 inputs computed in float64 (docs/python.md, *Precision*): every function against
scipy.ndimage within 1e-12 of the sums' scale (Σ|w| · max|x|, where a result that cancels to
about 0 makes a plain relative test meaningless), every mode, odd and tiny sizes, every method."""
import warnings

import numpy as np
import pytest
import scipy.ndimage as ndi

import convlab

from helpers import padded_oracle, relative_error, scipy_reflect_is_wrong

BAR = 1e-12
MODES = ["reflect", "mirror", "nearest", "wrap", "constant", "grid-wrap", "grid-constant", "grid-mirror"]
SHAPES = [(1, 1), (1, 7), (6, 1), (2, 3), (37, 29), (64, 70)]


def _data(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape) * 1e3 + 1e6  # float32 rounds these


def _close(result, expected, weights, data, cval=0.0):
    assert result.dtype == np.float64
    assert relative_error(result, expected, weights, data, cval) <= BAR


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("correlate", [False, True])
def test_convolve_and_correlate_match_scipy(shape, mode, correlate):
    data = _data(shape)
    rng = np.random.default_rng(1)
    ours, theirs = (convlab.correlate, ndi.correlate) if correlate else (convlab.convolve, ndi.convolve)
    kernels = [rng.standard_normal((1, 1)), rng.standard_normal((3, 3)), rng.standard_normal((4, 5)),
               rng.standard_normal((7, 1)), np.outer(rng.standard_normal(9), rng.standard_normal(7))]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no PrecisionWarning for float64
        for k in kernels:
            origin = (k.shape[0] - 1) // 2, -(k.shape[1] // 2)
            _close(ours(data, k, mode=mode, cval=2.5), _expected(theirs, data, k, mode, 2.5, (0, 0), correlate),
                   k, data, 2.5)
            _close(ours(data, k, mode=mode, origin=origin), _expected(theirs, data, k, mode, 0.0, origin, correlate),
                   k, data)


def _expected(theirs, data, k, mode, cval, origin, correlate):
    """scipy's result, or the numpy.pad oracle where scipy's n-D reflect reads wrong samples."""
    if scipy_reflect_is_wrong(data.shape, k.shape, origin, correlate, mode):
        return padded_oracle(data, k, "reflect", cval, origin, correlate)
    return theirs(data, k, mode=mode, cval=cval, origin=origin)


@pytest.mark.parametrize("method", ["auto", "direct", "separable", "fft", "reference"])
def test_every_method_computes_in_float64(method):
    data = _data((45, 38), 2)
    rng = np.random.default_rng(3)
    for k in (rng.standard_normal((5, 6)), np.outer(rng.standard_normal(11), rng.standard_normal(9))):
        result, report = convlab.convolve(data, k, mode="mirror", method=method, return_report=True)
        _close(result, ndi.convolve(data, k, mode="mirror"), k, data)
        assert report["method"] in ("direct", "separable", "reference")
        if method == "fft":
            assert "no float64 FFT" in report["reason"]
    rank_one = np.outer(rng.standard_normal(11), rng.standard_normal(9))
    _, report = convlab.convolve(data, rank_one, return_report=True)
    assert report["method"] == "separable" and report["rank"] == 1


def test_one_axis_forms_and_channels():
    data = _data((23, 31, 3), 4)
    w = np.random.default_rng(5).standard_normal(7)
    for axis in (0, 1, 2, -1):
        for mode in ("reflect", "constant", "wrap"):
            _close(convlab.correlate1d(data, w, axis, mode=mode, origin=1),
                   ndi.correlate1d(data, w, axis, mode=mode, origin=1), w, data)
            _close(convlab.convolve1d(data, w, axis, mode=mode), ndi.convolve1d(data, w, axis, mode=mode), w, data)
    k = np.random.default_rng(6).standard_normal((3, 5))
    _close(convlab.correlate(data, k, channel_axis=-1), ndi.correlate(data, k[:, :, None]), k, data)
    _close(convlab.correlate(data, k, axes=(0, 1)), ndi.correlate(data, k[:, :, None]), k, data)
    signal = _data((50,), 7)
    _close(convlab.convolve(signal, w), ndi.convolve(signal, w), w, signal)


@pytest.mark.parametrize("shape", [(1, 1), (3, 2), (40, 33), (17, 19, 4)])
@pytest.mark.parametrize("mode", ["reflect", "mirror", "nearest", "wrap", "constant"])
def test_separable_filters_match_scipy(shape, mode):
    data = _data(shape, 8)
    calls = [("gaussian_filter", (0.7,), {}), ("gaussian_filter", (3.0,), {}), ("gaussian_filter", (1.5,), {"order": 1}),
             ("gaussian_filter", (2.0,), {"order": (2, 0)}) if len(shape) == 2 else ("gaussian_filter", (1.0,), {}),
             ("uniform_filter", (1,), {}), ("uniform_filter", (4,), {}), ("uniform_filter", (5,), {}),
             ("sobel", (), {"axis": 0}), ("sobel", (), {"axis": -1}), ("prewitt", (), {}), ("laplace", (), {}),
             ("gaussian_laplace", (1.2,), {})]
    for name, args, kwargs in calls:
        result = getattr(convlab, name)(data, *args, mode=mode, cval=-3.0, **kwargs)
        expected = getattr(ndi, name)(data, *args, mode=mode, cval=-3.0, **kwargs)
        # The sums' scale: the passes' |w| multiply; a gain of 8 covers every call here.
        _close(result, expected, np.full(8, 1.0), data, 3.0)


def test_output_arrays_and_aliasing():
    data = _data((30, 27), 9)
    k = np.random.default_rng(10).standard_normal((3, 4))
    expected = ndi.correlate(data, k)
    out = np.empty_like(data)
    assert convlab.correlate(data, k, output=out) is out
    _close(out, expected, k, data)
    aliased = data.copy()
    convlab.correlate(aliased, k, output=aliased)  # the input's own memory: read before written
    _close(aliased, expected, k, data)
    as_float32 = convlab.correlate(data, k, output=np.float32)
    assert as_float32.dtype == np.float32
    assert relative_error(as_float32, expected, k, data) <= 1e-6


def test_non_finite_samples_follow_scipys_zero_tap_rule():
    data = _data((12, 11), 11)
    data[3, 4], data[8, 2] = np.nan, np.inf
    k = np.array([[0.0, 1.0, 0.0], [2.0, 0.0, -1.0], [0.0, 0.5, 0.0]])
    result, expected = convlab.correlate(data, k), ndi.correlate(data, k)
    np.testing.assert_array_equal(np.isnan(result), np.isnan(expected))
    np.testing.assert_array_equal(np.isinf(result), np.isinf(expected))
    finite = np.isfinite(expected)
    assert np.abs(result[finite] - expected[finite]).max() <= BAR * np.abs(k).sum() * np.abs(data[np.isfinite(data)]).max()


def test_float64_keeps_digits_float32_loses_and_float32_stays_float32():
    data = _data((33, 35), 12)
    k = np.full((3, 3), 1 / 9)
    exact = ndi.correlate(data, k)
    f64 = convlab.correlate(data, k)
    f32 = convlab.correlate(data, k, precision="float32")
    assert np.abs(f64 - exact).max() <= 1e-9           # about 1e-10 of 1e6
    assert np.abs(f32 - exact).max() > 1e-3            # float32's ulp at 1e6 is 0.06
    single = convlab.correlate(data.astype(np.float32), k)
    assert single.dtype == np.float32


def test_threads_give_the_same_bits():
    data = _data((97, 83), 13)
    k = np.random.default_rng(14).standard_normal((5, 5))
    one = convlab.convolve(data, k, threads=1)
    np.testing.assert_array_equal(one, convlab.convolve(data, k, threads=0))
    np.testing.assert_array_equal(one, convlab.convolve(data, k, threads=3))


def test_bad_arguments_are_clear_errors():
    data = _data((8, 8))
    with pytest.raises(ValueError, match="precision"):
        convlab.convolve(data, np.ones((3, 3)), precision="double")
    with pytest.raises(ValueError, match="CPU"):
        convlab.convolve(data, np.ones((3, 3)), device="cuda")
    with pytest.raises(ValueError, match="not finite"):
        convlab.convolve(data, np.array([[1.0, np.inf]]))
