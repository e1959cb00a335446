# SPDX-License-Identifier: GPL-3.0-or-later
"""convlab-cli --export dask: the snippet, run as written, reproduces the CLI's own result on
the same .npy file, through convlab.dask and, with the module hidden, through dask-image."""
import builtins
import os
import subprocess

import dask
import dask.array as da
import numpy as np
import pytest

from helpers import relative_error

CLI = os.environ.get("CONVLAB_CLI")
pytestmark = pytest.mark.skipif(not CLI, reason="CONVLAB_CLI (set by ctest) names the convlab-cli to export with")

BORDERS = ["constant:2.5", "replicate", "reflect", "mirror", "wrap"]
# kernel text, anchor, scale, offset, normalize
KERNELS = [("1 2 -1; 0 3 1; 2 -2 1", None, 1.0, 0.0, False),
           ("1 2; 3 4; -5 6", "0,2", 0.5, 3.0, False),
           ("1 2 3 4; 2 -1 0 1; 0 0 1 1", "3,0", 1.0, -2.0, True)]


def cli_options(kernel, anchor, scale, offset, normalize, border, correlate):
    options = ["-k", kernel, "-b", border, "--scale", str(scale), "--offset", str(offset)]
    options += ["--anchor", anchor] if anchor else []
    options += ["--normalize"] if normalize else []
    options += ["--correlate"] if correlate else []
    return options


def run_cli(*args):
    done = subprocess.run([CLI, *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def run_snippet(code, img, hide_convlab):
    """Runs the snippet with `img` as a chunked dask array; returns its `out`, computed."""
    real_import = builtins.__import__

    def without_convlab(name, *args, **kwargs):
        if name == "convlab" or name.startswith("convlab."):
            raise ImportError(f"No module named '{name}'")
        return real_import(name, *args, **kwargs)

    scope = {"img": img}
    if hide_convlab:
        builtins.__import__ = without_convlab
    try:
        exec(compile(code, "<export>", "exec"), scope)
    finally:
        builtins.__import__ = real_import
    assert isinstance(scope["out"], da.Array) and scope["out"].chunks == img.chunks
    with dask.config.set(scheduler="threads"):
        return scope["out"].compute()


@pytest.mark.parametrize("border", BORDERS)
def test_snippets_reproduce_the_cli(tmp_path, border):
    rng = np.random.default_rng(len(border))
    compared = 0
    for correlate in (False, True):
        for index, (kernel, anchor, scale, offset, normalize) in enumerate(KERNELS):
            channels = 3 if index % 2 else 1
            shape = (37, 29, channels) if channels > 1 else (37, 29)
            data = rng.uniform(-1, 2, shape).astype(np.float32)
            source, target = tmp_path / "in.npy", tmp_path / "out.npy"
            np.save(source, data)
            options = cli_options(kernel, anchor, scale, offset, normalize, border, correlate)
            run_cli(str(source), str(target), *options)
            expected = np.load(target)
            code = run_cli("--export", "dask", *options)
            assert "convlab.dask." in code and "ndfilters." in code
            weights = np.array([[float(v) for v in row.split()] for row in kernel.split(";")])
            image = da.from_array(data, chunks=(16, 8) + data.shape[2:])
            for hide in (False, True):
                result = run_snippet(code, image, hide)
                assert result.dtype == np.float32 and result.shape == expected.shape
                error = relative_error(result, expected, weights * scale / (weights.sum() if normalize else 1), data,
                                       2.5 if border.startswith("constant") else 0.0)
                assert error <= 1e-5, (border, correlate, kernel, hide, error)
                compared += 1
    assert compared == 12


def test_the_json_form_carries_the_same_snippet():
    import json
    code = run_cli("--export", "dask", "-k", "1 2 1", "-b", "mirror")
    report = json.loads(run_cli("--export", "dask", "-k", "1 2 1", "-b", "mirror", "--json"))
    assert report["target"] == "dask" and report["code"] == code
    assert 'convlab.dask.convolve(src, kk, mode="mirror", origin=oo)' in code
