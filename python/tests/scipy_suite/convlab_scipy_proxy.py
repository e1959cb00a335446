# SPDX-License-Identifier: GPL-3.0-or-later
"""A pytest plugin that makes scipy.ndimage's own tests judge convlab (docs/python.md, *scipy's
own tests*): loaded with ``-p convlab_scipy_proxy`` before the tests are collected, it puts
convlab's filters in ``scipy.ndimage``'s namespace in place of scipy's (the test file reads
them as ``ndimage.NAME``, some at import time), leaves every other function to scipy, and
records which tests call a replaced function and how they end.

The record is written as JSON to the path in CONVLAB_SCIPY_RECORD: how many tests were
collected, and for each test id that touched convlab its outcome ("passed", "failed",
"skipped", "xfailed", "xpassed").
"""
import functools
import json
import os
import warnings

import pytest
import scipy.ndimage
from scipy._lib._array_api import xp_capabilities_table

import convlab

# The functions convlab offers with scipy.ndimage's signatures: every name convlab exports that
# scipy.ndimage has too (convlab's own extras, map_samples and the like, are not scipy's).
REPLACED = tuple(name for name in convlab.__all__ if callable(getattr(convlab, name))
                 and hasattr(scipy.ndimage, name) and not isinstance(getattr(convlab, name), type))

_touched = [False]  # whether the running test has called a replaced function
_record = {}


def _recording(function):
    @functools.wraps(function)
    def call(*args, **kwargs):
        _touched[0] = True
        with warnings.catch_warnings():
            # float64 is computed in float32 today (issue 50, item 2): the warning says so, and
            # scipy's tests that turn warnings into errors would fail on it, not on a result.
            warnings.simplefilter("ignore", convlab.PrecisionWarning)
            return function(*args, **kwargs)
    return call


def pytest_configure(config):
    for name in REPLACED:
        scipys, convlabs = getattr(scipy.ndimage, name), _recording(getattr(convlab, name))
        # The tests mark each function with the array backends scipy's own supports (numpy here)
        xp_capabilities_table[convlabs] = xp_capabilities_table[scipys]
        setattr(scipy.ndimage, name, convlabs)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    _touched[0] = False


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if not _touched[0]:
        return
    if report.when == "call" or report.failed or report.skipped:
        if report.skipped:
            state = "xfailed" if hasattr(report, "wasxfail") else "skipped"
        elif report.failed:
            state = "failed"
        else:
            state = "xpassed" if hasattr(report, "wasxfail") else "passed"
        previous = _record.get(item.nodeid)
        if previous != "failed":  # a teardown error after a pass is a failure
            _record[item.nodeid] = state


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("CONVLAB_SCIPY_RECORD")
    if path:
        with open(path, "w") as f:
            json.dump({"replaced": list(REPLACED), "collected": session.testscollected, "tests": _record}, f,
                      indent=0, sort_keys=True)
