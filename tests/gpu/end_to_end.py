# SPDX-License-Identifier: GPL-3.0-or-later
"""What a user of convlab-cli pays on the GPU, against the bus's own speed.

For 4096x4096 float32 images of one and three channels: the engine's median time per run
(`--repeat`, upload + compute + download, read from the report) and the whole process from
outside (start, read, run, write, exit), each as a ratio to the time pinned memory needs to
carry the same bytes up and down (the session's bus calibration, kept in the cache as
the calibration store's gpu-bus section). Then a batch of N images through one process (`-O DIR`), per image against the
larger of the pinned upload and download. Writes a Markdown table to stdout and JSON to --json.

    python3 tests/gpu/end_to_end.py --cli build/app/convlab-cli --json out.json [--device cpu]

`--device cpu` runs the same steps on the CPU (the ratios then compare with a bus the CPU does
not use, and are printed only when a bus figure exists); that is how the script is tried on a
machine without a GPU.
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

KERNEL = "1 1 1; 1 -8 1; 1 1 1"


def run(cmd, timeout):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    wall = (time.perf_counter() - t0) * 1e3
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()[-400:]}")
    return p.stdout, wall


def bus_figures(cache):
    path = pathlib.Path(cache) / "convlab" / "calibrations.json"
    try:
        values = json.loads(path.read_text())["gpu-bus"]["values"]
        return float(values.get("pinned_up_gbs", 0.0)), float(values.get("pinned_down_gbs", 0.0))
    except (OSError, ValueError, KeyError, TypeError):
        return 0.0, 0.0


def ratio(value, reference):
    return f"{value / reference:.2f}x" if reference > 0 else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", required=True)
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--json", dest="json_out")
    a = ap.parse_args()

    work = pathlib.Path(tempfile.mkdtemp(prefix="convlab-e2e-"))
    try:
        return measure(a, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def measure(a, work):
    cache = work / "cache"
    env_cache = {"XDG_CACHE_HOME": str(cache)}
    os.environ.update(env_cache)
    rng = np.random.default_rng(7)
    n = a.size
    results = {"size": n, "device": a.device, "kernel": KERNEL, "cases": [], "batch": None}

    # One-time costs paid before the timed runs, as a returning user has them cached: the CPU
    # planner's calibration and, with device auto on a GPU machine, the bus figures.
    probe = work / "probe.npy"
    np.save(probe, rng.standard_normal((256, 256), dtype=np.float32))
    run([a.cli, str(probe), str(work / "probe-out.npy"), "-k", KERNEL, "-d", "auto"], a.timeout)
    up, down = bus_figures(cache)
    results["pinned_up_gbs"], results["pinned_down_gbs"] = up, down

    rows = ["| image | engine median per run (ms) | ratio to pinned up+down | process from outside (ms) | "
            "ratio | pinned up+down (ms) |", "|---|---|---|---|---|---|"]
    for channels in (1, 3):
        shape = (n, n) if channels == 1 else (n, n, channels)
        src = work / f"in{channels}.npy"
        np.save(src, rng.standard_normal(shape, dtype=np.float32))
        nbytes = 4 * n * n * channels
        pinned_ms = (nbytes / (up * 1e9) + nbytes / (down * 1e9)) * 1e3 if up > 0 and down > 0 else 0.0
        out, _ = run([a.cli, str(src), str(work / "out.npy"), "-k", KERNEL, "-d", a.device,
                      "--repeat", str(a.repeat), "--json"], a.timeout)
        rep = json.loads(out)
        engine_ms = rep["median_total_ms"]
        walls = [run([a.cli, str(src), str(work / "out.npy"), "-k", KERNEL, "-d", a.device], a.timeout)[1]
                 for _ in range(3)]
        process_ms = sorted(walls)[1]
        stages = {}
        for r in rep["runs"][1:] or rep["runs"]:
            for s in r.get("stages", []):
                stages.setdefault(s["name"], []).append(s["ms"])
        stage_medians = {k: sorted(v)[len(v) // 2] for k, v in stages.items()}
        results["cases"].append({"channels": channels, "bytes": nbytes, "engine_median_ms": engine_ms,
                                 "process_ms": process_ms, "pinned_up_down_ms": pinned_ms,
                                 "stage_medians_ms": stage_medians, "device_ran": rep["device"]["chosen"]})
        rows.append(f"| {n}x{n}x{channels} float32 | {engine_ms:.2f} | {ratio(engine_ms, pinned_ms)} | "
                    f"{process_ms:.1f} | {ratio(process_ms, pinned_ms)} | {pinned_ms:.2f} |")

    # A batch through one process: decode, upload, compute, download and write overlap.
    if a.batch > 0:
        inputs = []
        for i in range(a.batch):
            p = work / f"b{i:02d}.npy"
            np.save(p, rng.standard_normal((n, n), dtype=np.float32))
            inputs.append(str(p))
        outdir = work / "batch-out"
        outdir.mkdir()
        out, wall = run([a.cli, "-k", KERNEL, "-d", a.device, *inputs, "-O", str(outdir) + "/", "--json"],
                        a.timeout * 2)
        summary = json.loads(out.strip().splitlines()[-1])["summary"]
        per_image_ms = 1e3 * summary["wall_s"] / max(summary["written"], 1)
        nbytes = 4 * n * n
        larger_ms = max(nbytes / (up * 1e9), nbytes / (down * 1e9)) * 1e3 if up > 0 and down > 0 else 0.0
        results["batch"] = {"images": a.batch, "written": summary["written"], "wall_s": summary["wall_s"],
                            "process_ms": wall, "per_image_ms": per_image_ms, "larger_of_up_down_ms": larger_ms}
        rows += ["", "| batch | images | per image (ms) | larger of pinned up, down (ms) | ratio | process (ms) |",
                 "|---|---|---|---|---|---|",
                 f"| {n}x{n}x1 float32 | {summary['written']}/{a.batch} | {per_image_ms:.2f} | {larger_ms:.2f} | "
                 f"{ratio(per_image_ms, larger_ms)} | {wall:.0f} |"]

    head = (f"device {a.device}; pinned upload {up:.1f} GB/s, download {down:.1f} GB/s"
            if up > 0 else f"device {a.device}; no bus figures (CPU run)")
    print(head + "\n\n" + "\n".join(rows))
    if a.json_out:
        pathlib.Path(a.json_out).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
