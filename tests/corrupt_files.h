// SPDX-License-Identifier: GPL-3.0-or-later
// Damaged image files, made at test time from good ones: truncated, bad checksums, garbage,
// broken markers and directories, headers that claim huge sizes. Shared by test_io (the
// library's messages) and test_cli (one line on stderr, no output file).
#pragma once
#include <QByteArray>
#include <QDataStream>
#include <QString>

#include <vector>

namespace convlab::test {

inline quint32 crc32(const QByteArray& bytes)
{
    quint32 crc = 0xffffffffu;
    for (char ch : bytes) {
        crc ^= quint8(ch);
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

inline QByteArray bigEndian32(quint32 v)
{
    QByteArray b;
    QDataStream(&b, QIODevice::WriteOnly) << v;
    return b;
}

// One PNG chunk: length, type, data, CRC.
inline QByteArray pngChunk(const QByteArray& type, const QByteArray& data)
{
    return bigEndian32(quint32(data.size())) + type + data + bigEndian32(crc32(type + data));
}

// A well-formed PNG of a few hundred bytes whose header claims w x h RGB.
inline QByteArray pngClaiming(quint32 w, quint32 h)
{
    QByteArray ihdr = bigEndian32(w) + bigEndian32(h);
    ihdr += QByteArray("\x08\x02\x00\x00\x00", 5); // 8-bit RGB
    const QByteArray idat = qCompress(QByteArray(1 + 3 * 1000, '\0')).mid(4); // a zlib stream
    return QByteArray("\x89PNG\r\n\x1a\n", 8) + pngChunk("IHDR", ihdr) + pngChunk("IDAT", idat) + pngChunk("IEND", {});
}

// `jpeg` with the size in its frame header (SOF0) replaced by w x h.
inline QByteArray jpegClaiming(QByteArray jpeg, quint16 w, quint16 h)
{
    const qsizetype sof = jpeg.indexOf(QByteArray("\xff\xc0", 2));
    if (sof < 0) return {};
    jpeg[sof + 5] = char(h >> 8);
    jpeg[sof + 6] = char(h & 0xff);
    jpeg[sof + 7] = char(w >> 8);
    jpeg[sof + 8] = char(w & 0xff);
    return jpeg;
}

struct CorruptFile {
    QString name;     // with the extension it is saved under
    QByteArray bytes;
    QString mention;  // what the error message must say (case-insensitive)
};

// A dozen and more ways an image file goes bad, from a good PNG, JPEG (baseline) and TIFF of
// a noisy image (so that every cut lands in image data). Each must be refused.
inline std::vector<CorruptFile> corruptImageFiles(const QByteArray& png, const QByteArray& jpg, const QByteArray& tif)
{
    std::vector<CorruptFile> out;
    const auto add = [&](const char* name, const QByteArray& bytes, const char* mention) {
        out.push_back({QString::fromLatin1(name), bytes, QString::fromLatin1(mention)});
    };
    add("truncated.png", png.left(png.size() / 2), "truncated or corrupt PNG");
    QByteArray badCrc = png;
    badCrc[png.indexOf("IDAT") + 100] = char(badCrc[png.indexOf("IDAT") + 100] ^ 0xff);
    add("bad-crc.png", badCrc, "CRC");
    add("garbage-after-signature.png", png.left(8) + QByteArray(500, '\x13'), "IHDR");
    add("no-end-chunk.png", png.left(png.size() - 12), "IEND");
    {
        // The first IDAT cut in half (with a valid CRC), then IEND: well formed, too little data.
        const qsizetype idat = png.indexOf("IDAT") - 4;
        QDataStream s(png.mid(idat, 4));
        quint32 length = 0;
        s >> length;
        const QByteArray half = png.mid(idat + 8, length / 2);
        add("short-image-data.png", png.left(idat) + pngChunk("IDAT", half) + pngChunk("IEND", {}), "PNG");
    }
    add("signature-only.png", png.left(8), "IHDR");
    add("truncated.jpg", jpg.left(jpg.size() / 2), "truncated or corrupt JPEG");
    {
        QByteArray markers = jpg; // restart markers where none belong, inside the image data
        const qsizetype sos = jpg.indexOf(QByteArray("\xff\xda", 2));
        for (int i = 0; i < 20; ++i) markers.replace(sos + 40 + 2 * i, 2, QByteArray("\xff\xd3", 2));
        add("bad-marker-in-data.jpg", markers, "JPEG");
    }
    {
        QByteArray length = jpg; // a quantization table whose segment claims 1 byte
        const qsizetype dqt = jpg.indexOf(QByteArray("\xff\xdb", 2));
        length[dqt + 2] = 0;
        length[dqt + 3] = 1;
        add("bad-segment-length.jpg", length, "JPEG");
    }
    {
        QByteArray lossless = jpg; // SOF3: a process the decoder does not implement
        lossless[jpg.indexOf(QByteArray("\xff\xc0", 2)) + 1] = char(0xc3);
        add("unsupported-process.jpg", lossless, "JPEG");
    }
    add("signature-only.jpg", jpg.left(3), "JPEG");
    {
        QByteArray ifd = tif; // the first directory far beyond the end
        const bool little = tif.startsWith("II");
        const QByteArray offset = little ? QByteArray("\x80\x96\x98\x00", 4) : QByteArray("\x00\x98\x96\x80", 4);
        ifd.replace(4, 4, offset);
        add("bad-directory.tif", ifd, "TIFF");
    }
    add("truncated.tif", tif.left(tif.size() / 2), "TIFF");
    add("empty.png", QByteArray(""), "empty");
    add("text.png", QByteArray("hello, this is not an image\n"), "not an image file");
    add("jpeg-named.png", jpg.left(jpg.size() / 2), "JPEG"); // wrong extension, and truncated
    add("random.tif", QByteArray(2000, '\x5a'), "not an image file");
    return out;
}

} // namespace convlab::test
