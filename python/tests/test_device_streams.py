# SPDX-License-Identifier: GPL-3.0-or-later
"""Which stream the CUDA session waits on for a GPU array (issue 51, defect 2), with stand-in
producers and no GPU: CuPy's interface (version 3) names its stream, or None for nothing
pending; torch's (version 2) names none, so torch's current stream is asked, and without it the
legacy stream (which orders after every blocking stream) stands; the output array's stream is
waited for as well as the input's."""
import sys
import types

import numpy as np
import pytest

import convlab
from convlab import _device


def _interface(shape=(4, 4), version=3, **extra):
    cai = {"shape": shape, "typestr": "<f4", "data": (4096, False), "version": version, "strides": None}
    cai.update(extra)
    return cai


class CupyLike:
    def __init__(self, stream):
        self.__cuda_array_interface__ = _interface(stream=stream)


class TorchLike:
    """torch's tensors: interface version 2, no stream; `device` for torch.cuda.current_stream."""
    def __init__(self, address=4096):
        self.device = "cuda:0"
        self.__cuda_array_interface__ = _interface(version=2)
        self.__cuda_array_interface__["data"] = (address, False)


TorchLike.__module__ = "torch"


class NumbaLike:  # version 2 from a producer convlab cannot ask
    def __init__(self):
        self.__cuda_array_interface__ = _interface(version=2)


@pytest.fixture
def torch_current_stream(monkeypatch):
    """A stand-in torch module whose current stream is the handle the test sets."""
    state = {"stream": 0x7F00, "asked": []}

    def current_stream(device):
        state["asked"].append(device)
        return types.SimpleNamespace(cuda_stream=state["stream"])

    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(cuda=types.SimpleNamespace(
        current_stream=current_stream)))
    return state


def test_a_named_stream_is_waited_for_and_none_means_nothing_pending():
    assert _device.stream_to_wait(_interface(stream=0x1234)) == 0x1234
    assert _device.stream_to_wait(_interface(stream=2)) == 2  # the per-thread default stream
    assert _device.stream_to_wait(_interface(stream=None)) == 0


def test_an_absent_stream_is_unknown_not_none():
    # Version 2 says nothing about pending work: the legacy stream, never "nothing to wait for".
    assert _device.stream_to_wait(_interface(version=2)) == _device.LEGACY_STREAM
    assert _device.stream_to_wait(_interface(version=2), current_stream=0x55) == 0x55
    assert _device.stream_to_wait(_interface(version=2), current_stream=0) == _device.LEGACY_STREAM  # null stream
    # A producer's own stream entry wins over what is current.
    assert _device.stream_to_wait(_interface(stream=9), current_stream=0x55) == 9


def test_torch_tensors_wait_on_torchs_current_stream(torch_current_stream):
    _, _, stream, _ = _device._planes_of(TorchLike(), "input")
    assert stream == 0x7F00
    assert torch_current_stream["asked"] == ["cuda:0"]
    torch_current_stream["stream"] = 0  # torch's default stream is the null (legacy) stream
    assert _device._planes_of(TorchLike(), "input")[2] == _device.LEGACY_STREAM
    assert _device._planes_of(NumbaLike(), "input")[2] == _device.LEGACY_STREAM
    assert _device._planes_of(CupyLike(None), "input")[2] == 0


def test_the_output_arrays_stream_is_waited_for_too(monkeypatch, torch_current_stream):
    calls = []

    def filter_device(*args, output_stream=0):
        calls.append({"stream": args[5], "output_stream": output_stream})
        return False, None

    monkeypatch.setattr(_device._convlab, "filter_device", filter_device)
    weights = np.ones((3, 3), np.float32)
    convlab.convolve(CupyLike(0x1234), weights, output=TorchLike(address=8192))
    convlab.correlate(TorchLike(), weights, output=CupyLike(None))
    convlab.correlate1d(CupyLike(7), [1, 2, 1], output=CupyLike(8))
    assert calls == [{"stream": 0x1234, "output_stream": 0x7F00}, {"stream": 0x7F00, "output_stream": 0},
                     {"stream": 7, "output_stream": 8}]
