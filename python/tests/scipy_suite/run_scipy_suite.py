# SPDX-License-Identifier: GPL-3.0-or-later
"""Runs scipy's own ``scipy/ndimage/tests/test_filters.py``, from the installed scipy and
unmodified, with convlab's filters in place of scipy's (convlab_scipy_proxy.py beside this
file), and judges the outcome (docs/python.md, *scipy's own tests*):

- prints how many of scipy's tests touch convlab's functions and how many of those pass;
- fails (exit status 1) when one of them fails that is not in the expected differences of
  docs/python.md, when that list names more than 1% of them, or when nothing touched convlab
  (a proxy that replaced nothing would pass everything).

Usage: python run_scipy_suite.py [DOCS_PYTHON_MD] [-- extra pytest arguments]
"""
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
DOCS = HERE.parents[2] / "docs" / "python.md"
BEGIN, END = "<!-- scipy-expected-differences: begin -->", "<!-- scipy-expected-differences: end -->"
MAX_SHARE = 0.01


def expected_differences(docs):
    """The test ids (as `Class::test[params]`, the file's path left out) listed between the
    markers of docs/python.md, one per table row: | `id` | reason |."""
    text = docs.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{docs}: the markers of the expected differences are missing")
    section = text.split(BEGIN, 1)[1].split(END, 1)[0]
    listed = {}
    for line in section.splitlines():
        m = re.match(r"\|\s*`([^`]+)`\s*\|\s*(.+?)\s*\|\s*$", line)
        if m:
            listed[m.group(1)] = m.group(2)
    return listed


def run_suite(extra):
    import scipy
    tests = pathlib.Path(scipy.__file__).parent / "ndimage" / "tests" / "test_filters.py"
    with tempfile.TemporaryDirectory() as tmp:
        record = pathlib.Path(tmp) / "record.json"
        # pytest runs in a scratch folder (scipy's suite writes files there): the path made absolute
        inherited = [os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        env = dict(os.environ, CONVLAB_SCIPY_RECORD=str(record), PYTHONPATH=os.pathsep.join([str(HERE)] + inherited))
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "convlab_scipy_proxy",
                   "--rootdir", str(tests.parents[2]), "-o", "console_output_style=classic", "--tb=short",
                   "-rfE", str(tests), *extra]
        done = subprocess.run(command, env=env, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if not record.exists():
            print(done.stdout[-8000:])
            raise SystemExit(f"scipy's suite did not run (pytest exit status {done.returncode})")
        outcome = json.loads(record.read_text())
        return outcome, done.stdout


def short_id(nodeid):
    return nodeid.split("::", 1)[1] if "::" in nodeid else nodeid


def main(argv):
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    positional = argv[:argv.index("--")] if "--" in argv else argv
    docs = pathlib.Path(positional[0]) if positional else DOCS
    listed = expected_differences(docs)
    outcome, log = run_suite(extra)
    tests = {short_id(k): v for k, v in outcome["tests"].items()}
    failed = sorted(t for t, state in tests.items() if state == "failed")
    unexpected = [t for t in failed if t not in listed]
    passing_listed = sorted(t for t in listed if tests.get(t) == "passed")
    count = lambda state: sum(1 for s in tests.values() if s == state)  # noqa: E731
    print(f"scipy's test_filters.py with convlab's {', '.join(outcome['replaced'])}")
    print(f"tests that touch convlab's functions: {len(tests)} of the {outcome['collected']} collected")
    print(f"  passed {count('passed')}, failed {len(failed)} (listed as expected differences "
          f"{len(failed) - len(unexpected)}, not listed {len(unexpected)}), skipped {count('skipped')}, "
          f"xfailed {count('xfailed')}, xpassed {count('xpassed')}")
    problems = []
    if not tests:
        problems.append("no test touched convlab's functions: the proxy replaced nothing")
    if len(listed) > MAX_SHARE * max(len(tests), 1):
        problems.append(f"{len(listed)} expected differences listed: more than {MAX_SHARE:.0%} of {len(tests)}")
    for t in unexpected:
        problems.append(f"failed, not an expected difference: {t}")
    for t in passing_listed:
        print(f"note: listed as an expected difference but passes now: {t}")
    if problems:
        print(log[-15000:])  # pytest's own account of the failures, the last of them
        print("\n".join(problems))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
