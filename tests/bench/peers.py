#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Times ConvLab's peers on the cases of a convlab-bench JSON file, on the same inputs:

  scipy.ndimage.convolve        (the border's scipy mode)
  scipy.signal.fftconvolve      (image pre-padded with np.pad for the border, 'valid' output)
  cv2.filter2D                  (whatever cv2 imports; the borders filter2D does not apply itself,
                                 and non-zero constants, pre-padded with copyMakeBorder)

and prints ours/peer time ratios, "ours" being the engine's auto method from the JSON. With
--interleave DIR (the folder holding the built module, build/python), ours is also timed here,
through the Python module `convlab` (correlate, method auto, into a preallocated output),
alternating run by run with each peer, and the ratio is that of the two medians: on a machine
whose speed drifts over minutes, both sides of a ratio then meet the same minutes.
Inputs are regenerated from the bench's seed (or read from its --dump-dir), kernels come
from the JSON. Every peer's output is checked against the probe values convlab-bench
recorded (and against our whole outputs with --dump-dir): a peer computing different maths
is reported, not timed silently.

The border modes and their names in scipy and OpenCV come from convlab-cli (--list border-modes
--json: the table of convlab/modes.h); pass its path with --cli when it is not on PATH.

Run with a Python that has numpy and scipy (/usr/bin/python3 on Debian, or the venv made by
tests/bench/setup-peers.sh).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np
import scipy
import scipy.fft
from scipy import ndimage, signal

try:
    import cv2
except ImportError:
    cv2 = None

AGREE_TOL = 1e-4  # relative to sum|K| * max|in|, as in convlab-bench

# np.pad's name for each scipy.ndimage mode (numpy and scipy name the same rules differently).
NUMPY_PAD_OF_SCIPY = {"constant": "constant", "nearest": "edge", "reflect": "symmetric",
                      "mirror": "reflect", "wrap": "wrap"}


def border_modes(cli):
    """ConvLab's border modes by name (aliases too), each its row of convlab-cli --list."""
    try:
        p = subprocess.run([cli, "--list", "border-modes", "--json"], capture_output=True, text=True)
    except OSError as e:
        raise SystemExit(f"cannot run {cli}: {e} (pass the path of convlab-cli with --cli)")
    if p.returncode != 0:
        raise SystemExit(f"{cli} --list border-modes --json: exit {p.returncode}: {p.stderr.strip()}")
    modes = {}
    for row in json.loads(p.stdout):
        for name in [row["name"]] + row["aliases"]:
            modes[name] = row
    return modes


def unit(seed, start, count):
    """SplitMix64 of the counter, top 24 bits as a float32 in [0, 1): convlab-bench's unit()."""
    m = np.uint64
    i = np.arange(start, start + count, dtype=m)
    z = m(seed) + (i + m(1)) * m(0x9E3779B97F4A7C15)
    z = (z ^ (z >> m(30))) * m(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> m(27))) * m(0x94D049BB133111EB)
    z ^= z >> m(31)
    return (z >> m(40)).astype(np.float32) * np.float32(2.0 ** -24)


def random_image(seed, w, h, c):
    """Planar (c, h, w) float32, generated in chunks to bound the temporaries."""
    n = w * h * c
    out = np.empty(n, np.float32)
    step = 1 << 22
    for s in range(0, n, step):
        out[s:s + step] = unit(seed, s, min(step, n - s))
    return out.reshape(c, h, w)


def load_npy(path):
    try:
        return np.load(path)
    except (OSError, ValueError) as e:
        raise SystemExit(f"{path}: cannot read: {e}")


def parse_border(text):
    name, _, value = text.partition(":")
    return name, float(value) if value else 0.0


def median_ms(fn, runs, slow_s):
    """Median of `runs` timed calls after a warm-up. When the warm-up alone exceeds slow_s,
    its time is returned with single=True instead of running it `runs` more times."""
    t0 = time.perf_counter()
    out = fn()
    first = (time.perf_counter() - t0) * 1e3
    if slow_s > 0 and first > slow_s * 1e3:
        return first, True, out
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), False, out


def interleaved_median_ms(ours, peer, runs):
    """Median of `runs` timed calls of each, alternating ours, peer, ours, ... after a warm-up
    of each; returns (ours ms, peer ms, peer's last output)."""
    ours()
    out = peer()
    times = ([], [])
    for _ in range(runs):
        for i, fn in enumerate((ours, peer)):
            t0 = time.perf_counter()
            result = fn()
            times[i].append((time.perf_counter() - t0) * 1e3)
            if i == 1:
                out = result
    return statistics.median(times[0]), statistics.median(times[1]), out


def check_ours(out, probe_values, scale, what):
    """Ours through the module must give the bench's probe values: the same engine and case."""
    planar = out[None] if out.ndim == 2 else out.transpose(2, 0, 1)
    diff = max(abs(float(planar[pc, py, px]) - v) for pc, py, px, v in probe_values) / scale
    if diff > AGREE_TOL:
        raise SystemExit(f"{what}: convlab.correlate differs from convlab-bench's output ({diff:.1e}): "
                         "the interleaved case is not the bench's")


def import_convlab(folder):
    sys.path.insert(0, os.path.abspath(folder))
    try:
        import convlab
    except ImportError as e:
        raise SystemExit(f"--interleave {folder}: cannot import convlab: {e} "
                         "(build it with scripts/build.sh; the module must match this Python)")
    return convlab


class Case:
    def __init__(self, rec, kernels, modes):
        self.w, self.h, self.c = rec["width"], rec["height"], rec["channels"]
        self.kname, self.border = rec["kernel"], rec["border"]
        k = kernels[self.kname]
        self.k = np.asarray(k["values"], np.float32).reshape(k["height"], k["width"])
        if self.k.shape[0] % 2 == 0 or self.k.shape[1] % 2 == 0:
            raise SystemExit(f"kernel {self.kname}: even sides are not supported here")
        self.ay, self.ax = self.k.shape[0] // 2, self.k.shape[1] // 2
        name, self.cval = parse_border(self.border)
        if name not in modes:
            raise SystemExit(f"border '{self.border}': not a border mode of convlab-cli --list border-modes")
        self.mode = modes[name]  # the table's row

    def pads(self):
        kh, kw = self.k.shape
        return (self.ay, kh - 1 - self.ay), (self.ax, kw - 1 - self.ax)

    def ndimage(self, img):
        # convolve with the flipped kernel == correlate with the kernel (odd sides, origin 0)
        flipped = self.k[::-1, ::-1]
        return np.stack([ndimage.convolve(p, flipped, mode=self.mode["scipy"], cval=self.cval)
                         for p in img])

    def fftconvolve(self, img, threads):
        py, px = self.pads()
        pad_mode = NUMPY_PAD_OF_SCIPY[self.mode["scipy"]]
        extra = {"constant_values": self.cval} if pad_mode == "constant" else {}
        with scipy.fft.set_workers(threads):
            padded = np.pad(img, ((0, 0), py, px), mode=pad_mode, **extra)
            return signal.fftconvolve(padded, self.k[None, ::-1, ::-1], mode="valid", axes=(1, 2))

    def cv2_filter2d(self, hwc):
        border_type = getattr(cv2, self.mode["opencv"])  # the table's cv::BorderTypes name
        anchor = (self.ax, self.ay)
        if not self.mode["opencv_filter2d"] or (self.mode["takes_value"] and self.cval != 0.0):
            (top, bottom), (left, right) = self.pads()
            padded = cv2.copyMakeBorder(hwc, top, bottom, left, right, border_type,
                                        value=(self.cval,) * 4)
            out = cv2.filter2D(padded, cv2.CV_32F, self.k, anchor=anchor, borderType=cv2.BORDER_CONSTANT)
            return out[top:top + self.h, left:left + self.w]
        return cv2.filter2D(hwc, cv2.CV_32F, self.k, anchor=anchor, borderType=border_type)

    def ours(self, convlab, hwc, out, threads):
        """The engine's auto method through the Python module, into `out` (no allocation)."""
        return convlab.correlate(hwc, self.k, output=out, mode=self.mode["name"], cval=self.cval,
                                 method="auto", threads=threads)

    def lacks(self, peer):
        """Why `peer` cannot compute this case's border, or None when it can."""
        library = {"ndimage": "scipy", "fftconvolve": "scipy", "cv2": "opencv"}[peer]
        if self.mode[library] is None:
            return f"{library} has no border mode like {self.mode['name']}"
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bench_json", help="file written by convlab-bench --json")
    ap.add_argument("--peers", default="ndimage,fftconvolve,cv2",
                    help="comma list of ndimage, fftconvolve, cv2 (default: all)")
    ap.add_argument("--runs", type=int, default=5, help="timed runs per peer (median; at least 5)")
    ap.add_argument("--slow", type=float, default=10.0,
                    help="a peer whose warm-up run takes longer than this many seconds is timed once (0: never)")
    ap.add_argument("--dump-dir", help="read inputs (and our outputs, for a whole-image check) from the "
                                       "convlab-bench --dump-dir folder instead of regenerating them")
    ap.add_argument("--json", dest="json_out", help="write the peer records to this JSON file")
    ap.add_argument("--interleave", metavar="DIR",
                    help="time ours here too, through the module convlab in DIR (build/python), "
                         "alternating with each peer (not ndimage), and take the ratio from those medians")
    ap.add_argument("--cli", default=shutil.which("convlab-cli") or "build/app/convlab-cli",
                    help="convlab-cli, for the table of border modes (default: on PATH, else build/app/convlab-cli)")
    a = ap.parse_args()
    modes = border_modes(a.cli)
    convlab = import_convlab(a.interleave) if a.interleave else None

    peers = [p for p in a.peers.split(",") if p]
    for p in peers:
        if p not in ("ndimage", "fftconvolve", "cv2"):
            raise SystemExit(f"unknown peer '{p}' (use ndimage, fftconvolve, cv2)")
    if a.runs < 5:
        raise SystemExit(f"--runs {a.runs}: at least 5 runs are needed for a median")
    if "cv2" in peers and cv2 is None:
        print("cv2 is not importable: skipping cv2.filter2D", file=sys.stderr)
        peers.remove("cv2")
    try:
        with open(a.bench_json) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise SystemExit(f"{a.bench_json}: cannot read: {e}")
    if doc.get("semantics") != "correlation" or "records" not in doc:
        raise SystemExit(f"{a.bench_json}: not a convlab-bench JSON file")
    seed = doc["image_seed"]

    # The generator must reproduce the bench's data bit for bit: the dense kernels prove it.
    for name, k in doc["kernels"].items():
        if name.startswith("dense"):
            n = k["width"]
            if not np.array_equal(2 * unit(n, 0, n * n) - 1, np.asarray(k["values"], np.float32)):
                raise SystemExit(f"regenerated kernel {name} differs from the bench's: generator mismatch")

    cv2_threads = cv2.getNumThreads() if cv2 else None  # before the cases set it
    print(f"numpy {np.__version__}, scipy {scipy.__version__}, "
          + (f"cv2 {cv2.__version__} (getNumThreads {cv2_threads})" if cv2 else "no cv2"))
    print(f"bench: {doc['machine']['cpu']}, OpenCV {doc['machine']['opencv_version']}; "
          f"ratio = ours (auto) / peer, median of {a.runs} runs; scipy.ndimage is single-threaded")
    if convlab:
        print(f"interleaved: ours timed here through convlab {convlab.__version__} (correlate, auto), "
              "alternating with each peer but ndimage; 'ours ms' is convlab-bench's, '(ours)' this run's")
    head = f"{'size':10} {'kernel':10} {'border':12} {'ch':>2} {'thr':>3} {'ours ms':>9}"
    for p in peers:
        head += (f" {'(ours)':>9}" if convlab and p != "ndimage" else "") + f" {p + ' ms':>15} {'ratio':>6}"
    print(head + "  check")

    # One row per case of the bench: our auto record and the probe values of our output.
    ours = {}
    for r in doc["records"]:
        if r["method"].startswith("auto"):
            ours[(r["width"], r["height"], r["channels"], r["kernel"], r["border"], r["threads"])] = r
    if not ours:
        raise SystemExit(f"{a.bench_json}: no auto records (run convlab-bench with the auto method)")
    probes = {(p["width"], p["height"], p["channels"], p["kernel"], p["border"]): p["values"]
              for p in doc["probes"]}

    images, ndimage_cache, records, problems = {}, {}, [], 0
    for key, rec in ours.items():
        w, h, c, kname, border, threads = key
        case = Case(rec, doc["kernels"], modes)
        if (w, h, c) not in images:
            images.clear()
            if a.dump_dir:
                arr = load_npy(os.path.join(a.dump_dir, f"input_{w}x{h}_c{c}.npy")).astype(np.float32)
                img = arr[None] if arr.ndim == 2 else np.ascontiguousarray(arr.transpose(2, 0, 1))
            else:
                img = random_image(seed, w, h, c)
            images[(w, h, c)] = (img, np.ascontiguousarray(img.transpose(1, 2, 0)) if c > 1 else img[0])
        img, hwc = images[(w, h, c)]
        scale = float(np.abs(case.k).astype(np.float64).sum() * img.max())
        whole = None
        if a.dump_dir:
            arr = load_npy(os.path.join(a.dump_dir, f"ours_{w}x{h}_c{c}_{kname}_{border}.npy"))
            whole = arr[None] if arr.ndim == 2 else arr.transpose(2, 0, 1)

        line = f"{f'{w}x{h}':10} {kname:10} {border:12} {c:2d} {threads:3d} {rec['median_ms']:9.3f}"
        differs, not_run = [], []
        for p in peers:
            interleave = convlab is not None and p != "ndimage"
            why = case.lacks(p)
            if why:
                line += (f" {'-':>9}" if interleave else "") + f" {'-':>15} {'-':>6}"
                not_run.append(f"{p} not run: {why}")
                continue
            if p == "ndimage" and (key[:5] in ndimage_cache):
                ms, single, out = ndimage_cache[key[:5]]
            else:
                if p == "ndimage":
                    fn = lambda: case.ndimage(img)
                elif p == "fftconvolve":
                    fn = lambda: case.fftconvolve(img, threads)
                else:
                    cv2.setNumThreads(threads)
                    fn = lambda: case.cv2_filter2d(hwc)
                if interleave:
                    ours_out = np.empty_like(hwc)
                    ours_ms, ms, out = interleaved_median_ms(lambda: case.ours(convlab, hwc, ours_out, threads),
                                                             fn, a.runs)
                    single = False
                    check_ours(ours_out, probes[key[:5]], scale, f"{w}x{h} {kname} {border}")
                else:
                    ms, single, out = median_ms(fn, a.runs, a.slow)
                out = np.asarray(out, np.float64)
                out = out[None] if out.ndim == 2 else (out if p != "cv2" else out.transpose(2, 0, 1))
                if p == "ndimage":  # threads do not change it: reused for the next thread count
                    ndimage_cache = {key[:5]: (ms, single, out)}
            diff = float(max(abs(out[pc, py, px] - v) for pc, py, px, v in probes[key[:5]])) / scale
            if whole is not None:
                diff = max(diff, float(np.abs(out - whole).max()) / scale)
            agree = diff <= AGREE_TOL
            if not agree:
                differs.append(f"{p} ({diff:.1e})")
                problems += 1
            mine = ours_ms if interleave else rec["median_ms"]
            ratio = mine / ms
            line += (f" {ours_ms:9.3f}" if interleave else "") + f" {ms:14.3f}{'*' if single else ' '} {ratio:6.2f}"
            records.append({"width": w, "height": h, "channels": c, "kernel": kname, "border": border,
                            "threads": threads, "peer": p, "median_ms": ms, "single_run": single,
                            "ours_method": rec["method"], "ours_ms": mine, "ratio": ratio,
                            "interleaved": interleave, "bench_ours_ms": rec["median_ms"],
                            "rel_diff": diff, "agree": agree})
        print(line + "  " + ("WARNING: differs: " + ", ".join(differs) if differs else "ok")
              + "".join("; " + n for n in not_run), flush=True)

    if any(r["single_run"] for r in records):
        print(f"* one run only: the warm-up took longer than --slow {a.slow:g} s")
    if a.json_out:
        info = {"numpy": np.__version__, "scipy": scipy.__version__,
                "cv2": cv2.__version__ if cv2 else None,
                "cv2_default_threads": cv2_threads}
        text = json.dumps({"tool": "peers.py", "versions": info, "records": records}, indent=1)
        tmp = a.json_out + ".tmp"
        with open(tmp, "w") as f:
            f.write(text + "\n")
        os.replace(tmp, a.json_out)
        print(f"wrote {a.json_out} ({len(records)} records)")
    if problems:
        print(f"WARNING: {problems} peer results differ from ours by more than {AGREE_TOL:g} (relative)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
