#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the seed corpus of the fuzz targets into corpus/<target>/: small valid inputs of
every kind each reader accepts, and edge cases it must refuse (found_* files are inputs the
fuzzers found and are kept). Run again after changing it;
the files are checked in so the short fuzz runs start from the same place everywhere."""
import io
import json
import os
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def target_dir(name):
    """The target's corpus folder, emptied except for found_* files: inputs a fuzzer found,
    kept as regression cases."""
    d = os.path.join(HERE, "corpus", name)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        if not f.startswith("found_"):
            os.remove(os.path.join(d, f))
    return d


def write(d, name, data):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def kernel_text():
    d = target_dir("kernel_text")
    cases = {
        "edge8": "1 1 1; 1 -8 1; 1 1 1",
        "gauss_lines": "1 2 1\n2 4 2\n1 2 1\n",
        "fractions": "1/16 2/16 1/16; 2/16 4/16 2/16; 1/16 2/16 1/16",
        "commas": "1,0,-1;2,0,-2;1,0,-1",
        "comment": "# sobel x\n-1 0 1 # row 0\n-2 0 2\n\n-1 0 1\n",
        "exponents": "1e-3 -2.5E+2 +0.5; .25 -0 3.",
        "single": "7",
        "row": "1 2 3 4 5 6 7",
        "column": "1;2;3;4",
        "crlf": "1 2\r\n3 4\r\n",
        "ragged": "1 2 3; 4 5",
        "bad_number": "1 2 x; 3 4 5",
        "nonfinite": "1 inf 1; nan 1 1",
        "huge": "1e39 1; 1 1",
        "tiny": "1e-50 1",
        "bad_fraction": "1/0 2/3",
        "empty": "",
        "only_comment": "# nothing\n",
        "trailing_semicolon": "1 2; 3 4;",
    }
    for name, text in cases.items():
        write(d, name + ".txt", text)


def kernel_json():
    d = target_dir("kernel_json")
    cases = {
        "nested": {"name": "gauss", "size": [3, 3], "values": [[1, 2, 1], [2, 4, 2], [1, 2, 1]],
                   "anchor": [1, 1], "scale": 0.0625, "offset": 0, "normalize": False,
                   "semantics": "convolution"},
        "flat": {"size": [2, 2], "values": [1, -1, -1, 1], "semantics": "correlation"},
        "values_only": {"values": [[0, -1, 0], [-1, 5, -1], [0, -1, 0]]},
        "strings": {"values": ["1 2 1", "0 0 0", "-1 -2 -1"], "normalize": True},
        "unicode_name": {"name": "k\u00e9rnel \u2211", "values": [[1]]},
        "bad_size": {"size": [3, 2], "values": [1, 2, 3]},
        "bad_anchor": {"values": [[1, 2]], "anchor": [5, 0]},
        "unknown_field": {"values": [[1]], "colour": "red"},
        "bad_semantics": {"values": [[1]], "semantics": "both"},
        "ragged": {"values": [[1, 2], [3]]},
    }
    for name, doc in cases.items():
        write(d, name + ".json", json.dumps(doc, ensure_ascii=False))
    write(d, "deep.json", '{"values": ' + "[" * 40 + "1" + "]" * 40 + "}")
    write(d, "not_object.json", "[1, 2, 3]")
    write(d, "truncated.json", '{"values": [[1, 2], [3, ')
    write(d, "big_numbers.json", '{"values": [[1e308, 1e400]], "scale": -0.0}')


def npy_bytes(arr, version=(1, 0), descr=None, header_override=None):
    descr = descr or np.lib.format.dtype_to_descr(arr.dtype)
    header = header_override or ("{'descr': '%s', 'fortran_order': False, 'shape': %r, }" % (descr, arr.shape))
    length_bytes = 2 if version[0] == 1 else 4
    pad = (64 - (8 + length_bytes + len(header) + 1) % 64) % 64
    header = header + " " * pad + "\n"
    enc = "latin1" if version[0] < 3 else "utf8"
    hb = header.encode(enc)
    pre = b"\x93NUMPY" + bytes(version) + (struct.pack("<H", len(hb)) if length_bytes == 2 else struct.pack("<I", len(hb)))
    return pre + hb + arr.tobytes()


def npy():
    d = target_dir("npy")
    rng = np.random.default_rng(1)
    arrays = {
        "f32_gray": rng.random((4, 5), dtype=np.float32),
        "f32_rgb": rng.random((3, 2, 3), dtype=np.float32),
        "f64_rgba": rng.random((2, 2, 4)),
        "u8_gray": rng.integers(0, 256, (3, 3), dtype=np.uint8),
        "u16_rgb": rng.integers(0, 65536, (2, 3, 3), dtype=np.uint16),
        "one_pixel": np.array([[0.5]], dtype=np.float32),
        "two_channels": np.zeros((2, 2, 2), dtype=np.float32),
        "nan_inf": np.array([[np.nan, np.inf], [-np.inf, -0.0]], dtype=np.float32),
    }
    for name, arr in arrays.items():
        buf = io.BytesIO()
        np.save(buf, arr)
        write(d, name + ".npy", buf.getvalue())
    big = rng.random((2, 3), dtype=np.float32).astype(">f4")
    write(d, "big_endian.npy", npy_bytes(big, descr=">f4"))
    write(d, "v2.npy", npy_bytes(arrays["u8_gray"], version=(2, 0)))
    write(d, "v3.npy", npy_bytes(arrays["u8_gray"], version=(3, 0)))
    write(d, "fortran.npy", npy_bytes(arrays["f32_gray"], header_override="{'descr': '<f4', 'fortran_order': True, 'shape': (4, 5), }"))
    write(d, "five_channels.npy", npy_bytes(np.zeros((1, 1, 5), dtype=np.float32)))
    write(d, "int32.npy", npy_bytes(np.zeros((2, 2), dtype=np.int32)))
    write(d, "one_dim.npy", npy_bytes(np.zeros((4,), dtype=np.float32)))
    write(d, "truncated.npy", npy_bytes(arrays["f32_gray"])[:-7])
    write(d, "trailing.npy", npy_bytes(arrays["f32_gray"]) + b"xyz")
    write(d, "huge_shape.npy", npy_bytes(np.zeros((1, 1), dtype=np.uint8),
                                         header_override="{'descr': '|u1', 'fortran_order': False, 'shape': (65536, 65536, 4), }"))
    write(d, "python2_long.npy", npy_bytes(np.zeros((1, 2), dtype=np.uint8),
                                           header_override="{'descr': '|u1', 'fortran_order': False, 'shape': (1L, 2L), }"))
    write(d, "bad_magic.npy", b"\x93NUMPX\x01\x00\x00\x00")


def image_decode():
    import cv2

    d = target_dir("image_decode")
    rng = np.random.default_rng(2)
    gray8 = rng.integers(0, 256, (5, 7), dtype=np.uint8)
    bgr8 = rng.integers(0, 256, (4, 6, 3), dtype=np.uint8)
    bgra8 = rng.integers(0, 256, (3, 3, 4), dtype=np.uint8)
    gray16 = rng.integers(0, 65536, (4, 4), dtype=np.uint16)
    bgr16 = rng.integers(0, 65536, (3, 5, 3), dtype=np.uint16)
    f32 = rng.random((4, 3, 3), dtype=np.float32)
    cases = [
        ("gray8.png", gray8, []), ("rgb8.png", bgr8, []), ("rgba8.png", bgra8, []),
        ("gray16.png", gray16, []), ("rgb16.png", bgr16, []), ("one_pixel.png", gray8[:1, :1], []),
        ("gray.jpg", gray8, [cv2.IMWRITE_JPEG_QUALITY, 90]), ("rgb.jpg", bgr8, [cv2.IMWRITE_JPEG_QUALITY, 90]),
        ("rgb_progressive.jpg", bgr8, [cv2.IMWRITE_JPEG_PROGRESSIVE, 1]),
        ("gray8.tif", gray8, []), ("rgb16.tif", bgr16, [cv2.IMWRITE_TIFF_COMPRESSION, 5]),
        ("float.tif", f32, [cv2.IMWRITE_TIFF_COMPRESSION, 5]), ("rgba8.tif", bgra8, []),
        ("gray.bmp", gray8, []), ("rgb.bmp", bgr8, []),
        ("gray8.pgm", gray8, []), ("gray16.pgm", gray16, []), ("rgb8.ppm", bgr8, []),
        ("rgb.webp", bgr8, [cv2.IMWRITE_WEBP_QUALITY, 101]), ("rgba.webp", bgra8, [cv2.IMWRITE_WEBP_QUALITY, 101]),
    ]
    for name, img, params in cases:
        ok, buf = cv2.imencode(os.path.splitext(name)[1], img, params)
        if ok:
            write(d, name, buf.tobytes())
    png = open(os.path.join(d, "rgb8.png"), "rb").read()
    write(d, "truncated.png", png[: len(png) // 2])
    write(d, "header_only.png", png[:33])
    write(d, "ascii.pgm", "P2\n3 2\n255\n0 128 255\n255 128 0\n")
    write(d, "not_an_image.txt", "1 2 1; 2 4 2; 1 2 1")
    write(d, "empty.bin", b"")


def convolve():
    d = target_dir("convolve")
    rng = np.random.default_rng(3)
    for i in range(12):
        write(d, "case%02d.bin" % i, rng.integers(0, 256, 64 + 200 * i, dtype=np.uint8).tobytes())
    write(d, "one_by_one.bin", bytes([0, 0, 0, 0, 0, 0, 0, 64]))
    write(d, "big_kernel_small_image.bin", bytes([15, 15, 0]) + bytes(range(256)) + bytes([0, 0, 0]))


if __name__ == "__main__":
    kernel_text()
    kernel_json()
    npy()
    image_decode()
    convolve()
