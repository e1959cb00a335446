# SPDX-License-Identifier: GPL-3.0-or-later
"""The scipy.ndimage filter family on ConvLab's engine, against scipy: every mode, sizes from
1 to 100, each filter's parameters, the dtypes (the result in the input's, as scipy writes it),
the shapes (1-D, N-D with axes, stacks, images with channels) and the docstrings' examples."""
import doctest
import zlib

import numpy as np
import pytest
import scipy.ndimage as ndi

import convlab
import convlab._ndimage
import convlab._separable
import convlab.dask

MODES = ["reflect", "mirror", "nearest", "wrap", "constant", "grid-wrap", "grid-mirror", "grid-constant"]
SHAPES = [(1, 1), (1, 9), (7, 1), (5, 6), (23, 17), (64, 100)]

# Each filter with a few parameter sets: (name, positional arguments, keyword arguments).
CASES = [
    ("gaussian_filter", (1.0,), {}),
    ("gaussian_filter", (2.5,), {"truncate": 3.0}),
    ("gaussian_filter", ((0.8, 3.0),), {"order": (1, 0)}),
    ("gaussian_filter", (1.5,), {"order": 2, "radius": 4}),
    ("gaussian_filter", ((0, 2.0),), {}),  # sigma 0 leaves an axis as it is
    ("gaussian_filter1d", (1.7,), {"axis": 0}),
    ("gaussian_filter1d", (1.2,), {"order": 3}),
    ("uniform_filter", (3,), {}),
    ("uniform_filter", ((4, 2),), {"origin": (1, 0)}),
    ("uniform_filter1d", (5,), {"axis": 0, "origin": -2}),
    ("sobel", (), {}),
    ("sobel", (), {"axis": 0}),
    ("prewitt", (), {"axis": -1}),
    ("prewitt", (), {"axis": 0}),
    ("laplace", (), {}),
    ("gaussian_laplace", (1.3,), {}),
    ("gaussian_laplace", ((1.0, 2.0),), {"truncate": 2.5}),
]


def relative(result, expected, scale=None):
    """max |a - b| over the size of a result value (docs/semantics.md, Tolerances): `scale`,
    the filter's sum |K| times the input's largest magnitude, else the largest |expected|."""
    diff = np.abs(np.asarray(result, np.float64) - np.asarray(expected, np.float64))
    if scale is None:
        scale = float(np.abs(expected).max())
    return np.inf if np.isnan(diff).any() else float(diff.max()) / max(scale, 1.0)


def filter_scale(name, args, kwargs, data):
    """sum |K| of the filter as one linear operator (its response to an impulse, summed in
    magnitude) times max |input|: the size of a result value."""
    impulse = np.zeros((61,) * data.ndim)
    impulse[(30,) * data.ndim] = 1.0
    response = getattr(ndi, name)(impulse, *args, mode="constant", **kwargs)
    return float(np.abs(response).sum()) * max(float(np.abs(data.astype(np.float64)).max()), 0.5)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name, args, kwargs", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_each_filter_equals_scipy_in_every_mode_and_size(name, args, kwargs, mode):
    rng = np.random.default_rng(zlib.crc32(f"{name} {mode} {kwargs}".encode()))
    for shape in SHAPES:
        data = rng.uniform(-100, 200, shape).astype(np.float32)
        cval = 7.5 if "constant" in mode else 0.0
        result = getattr(convlab, name)(data, *args, mode=mode, cval=cval, **kwargs)
        expected = getattr(ndi, name)(data.astype(np.float64), *args, mode=mode, cval=cval, **kwargs)
        assert result.dtype == np.float32 and result.shape == data.shape
        error = relative(result, expected, filter_scale(name, args, kwargs, data) + abs(cval))
        assert error <= 2e-6, (name, shape, mode, kwargs, error)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int16, np.int32, np.float16, np.float64, np.bool_])
@pytest.mark.parametrize("name, args, kwargs", CASES[::2], ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES[::2])])
def test_the_result_has_the_input_dtype_as_scipy_writes_it(name, args, kwargs, dtype):
    rng = np.random.default_rng(zlib.crc32(f"{name} {np.dtype(dtype)}".encode()))
    low = 0 if np.dtype(dtype).kind in "ub" else -100
    data = rng.uniform(low, 250, (31, 29)).astype(dtype)
    if dtype is np.bool_:
        data = rng.random((31, 29)) < 0.5
    result = getattr(convlab, name)(data, *args, precision="float32", **kwargs)
    assert result.dtype == np.dtype(dtype)
    if np.dtype(dtype) == np.float16:  # scipy refuses float16: compare with its float64 result
        expected = getattr(ndi, name)(data.astype(np.float64), *args, **kwargs)
        assert relative(result, expected, filter_scale(name, args, kwargs, data)) <= 1e-3
        return
    expected = getattr(ndi, name)(data, *args, **kwargs)
    assert expected.dtype == np.dtype(dtype)
    if np.dtype(dtype).kind == "f":
        assert relative(result, expected, filter_scale(name, args, kwargs, data)) <= 2e-6
        return
    # Integers: scipy writes each pass's float64 sums truncated (and wrapped); ConvLab its
    # float32 sums. They agree but where a sum lies within float32's rounding of an integer.
    differ = result.astype(np.int64) != expected.astype(np.int64)
    if dtype is np.bool_:
        # One pass of float sums read as a byte: they differ only where a sum is an integer
        # (a neighbourhood of ones under a Gaussian sums to 1 in float64 and to 1 +- 1e-7 in float32).
        exact = getattr(ndi, name)(data.astype(np.float64), *args, **kwargs)
        ambiguous = np.abs(exact - np.round(exact)) <= 1e-6 * np.maximum(np.abs(exact), 1)
        assert not (differ & ~ambiguous).any(), (name, np.argwhere(differ & ~ambiguous)[:3])
        return
    assert differ.mean() <= 0.01, (name, dtype, differ.sum())
    if dtype is not np.bool_:
        steps = np.abs(result.astype(np.int64) - expected.astype(np.int64))[differ]
        wraps = np.iinfo(dtype).max - np.iinfo(dtype).min
        assert np.all((steps <= 1) | (steps == wraps)), (name, dtype, steps[:5])


def test_integer_passes_wrap_as_scipy_writes_them():
    # uint8 through sobel: the derivative's negative values wrap, and the next pass reads them.
    data = np.array([[0, 0, 10, 10, 0]] * 4, np.uint8)
    for name in ("sobel", "prewitt", "laplace"):
        assert np.array_equal(getattr(convlab, name)(data), getattr(ndi, name)(data)), name
    assert np.array_equal(convlab.correlate(data, [[-1.5, 0, 0.25]]), ndi.correlate(data, np.array([[-1.5, 0, 0.25]])))


@pytest.mark.parametrize("mode", MODES)
def test_one_dimensional_filters_along_every_axis(mode):
    rng = np.random.default_rng(zlib.crc32(mode.encode()))
    data = rng.uniform(-1, 1, (6, 9, 11)).astype(np.float32)
    weights = rng.uniform(-1, 1, 4)
    for axis in (0, 1, 2, -1):
        for origin in (-2, 0, 1):
            for name in ("correlate1d", "convolve1d"):
                result = getattr(convlab, name)(data, weights, axis=axis, mode=mode, cval=0.5, origin=origin)
                expected = getattr(ndi, name)(data.astype(np.float64), weights, axis=axis, mode=mode, cval=0.5,
                                              origin=origin)
                assert relative(result, expected) <= 2e-6, (name, axis, origin)
    line = rng.uniform(-1, 1, 50).astype(np.float32)
    assert relative(convlab.correlate1d(line, weights, mode=mode), ndi.correlate1d(line, weights, mode=mode)) <= 2e-6
    assert relative(convlab.convolve(line, weights, mode=mode), ndi.convolve(line, weights, mode=mode)) <= 2e-6


def test_shapes_axes_stacks_and_images_with_channels():
    rng = np.random.default_rng(3)
    volume = rng.uniform(-1, 1, (5, 12, 14)).astype(np.float32)
    weights = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
    # A 3-D array with 2-D weights is refused, naming the two ways to say what it is.
    with pytest.raises(ValueError, match="channel_axis.*axes="):
        convlab.convolve(volume, weights)
    # A stack of images over axes (1, 2), (0, 2), reversed axes, negative axes: scipy's axes=.
    for axes in [(1, 2), (-2, -1), (0, 2), (2, 0), (0, 1)]:
        expected = ndi.convolve(volume.astype(np.float64), weights, axes=axes, mode="mirror")
        assert relative(convlab.convolve(volume, weights, axes=axes, mode="mirror"), expected) <= 2e-6, axes
    # 3-D weights of size 1 along one axis are scipy's own form of the same.
    expected = ndi.correlate(volume.astype(np.float64), weights[None], mode="wrap")
    assert relative(convlab.correlate(volume, weights[None], mode="wrap"), expected) <= 2e-6
    # An image with channels, last or first, every channel alike.
    image = rng.uniform(0, 255, (20, 24, 3)).astype(np.float32)
    per_channel = np.stack([ndi.convolve(image[..., c].astype(np.float64), weights) for c in range(3)], axis=-1)
    assert relative(convlab.convolve(image, weights, channel_axis=-1), per_channel) <= 2e-6
    first = np.ascontiguousarray(np.moveaxis(image, -1, 0))
    assert relative(convlab.convolve(first, weights, channel_axis=0), np.moveaxis(per_channel, -1, 0)) <= 2e-6
    with pytest.raises(ValueError, match="channel axis"):
        convlab.convolve(image, weights, channel_axis=-1, axes=(1, 2))
    with pytest.raises(ValueError, match="one or two axes"):
        convlab.correlate(volume, np.ones((2, 2, 2)), axes=(0, 1, 2))
    # A 4-D array: every index but the filtered axes is an image of the batch.
    hyper = rng.uniform(-1, 1, (2, 3, 10, 9)).astype(np.float32)
    expected = ndi.correlate(hyper.astype(np.float64), weights, axes=(2, 3), mode="nearest")
    assert relative(convlab.correlate(hyper, weights, axes=(2, 3), mode="nearest"), expected) <= 2e-6
    # The separable filters over a volume's three axes and over chosen axes.
    for kwargs in [{}, {"axes": (0, 2)}]:
        expected = ndi.gaussian_filter(volume.astype(np.float64), 1.2, **kwargs)
        assert relative(convlab.gaussian_filter(volume, 1.2, **kwargs), expected) <= 2e-6, kwargs
        expected = ndi.uniform_filter(volume.astype(np.float64), 3, **kwargs)
        assert relative(convlab.uniform_filter(volume, 3, **kwargs), expected) <= 2e-6, kwargs
    assert relative(convlab.sobel(volume, axis=1), ndi.sobel(volume.astype(np.float64), axis=1)) <= 2e-6


def test_output_arrays_and_dtypes():
    rng = np.random.default_rng(4)
    data = rng.uniform(0, 255, (40, 30)).astype(np.uint8)
    expected = ndi.gaussian_filter(data.astype(np.float64), 2.0)
    out = np.zeros(data.shape, np.float32)
    assert convlab.gaussian_filter(data, 2.0, output=out) is out
    assert relative(out, expected) <= 2e-6
    assert convlab.gaussian_filter(data, 2.0, output=np.float64).dtype == np.float64
    into = np.zeros(data.shape, np.int16)
    assert convlab.sobel(data, output=into) is into
    assert np.array_equal(into, ndi.sobel(data, output=np.int16))
    with pytest.raises(ValueError, match="shape"):
        convlab.uniform_filter(data, 3, output=np.zeros((2, 2), np.float32))
    with pytest.raises(TypeError):
        convlab.uniform_filter(data, 3, output="not a dtype")


def test_bad_parameters_raise_before_any_work():
    data = np.zeros((8, 8), np.float32)
    with pytest.raises(ValueError, match="sigma"):
        convlab.gaussian_filter(data, -1.0)
    with pytest.raises(ValueError, match="sigma must be one value or one per filtered axis"):
        convlab.gaussian_filter(data, (1.0, 2.0, 3.0))
    with pytest.raises(ValueError, match="radius"):
        convlab.gaussian_filter(data, 1.0, radius=-2)
    with pytest.raises(ValueError, match="order"):
        convlab.gaussian_filter(data, 1.0, order=-1)
    with pytest.raises(ValueError, match="size"):
        convlab.uniform_filter1d(data, 0)  # uniform_filter leaves size 0 as scipy does; its 1-D form refuses it
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        convlab.sobel(data, axis=2)
    with pytest.raises(ValueError, match="weights must be 1-D"):
        convlab.correlate1d(data, np.ones((2, 2)))
    with pytest.raises(ValueError, match="unknown border mode"):
        convlab.laplace(data, mode="sideways")


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # scipy's own +inf + -inf
@pytest.mark.parametrize("mode", MODES)
def test_nan_and_infinities_reach_what_scipy_reaches(mode):
    # scipy's convolve and correlate leave the zero weights out of the footprint; its 1-D
    # filters (and so gaussian, sobel, prewitt, laplace) multiply them (0 * NaN is NaN). ConvLab
    # follows each, with NaN, +inf and -inf at the corners, the edges and the centre.
    cross = np.array([[0, 1, 0], [1, -4, 1], [0, 1, 0]], np.float32)
    sparse = np.array([[0, 2, 0, -1], [1, 0, 0, 3]], np.float32)
    cases = [("convolve", (cross,)), ("correlate", (sparse,)), ("correlate1d", ([1.0, 0.0, -1.0],)),
             ("sobel", ()), ("prewitt", (0,)), ("laplace", ()), ("gaussian_filter", (1.0,)),
             ("gaussian_laplace", (1.0,))]
    rng = np.random.default_rng(zlib.crc32(mode.encode()))
    for where in [(0, 0), (0, 5), (4, 4), (8, 9), (3, 9), (8, 0)]:
        for value in (np.nan, np.inf, -np.inf):
            data = rng.uniform(-1, 1, (9, 10)).astype(np.float32)
            data[where] = value
            for name, args in cases:
                ours = getattr(convlab, name)(data, *args, mode=mode, cval=0.5)
                theirs = getattr(ndi, name)(data.astype(np.float64), *args, mode=mode, cval=0.5)
                for kind in (np.isnan, np.isposinf, np.isneginf):
                    assert np.array_equal(kind(ours), kind(theirs)), (name, where, value, kind.__name__)
                finite = np.isfinite(theirs)
                assert relative(ours[finite], theirs[finite], 4.0) <= 2e-6, (name, where, value)
    # IEEE's rule on request: the whole window, zero weights included.
    one_nan = np.ones((7, 7), np.float32)
    one_nan[3, 3] = np.nan
    assert np.isnan(convlab.convolve(one_nan, cross)).sum() == np.isnan(ndi.convolve(one_nan, cross)).sum() == 5
    assert np.isnan(convlab.convolve(one_nan, cross, zero_taps="multiply")).sum() == 9
    with pytest.raises(ValueError, match="zero_taps"):
        convlab.convolve(one_nan, cross, zero_taps="ignore")
    # The one difference kept: scipy's uniform filter is a running sum, which carries a NaN
    # along the rest of the line; ConvLab's stays within the window.
    line = np.ones((1, 12), np.float32)
    line[0, 3] = np.nan
    assert np.flatnonzero(np.isnan(convlab.uniform_filter1d(line, 3))).tolist() == [2, 3, 4]
    assert np.isnan(ndi.uniform_filter1d(line, 3)).sum() > 3


class _CudaInterface:
    """A producer of GPU memory as CuPy, torch and numba present it (__cuda_array_interface__,
    version 3); the pointer is never dereferenced on the host."""

    def __init__(self, shape=(4, 4), typestr="<f4", strides=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (0, False), "version": 3,
                                         "strides": strides, "stream": 1}


def test_gpu_arrays_go_to_the_cuda_session_or_say_why_not():
    # convolve, correlate, convolve1d and correlate1d take CUDA arrays where they lie: on a
    # machine without a usable GPU the CUDA session says so; the other filters, and arrays the
    # session cannot read as planes, are refused before anything runs, saying what to pass.
    class DlpackOnCuda:
        def __dlpack_device__(self):
            return (2, 0)

        def __dlpack__(self, stream=None):
            raise AssertionError("must not be exported")

    class DlpackOnHost:  # kDLCPU: host memory, which numpy takes as usual
        def __init__(self):
            self.array = np.ones((4, 4), np.float32)

        def __dlpack_device__(self):
            return (1, 0)

        def __array__(self, dtype=None, copy=None):
            return self.array

    weights = np.ones((3, 3), np.float32)
    out = _CudaInterface()
    for call in (lambda x: convlab.convolve(x, weights, output=out), lambda x: convlab.correlate(x, weights, output=out),
                 lambda x: convlab.correlate1d(x, [1, 2, 1], output=out), lambda x: convlab.convolve1d(x, [1, 2, 1],
                                                                                                       output=out)):
        with pytest.raises(convlab.Error, match=r"CUDA cannot run here|not in this device's memory"):
            call(_CudaInterface())
    with pytest.raises(TypeError, match="no empty_like"):  # neither CuPy's nor torch's: output= is needed
        convlab.convolve(_CudaInterface(), weights)
    with pytest.raises(TypeError, match=r"in CUDA memory.*host"):
        convlab.gaussian_filter(_CudaInterface(), 1.0)
    with pytest.raises(TypeError, match="weights in GPU memory: pass them as a host array"):
        convlab.correlate(np.ones((4, 4), np.float32), _CudaInterface())  # GPU weights without .get()/.cpu()
    with pytest.raises(TypeError, match="float32"):
        convlab.convolve(_CudaInterface(typestr="<f8"), weights, output=out)
    with pytest.raises(ValueError, match="C-contiguous"):
        convlab.convolve(_CudaInterface(strides=(4, 16)), weights, output=out)
    with pytest.raises(ValueError, match="last one or two axes"):
        convlab.correlate1d(_CudaInterface(), [1, 2, 1], axis=0, output=out)
    with pytest.raises(ValueError, match="shape"):
        convlab.convolve(_CudaInterface(), weights, output=_CudaInterface((4, 5)))
    with pytest.raises(TypeError, match="float32 CUDA array"):
        convlab.convolve(_CudaInterface(), weights, output=np.uint8)
    cupy_installed = __import__("importlib").util.find_spec("cupy") is not None
    if not cupy_installed:
        with pytest.raises(TypeError, match="through CuPy, which is not installed"):
            convlab.convolve(DlpackOnCuda(), weights)
    assert np.array_equal(convlab.convolve(DlpackOnHost(), weights), convlab.convolve(np.ones((4, 4), np.float32),
                                                                                       weights))


def test_the_namespace_is_the_api():
    # dir() lists what the package offers, not the modules it is written with.
    assert set(dir(convlab)) == set(convlab.__all__ + ["dask"])
    for leaked in ("np", "numbers", "prepare_input", "anchors", "engine_border"):
        assert leaked not in dir(convlab)
    for name in convlab.__all__:
        assert getattr(convlab, name) is not None


@pytest.mark.parametrize("module", [convlab, convlab._ndimage, convlab._separable, convlab.dask],
                         ids=["convlab", "ndimage", "separable", "dask"])
def test_the_docstrings_examples_run_as_written(module):
    # Every public function has numpydoc sections, and their examples are doctests.
    for name in getattr(module, "__all__", []):
        function = getattr(module, name)
        if not callable(function) or isinstance(function, type):
            continue
        doc = function.__doc__ or ""
        for section in ("Returns", "Examples"):
            assert section in doc, (module.__name__, name, section)
    failures, tried = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried > 0 and failures == 0


# ---- map=: the CLI's output mappings ----

@pytest.mark.parametrize("name", ["clamp", "abs", "normalize", "offset"])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_map_writes_what_the_cli_writes(tmp_path, name, dtype):
    # The same input through convolve(map=...) and convlab-cli --map: the same samples, bit for bit.
    cli = __import__("os").environ.get("CONVLAB_CLI")
    if not cli:
        pytest.skip("CONVLAB_CLI (set by ctest) names the convlab-cli to compare with")
    import subprocess
    rng = np.random.default_rng(7)
    top = 1.0 if dtype is np.float32 else float(np.iinfo(dtype).max)
    image = (rng.random((37, 29)) * top).astype(dtype)
    target = np.uint16 if dtype is np.uint16 else np.uint8
    np.save(tmp_path / "in.npy", image)
    kernel = "0 -1 0; -1 5 -1; 0 -1 0" if name != "abs" else "-1 0 1; -2 0 2; -1 0 1"
    weights = np.array([[float(v) for v in row.split()] for row in kernel.split(";")])
    depth = "16" if target is np.uint16 else "8"
    done = subprocess.run([cli, str(tmp_path / "in.npy"), str(tmp_path / "out.npy"), "-k", kernel, "--map", name,
                           "--depth", depth, "--correlate", "-m", "direct"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    want = np.load(tmp_path / "out.npy")
    got = convlab.correlate(image, weights, output=target, map=name, method="direct")
    assert got.dtype == want.dtype == np.dtype(target)
    np.testing.assert_array_equal(got, want)


def test_map_into_an_output_array_and_its_errors():
    image = np.ascontiguousarray((np.arange(12, dtype=np.uint8).reshape(3, 4) * 20)[:, ::-1])  # falling: negative sums
    out = np.zeros((3, 4), np.uint8)
    got = convlab.sobel(image, axis=1, output=out, map="abs")
    assert got is out
    want = convlab.map_samples(convlab.sobel(image.astype(np.float32), axis=1), "abs", np.uint8, 255)
    np.testing.assert_array_equal(out, want)
    assert out.max() > 0
    # scipy's cast without map: the same negative sums wrap instead of taking their magnitude.
    wrapped = convlab.sobel(image, axis=1)
    assert not np.array_equal(wrapped, out)
    with pytest.raises(ValueError, match="uint8 or uint16"):
        convlab.convolve(np.ones((4, 4), np.float32), np.ones((3, 3)), map="clamp")  # float output
    with pytest.raises(ValueError, match="map must be one of"):
        convlab.convolve(image, np.ones((3, 3)), map="saturate")
    with pytest.raises(ValueError, match="shape"):
        convlab.convolve(image, np.ones((3, 3)), output=np.zeros((2, 2), np.uint8), map="clamp")
    readonly = np.zeros((3, 4), np.uint8)
    readonly.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        convlab.convolve(image, np.ones((3, 3)), output=readonly, map="clamp")
    result, report = convlab.convolve(image, np.ones((3, 3)) / 9, map="clamp", return_report=True)
    assert result.dtype == np.uint8 and "method" in report
    assert "map" in str(__import__("inspect").signature(convlab.gaussian_filter))


def test_map_samples_rounds_clamps_and_keeps_nan_at_zero():
    values = np.array([np.nan, -np.inf, np.inf, 0.5 / 255, 1.5 / 255, 2.5 / 255, 1.0, -0.2])
    np.testing.assert_array_equal(convlab.map_samples(values), [0, 0, 255, 1, 2, 3, 255, 0])
    np.testing.assert_array_equal(convlab.map_samples(values, "abs"), [0, 255, 255, 1, 2, 3, 255, 51])
    np.testing.assert_array_equal(convlab.map_samples([2.0, 4.0, 6.0, np.nan], "normalize"), [0, 128, 255, 0])
    np.testing.assert_array_equal(convlab.map_samples([3.0, 3.0], "normalize"), [0, 0])
    assert convlab.map_samples([0.0], "offset", np.uint16)[0] == 32768
    with pytest.raises(ValueError, match="source_max"):
        convlab.map_samples([1.0], source_max=0)
    with pytest.raises(ValueError, match="uint8 or uint16"):
        convlab.map_samples([1.0], dtype=np.int16)
