# SPDX-License-Identifier: GPL-3.0-or-later
"""Runs dask-image's own tests of the filters convlab.dask offers, unmodified, against
convlab.dask (conftest.py beside this file swaps the functions in). The tests ship in
dask-image's sdist only; scripts/setup.sh fetches it into the git-ignored .deps/. Without it
this says why and exits 77, which CTest reports as skipped.

Usage: run.py SOURCE_ROOT WORK_DIR"""
import sys
import tarfile
from importlib.metadata import version
from pathlib import Path

SKIPPED = 77  # the suite's SKIP_RETURN_CODE
# dask-image's test modules of the offered functions (convolve, correlate, gaussian_filter,
# gaussian_laplace, uniform_filter, sobel, prewitt, laplace; it has no 1-D forms).
MODULES = ["test__conv.py", "test__gaussian.py", "test__smooth.py", "test__edge.py", "test__diff.py"]


def extracted_tests(root, work):
    """The test folder of the installed dask-image's sdist, extracted under `work`; None with the
    reason printed when the sdist is not there."""
    release = f"dask_image-{version('dask-image')}"
    sdist = root / ".deps" / f"{release}.tar.gz"
    if not sdist.is_file():
        print(f"python_daskimage skipped: {sdist} is missing. dask-image's tests are in its sdist, not its "
              "wheel; run scripts/setup.sh with a network once (pip download dask-image --no-binary :all: "
              "--no-deps -d .deps/)")
        return None
    tests = work / release / "tests" / "test_dask_image" / "test_ndfilters"
    if not tests.is_dir():
        with tarfile.open(sdist) as archive:
            members = [m for m in archive.getmembers() if m.name.startswith(f"{release}/tests/")]
            safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}  # Python >= 3.11.4
            archive.extractall(work, members=members, **safe)
    return tests


def main():
    import pytest
    root, work = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    tests = extracted_tests(root, work)
    if tests is None:
        return SKIPPED
    here = Path(__file__).resolve().parent
    # Our own ini (none of the sdist's settings), and this folder first so that its conftest
    # swaps the functions before dask-image's modules are imported.
    return pytest.main(["-q", "-p", "no:cacheprovider", "-c", str(here / "pytest.ini"), "--rootdir", str(work),
                        str(here)] + [str(tests / m) for m in MODULES])


if __name__ == "__main__":
    sys.exit(main())
