# SPDX-License-Identifier: GPL-3.0-or-later
"""ConvLab's convolution engine for NumPy arrays, with scipy.ndimage's conventions.

The linear filters of ``scipy.ndimage`` with their signatures: ``convolve``, ``correlate``,
``convolve1d``, ``correlate1d``, ``gaussian_filter``, ``gaussian_filter1d``,
``uniform_filter``, ``uniform_filter1d``, ``sobel``, ``prewitt``, ``laplace`` and
``gaussian_laplace``. Each computes what scipy computes, in the float type scipy's dtype rule
gives (float64 inputs in float64, within 1e-12; float32 and 8/16-bit inputs in float32, to
float32 precision: docs/semantics.md, Tolerances), and returns the input's dtype unless
``output`` says otherwise, integers truncated and wrapped as scipy writes them; complex inputs
(and complex weights) as scipy defines them, real and imaginary parts filtered apart.
``precision='float32'`` asks for float32's speed on a float64 input. A 3-D array with
2-D weights is an image with channels only when ``channel_axis`` says so; ``map=`` writes
uint8 or uint16 through the CLI's output mappings (``map_samples``) instead of scipy's cast; ``axes`` filters a
stack or a volume slice by slice. ``convlab.dask`` filters dask arrays chunk by chunk with
the same results.

docs/python.md is the module's documentation: parameters, dtypes, shapes, speed.
"""
from ._args import SCIPY_MODES, PrecisionWarning
from ._convlab import Error, __version__
from ._mapping import map_samples
from ._ndimage import convolve, convolve1d, correlate, correlate1d
from ._separable import (gaussian_filter, gaussian_filter1d, gaussian_laplace, laplace, prewitt, sobel, uniform_filter,
                         uniform_filter1d)
from . import _convlab

__all__ = ["convolve", "correlate", "convolve1d", "correlate1d", "gaussian_filter", "gaussian_filter1d",
           "uniform_filter", "uniform_filter1d", "sobel", "prewitt", "laplace", "gaussian_laplace",
           "map_samples", "Error", "PrecisionWarning", "border_modes", "methods", "border_name", "SCIPY_MODES", "__version__"]


def border_modes():
    """ConvLab's border modes as dicts: name, aliases, rule, the n = 4 example, scipy's name.

    Returns
    -------
    list of dict

    Examples
    --------
    >>> import convlab
    >>> [m["name"] for m in convlab.border_modes()]
    ['constant', 'replicate', 'reflect', 'mirror', 'wrap']
    """
    return _convlab.border_modes()


def methods():
    """The engine's methods (auto, direct, separable, fft, reference) as dicts.

    Returns
    -------
    list of dict

    Examples
    --------
    >>> import convlab
    >>> "separable" in [m["name"] for m in convlab.methods()]
    True
    """
    return _convlab.methods()


def border_name(mode):
    """ConvLab's name for a scipy or ConvLab mode name.

    Parameters
    ----------
    mode : str

    Returns
    -------
    str

    Raises
    ------
    convlab.Error
        For a name that is neither scipy's nor ConvLab's.

    Examples
    --------
    >>> import convlab
    >>> convlab.border_name("nearest")
    'replicate'
    """
    from ._args import border_name as name_of
    return name_of(mode)


def __dir__():
    return sorted(__all__ + ["dask"])
