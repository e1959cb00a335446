// SPDX-License-Identifier: GPL-3.0-or-later
// Image file I/O: .npy read/write (checked against bytes composed here and against NumPy when
// present), image formats through OpenCV, output mapping, errors and atomic writes.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <fstream>
#include <cstdint>
#include <functional>
#include <random>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "convlab/error.h"
#include "convlab/image.h"
#include "convlab/io.h"
#include "corrupt_files.h"

using namespace convlab;

Q_DECLARE_METATYPE(convlab::SampleDepth)
Q_DECLARE_METATYPE(convlab::OutputMap)

namespace {

// ---- .npy bytes composed independently of the library's writer ----

QByteArray npyDict(const QByteArray& descr, const QByteArray& shape, bool fortran = false)
{
    return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape + ", }";
}

// Magic, version, little-endian header length (2 bytes for 1.0, 4 for 2.0/3.0), the dict padded
// with spaces and a newline to a multiple of 64 bytes, then the data.
QByteArray npyFile(const QByteArray& dict, const QByteArray& data, int major = 1)
{
    const int lengthBytes = major == 1 ? 2 : 4;
    QByteArray header = dict;
    while ((8 + lengthBytes + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    QByteArray out("\x93NUMPY", 6);
    out += char(major);
    out += char(0);
    for (int i = 0; i < lengthBytes; ++i) out += char((header.size() >> (8 * i)) & 0xff);
    return out + header + data;
}

// Values encoded as the dtype `descr` ("<f4", ">f8", "|u1", "<u2", ...), byte by byte.
QByteArray encodeValues(const std::vector<double>& values, const QByteArray& descr)
{
    const bool big = descr[0] == '>';
    const int size = descr.mid(2).toInt();
    QByteArray out;
    for (double v : values) {
        std::uint64_t bits = 0;
        if (descr[1] == 'f')
            bits = size == 4 ? std::bit_cast<std::uint32_t>(float(v)) : std::bit_cast<std::uint64_t>(v);
        else
            bits = std::uint64_t(v);
        QByteArray item;
        for (int i = 0; i < size; ++i) item += char((bits >> (8 * i)) & 0xff);
        if (big) std::reverse(item.begin(), item.end());
        out += item;
    }
    return out;
}

// Value i of the test arrays for a dtype kind ('f' or 'u') and item size.
double sampleValue(std::size_t i, char kind, int size)
{
    if (kind == 'f') return double(i) * 0.37 - 3.5;
    return size == 1 ? double((i * 37 + 11) % 256) : double((i * 4099 + 7) % 65536);
}

// ---- images ----

// Random image in the depth's range: whole numbers for U8/U16, N(0.5, 1) floats for F32.
Image randomImage(int w, int h, int c, SampleDepth d, std::uint32_t seed)
{
    Image img(w, h, c, d);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> uni(0, int(depthMax(d)));
    std::normal_distribution<float> normal(0.5f, 1.0f);
    for (float& v : img.data) v = d == SampleDepth::F32 ? normal(rng) : float(uni(rng));
    return img;
}

// Smooth 8-bit image for lossy formats.
Image smoothImage(int w, int h, int c)
{
    Image img(w, h, c, SampleDepth::U8);
    for (int ch = 0; ch < c; ++ch)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) img.at(ch, y, x) = float(20 + 2 * x + 3 * y + 30 * ch);
    return img;
}

Image fromValues(const std::vector<float>& values, SampleDepth d)
{
    Image img(int(values.size()), 1, 1, d);
    img.data.assign(values.begin(), values.end());
    return img;
}

// Empty when `got` matches `want` in shape and every value within `tol`, else what differs.
QString mismatch(const Image& got, const Image& want, double tol = 0.0)
{
    if (!got.sameShape(want))
        return QString("shape %1x%2x%3, want %4x%5x%6")
            .arg(got.width).arg(got.height).arg(got.channels).arg(want.width).arg(want.height).arg(want.channels);
    if (got.data.size() != want.data.size()) return QString("data size %1, want %2").arg(got.data.size()).arg(want.data.size());
    for (std::size_t i = 0; i < got.data.size(); ++i)
        if (!(std::fabs(double(got.data[i]) - double(want.data[i])) <= tol))
            return QString("value %1 is %2, want %3 (tolerance %4)").arg(i).arg(got.data[i]).arg(want.data[i]).arg(tol);
    return {};
}

// The convlab::Error message `f` throws, or "<no error>".
QString errorOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const Error& e) {
        return QString::fromStdString(e.what());
    }
    return "<no error>";
}

bool writeFile(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

QByteArray readFile(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QStringList dirEntries(const QString& dir)
{
    return QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
}

std::string str(const QString& s) { return s.toStdString(); }

// What `f` writes to file descriptor 2 (where the codecs print), read back after it ran.
QByteArray stderrOf(const std::function<void()>& f)
{
    std::fflush(stderr);
    std::FILE* file = std::tmpfile();
    const int saved = ::dup(2);
    ::dup2(::fileno(file), 2);
    try {
        f();
    } catch (...) {
        std::fflush(stderr);
        ::dup2(saved, 2);
        ::close(saved);
        std::fclose(file);
        throw;
    }
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(saved);
    std::rewind(file);
    QByteArray text(4096, '\0');
    text.resize(qsizetype(std::fread(text.data(), 1, std::size_t(text.size()), file)));
    std::fclose(file);
    return text;
}

// The bytes of a noisy 64x48 RGB image saved as `ext` by the library.
QByteArray goodFile(const QString& ext)
{
    QTemporaryDir dir;
    const QString path = dir.filePath("good" + ext);
    saveImage(randomImage(64, 48, 3, SampleDepth::U8, 21), str(path));
    return readFile(path);
}

} // namespace

class TestIo : public QObject {
    Q_OBJECT

private slots:
    // What a header claims, read without decoding, is what the decode gives: .npy (no image
    // formats needed), PNG grey, RGB and RGBA, JPEG, TIFF, BMP; a damaged .npy header throws.
    void claimedShapeIsTheDecodedShape()
    {
        QTemporaryDir dir;
        std::vector<std::string> paths;
        const std::string npy = dir.filePath("a.npy").toStdString();
        writeNpy(randomImage(37, 21, 3, SampleDepth::F32, 1), npy);
        paths.push_back(npy);
        if (imageFormatsAvailable()) {
            int i = 0;
            for (const char* ext : {".png", ".jpg", ".tif", ".bmp"})
                for (int channels : {1, 3, 4}) {
                    if (channels == 4 && std::string(ext) != ".png") continue;
                    Image im = randomImage(29 + i, 17 + 2 * i, channels, SampleDepth::U8, 5 + i);
                    im.hasAlpha = channels == 4;
                    const std::string p = dir.filePath(QString("i%1%2").arg(i++).arg(ext)).toStdString();
                    saveImage(im, p);
                    paths.push_back(p);
                }
        }
        for (const std::string& p : paths) {
            const auto claimed = claimedShape(p);
            QVERIFY2(claimed, p.c_str());
            const Image decoded = loadImage(p);
            QCOMPARE(claimed->width, decoded.width);
            QCOMPARE(claimed->height, decoded.height);
            QVERIFY2(claimed->channels == decoded.channels, qPrintable(QString::fromStdString(p) + QString(": %1 claimed, %2 decoded").arg(claimed->channels).arg(decoded.channels)));
        }
        const std::string bad = dir.filePath("bad.npy").toStdString();
        {
            std::ofstream f(bad, std::ios::binary);
            f << "\x93NUMPY\x01\x00garbage";
        }
        QVERIFY_THROWS_EXCEPTION(Error, claimedShape(bad));
        if (!imageFormatsAvailable()) QSKIP("image formats are not built in (no OpenCV): .npy checked only");
    }

    // A named pipe as input is refused at once instead of blocking the reader forever.
    void namedPipeIsRefused_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("npy") << "in.npy";
        QTest::newRow("png") << "in.png";
    }
    void namedPipeIsRefused()
    {
        QFETCH(QString, name);
        QTemporaryDir dir;
        const std::string path = dir.filePath(name).toStdString();
        QCOMPARE(::mkfifo(path.c_str(), 0600), 0);
        try {
            (void)convlab::loadImage(path);
            QFAIL("a named pipe was read as an image");
        } catch (const convlab::Error& e) {
            QVERIFY2(std::string(e.what()).find("not a regular file") != std::string::npos, e.what());
        }
    }

    // ---- .npy ----

    void npyRead_data()
    {
        QTest::addColumn<QByteArray>("descr");
        QTest::addColumn<int>("major");
        QTest::addColumn<QByteArray>("shape");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("c");
        const QList<QByteArray> descrs = {"<f4", "<f8", "|u1", "<u2", "<u1", "|u2", ">f4", ">f8", ">u2"};
        struct Shape { QByteArray text; int h, w, c; };
        const QList<Shape> shapes = {{"(1, 1)", 1, 1, 1},    {"(1, 7)", 1, 7, 1},       {"(13, 5)", 13, 5, 1},
                                     {"(1, 1, 1)", 1, 1, 1}, {"(13, 5, 1)", 13, 5, 1},  {"(13, 5, 3)", 13, 5, 3},
                                     {"(1, 7, 4)", 1, 7, 4}, {"(13, 5, 4)", 13, 5, 4}, {"(3,4,2)", 3, 4, 2}};
        int row = 0;
        for (const QByteArray& d : descrs)
            for (const Shape& s : shapes) {
                const int major = 1 + row++ % 3;
                QTest::addRow("%s %s v%d", d.constData(), s.text.constData(), major) << d << major << s.text << s.h << s.w << s.c;
            }
    }
    void npyRead()
    {
        QFETCH(QByteArray, descr);
        QFETCH(int, major);
        QFETCH(QByteArray, shape);
        QFETCH(int, h);
        QFETCH(int, w);
        QFETCH(int, c);
        const char kind = descr[1];
        const int size = descr.mid(2).toInt();
        std::vector<double> values(std::size_t(h) * w * c);
        for (std::size_t i = 0; i < values.size(); ++i) values[i] = sampleValue(i, kind, size);

        QTemporaryDir dir;
        const QString path = dir.filePath("a.npy");
        QVERIFY(writeFile(path, npyFile(npyDict(descr, shape), encodeValues(values, descr), major)));
        const Image img = readNpy(str(path));
        QCOMPARE(img.height, h);
        QCOMPARE(img.width, w);
        QCOMPARE(img.channels, c);
        QCOMPARE(img.hasAlpha, false);
        QCOMPARE(img.depth, kind == 'f' ? SampleDepth::F32 : size == 1 ? SampleDepth::U8 : SampleDepth::U16);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                for (int ch = 0; ch < c; ++ch)
                    QCOMPARE(img.at(ch, y, x), float(values[(std::size_t(y) * w + x) * c + ch]));
        // loadImage dispatches by extension, case-insensitively.
        QVERIFY(QFile::copy(path, dir.filePath("b.NPY")));
        QVERIFY(mismatch(loadImage(str(dir.filePath("b.NPY"))), img).isEmpty());
    }

    void npyRoundTrip_data()
    {
        QTest::addColumn<SampleDepth>("depth");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("c");
        QTest::addColumn<QByteArray>("descr");
        const QList<std::tuple<SampleDepth, const char*>> depths = {
            {SampleDepth::F32, "<f4"}, {SampleDepth::U8, "|u1"}, {SampleDepth::U16, "<u2"}};
        const QList<std::array<int, 3>> shapes = {{1, 1, 1}, {1, 7, 1}, {13, 5, 1}, {1, 1, 3}, {13, 5, 3}, {1, 7, 4}, {13, 5, 4}, {5, 13, 2}};
        for (const auto& [d, descr] : depths)
            for (const auto& s : shapes)
                QTest::addRow("%s %dx%dx%d", descr, s[0], s[1], s[2]) << d << s[0] << s[1] << s[2] << QByteArray(descr);
    }
    void npyRoundTrip()
    {
        QFETCH(SampleDepth, depth);
        QFETCH(int, h);
        QFETCH(int, w);
        QFETCH(int, c);
        QFETCH(QByteArray, descr);
        QTemporaryDir dir;
        const QString path = dir.filePath("r.npy");
        const Image img = randomImage(w, h, c, depth, std::uint32_t(h * 100 + w * 10 + c));
        SaveOptions opts;
        if (depth != SampleDepth::F32) opts.depth = depth; // .npy defaults to float32
        saveImage(img, str(path), opts);

        const QByteArray bytes = readFile(path);
        QVERIFY(bytes.startsWith(QByteArray("\x93NUMPY\x01\x00", 8)));
        const int headerLength = quint8(bytes[8]) | (quint8(bytes[9]) << 8);
        QCOMPARE((10 + headerLength) % 64, 0);
        QCOMPARE(bytes[10 + headerLength - 1], '\n');
        const QByteArray shape = c == 1 ? QString("(%1, %2)").arg(h).arg(w).toLatin1()
                                        : QString("(%1, %2, %3)").arg(h).arg(w).arg(c).toLatin1();
        QVERIFY2(bytes.contains("'descr': '" + descr + "'"), bytes.left(10 + headerLength).constData());
        QVERIFY2(bytes.contains("'shape': " + shape), bytes.left(10 + headerLength).constData());
        QCOMPARE(bytes.size(), 10 + headerLength + h * w * c * descr.mid(2).toInt());

        const Image back = loadImage(str(path));
        QCOMPARE(back.depth, depth);
        QCOMPARE(back.hasAlpha, false);
        const QString diff = mismatch(back, img);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    // NumPy reads what we write, and we read what NumPy writes (format versions 2.0 and 3.0,
    // big-endian float64).
    void npyAgreesWithNumpy()
    {
        // The system Python first: that is where python3-numpy installs.
        QString python = QStandardPaths::findExecutable("python3", {"/usr/bin"});
        if (python.isEmpty()) python = QStandardPaths::findExecutable("python3");
        if (python.isEmpty()) QSKIP("python3 is not installed");
        QTemporaryDir dir;
        const Image img = randomImage(5, 13, 3, SampleDepth::U16, 7);
        SaveOptions opts;
        opts.depth = SampleDepth::U16;
        writeNpy(img, str(dir.filePath("ours.npy")), opts);
        const char* script = R"(
import sys
try:
    import numpy as np
    from numpy.lib import format as fmt
except ImportError:
    sys.exit(77)
a = np.load(sys.argv[1])
print(a.dtype.str, a.shape, int(a[0, 0, 0]), int(a[12, 4, 2]))
for v in ((2, 0), (3, 0)):
    with open('%s-%d.npy' % (sys.argv[2], v[0]), 'wb') as f:
        fmt.write_array(f, a.astype('>f8'), version=v)
)";
        QProcess p;
        p.start(python, {"-c", script, dir.filePath("ours.npy"), dir.filePath("theirs")});
        QVERIFY(p.waitForFinished(60000));
        if (p.exitCode() == 77) QSKIP("NumPy is not installed");
        QCOMPARE(p.exitCode(), 0);
        const QString want = QString("<u2 (13, 5, 3) %1 %2").arg(img.at(0, 0, 0)).arg(img.at(2, 12, 4));
        QCOMPARE(QString::fromLatin1(p.readAllStandardOutput()).trimmed(), want);
        for (const char* name : {"theirs-2.npy", "theirs-3.npy"}) {
            Image back = readNpy(str(dir.filePath(name)));
            QCOMPARE(back.depth, SampleDepth::F32);
            back.depth = img.depth;
            const QString diff = mismatch(back, img);
            QVERIFY2(diff.isEmpty(), qPrintable(QString(name) + ": " + diff));
        }
    }

    void badNpy_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");
        const QByteArray f4x12 = encodeValues(std::vector<double>(12, 1.0), "<f4");
        QTest::newRow("truncated data") << npyFile(npyDict("<f4", "(3, 4)"), f4x12.left(40)) << "truncated";
        QTest::newRow("truncated header") << npyFile(npyDict("<f4", "(3, 4)"), f4x12).left(30) << "truncated";
        QTest::newRow("too short") << QByteArray("\x93NUM", 4) << "too short";
        QTest::newRow("empty") << QByteArray() << "too short";
        QTest::newRow("extra data") << npyFile(npyDict("<f4", "(3, 4)"), f4x12 + "xyz") << "3 unexpected bytes";
        QTest::newRow("fortran order") << npyFile(npyDict("<f4", "(3, 4)", true), f4x12) << "fortran_order";
        QTest::newRow("int32") << npyFile(npyDict("<i4", "(3, 4)"), f4x12) << "unsupported dtype '<i4'";
        QTest::newRow("float16") << npyFile(npyDict("<f2", "(3, 4)"), f4x12) << "unsupported dtype '<f2'";
        QTest::newRow("complex") << npyFile(npyDict("<c8", "(3, 2)"), f4x12) << "unsupported dtype";
        QTest::newRow("structured")
            << npyFile("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3, 4), }", f4x12) << "structured";
        QTest::newRow("bad magic") << npyFile(npyDict("<f4", "(3, 4)"), f4x12).replace("NUMPY", "NUMPZ") << "bad magic";
        QByteArray v4 = npyFile(npyDict("<f4", "(3, 4)"), f4x12);
        v4[6] = 4;
        QTest::newRow("version 4") << v4 << "version 4.0";
        QTest::newRow("1-D") << npyFile(npyDict("<f4", "(12,)"), f4x12) << "(12,) is not an image";
        QTest::newRow("4-D") << npyFile(npyDict("<f4", "(1, 3, 4, 1)"), f4x12) << "is not an image";
        QTest::newRow("5 channels") << npyFile(npyDict("<f4", "(1, 2, 5)"), f4x12) << "1 to 4 channels";
        QTest::newRow("zero height") << npyFile(npyDict("<f4", "(0, 4)"), {}) << "height and width must be 1..65536";
        QTest::newRow("too wide") << npyFile(npyDict("|u1", "(1, 70000)"), QByteArray(70000, 'a')) << "1..65536";
        QTest::newRow("too many values") << npyFile(npyDict("|u1", "(65536, 65536, 1)"), f4x12) << "more than the limit";
        QTest::newRow("absurd dimension") << npyFile(npyDict("<f4", "(99999999999999999999, 4)"), f4x12) << "absurdly large";
        QTest::newRow("missing shape") << npyFile("{'descr': '<f4', 'fortran_order': False}", f4x12) << "missing key 'shape'";
        QTest::newRow("unknown key") << npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), 'x': 1}", f4x12)
                                     << "unexpected key 'x'";
        QTest::newRow("not a dict") << npyFile("hello", f4x12) << "bad .npy header";
        QTest::newRow("fortran not bool") << npyFile("{'descr': '<f4', 'fortran_order': 0, 'shape': (3, 4)}", f4x12)
                                          << "True or False";
        QTest::newRow("negative shape") << npyFile(npyDict("<f4", "(-3, 4)"), f4x12) << "non-negative integers";
    }
    void badNpy()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString path = dir.filePath("bad.npy");
        QVERIFY(writeFile(path, bytes));
        const QString msg = errorOf([&] { loadImage(str(path)); });
        QVERIFY2(msg.contains(expected), qPrintable(msg));
        QVERIFY2(msg.contains(path), qPrintable(msg));
    }

    // ---- output mapping ----

    void mapSample_data()
    {
        QTest::addColumn<OutputMap>("map");
        QTest::addColumn<double>("v");
        QTest::addColumn<double>("srcMax");
        QTest::addColumn<double>("dstMax");
        QTest::addColumn<double>("lo");
        QTest::addColumn<double>("hi");
        QTest::addColumn<double>("expected");
        QTest::newRow("clamp inside") << OutputMap::Clamp << 100.4 << 255.0 << 255.0 << 0.0 << 0.0 << 100.0;
        QTest::newRow("clamp rounds half up") << OutputMap::Clamp << 100.5 << 255.0 << 255.0 << 0.0 << 0.0 << 101.0;
        QTest::newRow("clamp high") << OutputMap::Clamp << 300.0 << 255.0 << 255.0 << 0.0 << 0.0 << 255.0;
        QTest::newRow("clamp low") << OutputMap::Clamp << -5.0 << 255.0 << 255.0 << 0.0 << 0.0 << 0.0;
        QTest::newRow("clamp float to 8-bit") << OutputMap::Clamp << 0.5 << 1.0 << 255.0 << 0.0 << 0.0 << 128.0;
        QTest::newRow("clamp 16 to 8-bit") << OutputMap::Clamp << 32768.0 << 65535.0 << 255.0 << 0.0 << 0.0 << 128.0;
        QTest::newRow("clamp 8 to 16-bit") << OutputMap::Clamp << 255.0 << 255.0 << 65535.0 << 0.0 << 0.0 << 65535.0;
        QTest::newRow("clamp to float") << OutputMap::Clamp << 0.25 << 1.0 << 1.0 << 0.0 << 0.0 << 0.25;
        QTest::newRow("clamp NaN") << OutputMap::Clamp << double(NAN) << 255.0 << 255.0 << 0.0 << 0.0 << 0.0;
        QTest::newRow("clamp +inf") << OutputMap::Clamp << double(INFINITY) << 255.0 << 255.0 << 0.0 << 0.0 << 255.0;
        QTest::newRow("abs negative") << OutputMap::Abs << -100.0 << 255.0 << 255.0 << 0.0 << 0.0 << 100.0;
        QTest::newRow("abs large") << OutputMap::Abs << -300.0 << 255.0 << 255.0 << 0.0 << 0.0 << 255.0;
        QTest::newRow("abs float") << OutputMap::Abs << -0.2 << 1.0 << 255.0 << 0.0 << 0.0 << 51.0;
        QTest::newRow("normalize mid") << OutputMap::Normalize << 5.0 << 255.0 << 255.0 << -5.0 << 15.0 << 128.0;
        QTest::newRow("normalize lo") << OutputMap::Normalize << -5.0 << 255.0 << 255.0 << -5.0 << 15.0 << 0.0;
        QTest::newRow("normalize hi") << OutputMap::Normalize << 15.0 << 255.0 << 255.0 << -5.0 << 15.0 << 255.0;
        QTest::newRow("normalize 16-bit") << OutputMap::Normalize << 0.0 << 1.0 << 65535.0 << -1.0 << 1.0 << 32768.0;
        QTest::newRow("normalize constant") << OutputMap::Normalize << 3.0 << 255.0 << 255.0 << 3.0 << 3.0 << 0.0;
        QTest::newRow("offset zero") << OutputMap::Offset << 0.0 << 255.0 << 255.0 << 0.0 << 0.0 << 128.0;
        QTest::newRow("offset negative") << OutputMap::Offset << -100.0 << 255.0 << 255.0 << 0.0 << 0.0 << 28.0;
        QTest::newRow("offset low") << OutputMap::Offset << -200.0 << 255.0 << 255.0 << 0.0 << 0.0 << 0.0;
        QTest::newRow("offset high") << OutputMap::Offset << 127.0 << 255.0 << 255.0 << 0.0 << 0.0 << 255.0;
        QTest::newRow("offset 16-bit") << OutputMap::Offset << 0.0 << 65535.0 << 65535.0 << 0.0 << 0.0 << 32768.0;
        QTest::newRow("offset to float") << OutputMap::Offset << -0.25 << 1.0 << 1.0 << 0.0 << 0.0 << 0.25;
    }
    void mapSample()
    {
        QFETCH(OutputMap, map);
        QFETCH(double, v);
        QFETCH(double, srcMax);
        QFETCH(double, dstMax);
        QFETCH(double, lo);
        QFETCH(double, hi);
        QFETCH(double, expected);
        QCOMPARE(convlab::mapSample(v, map, srcMax, dstMax, lo, hi), expected);
    }

    void outputMapNames()
    {
        for (OutputMap m : {OutputMap::Clamp, OutputMap::Abs, OutputMap::Normalize, OutputMap::Offset})
            QCOMPARE(parseOutputMap(outputMapName(m)), m);
        QCOMPARE(QString::fromStdString(outputMapName(OutputMap::Normalize)), QString("normalize"));
        QCOMPARE(parseOutputMap("ABS"), OutputMap::Abs);
        const QString msg = errorOf([] { parseOutputMap("stretch"); });
        QVERIFY2(msg.contains("'stretch'") && msg.contains("clamp"), qPrintable(msg));
    }

    // A float image written as integers, through each mapping; .npy and PNG give the same values.
    void mappingOnSave_data()
    {
        QTest::addColumn<QString>("ext");
        QTest::addColumn<OutputMap>("map");
        QTest::addColumn<SampleDepth>("depth");
        QTest::addColumn<QList<float>>("expected");
        for (const char* ext : {".npy", ".png"}) {
            QTest::addRow("%s clamp", ext) << ext << OutputMap::Clamp << SampleDepth::U8 << QList<float>{0, 0, 128, 255, 64};
            QTest::addRow("%s abs", ext) << ext << OutputMap::Abs << SampleDepth::U8 << QList<float>{255, 0, 128, 255, 64};
            QTest::addRow("%s normalize", ext) << ext << OutputMap::Normalize << SampleDepth::U8 << QList<float>{0, 85, 128, 255, 106};
            QTest::addRow("%s offset", ext) << ext << OutputMap::Offset << SampleDepth::U8 << QList<float>{0, 128, 255, 255, 192};
            QTest::addRow("%s clamp 16", ext) << ext << OutputMap::Clamp << SampleDepth::U16 << QList<float>{0, 0, 32768, 65535, 16384};
            QTest::addRow("%s offset 16", ext) << ext << OutputMap::Offset << SampleDepth::U16 << QList<float>{0, 32768, 65535, 65535, 49152};
        }
    }
    void mappingOnSave()
    {
        QFETCH(QString, ext);
        QFETCH(OutputMap, map);
        QFETCH(SampleDepth, depth);
        QFETCH(QList<float>, expected);
        if (ext != ".npy" && !imageFormatsAvailable()) QSKIP("image formats are not built in");
        QTemporaryDir dir;
        const QString path = dir.filePath("m" + ext);
        const Image img = fromValues({-1.0f, 0.0f, 0.5f, 2.0f, 0.25f}, SampleDepth::F32);
        saveImage(img, str(path), SaveOptions{depth, map});
        const Image back = loadImage(str(path));
        QCOMPARE(back.depth, depth);
        const QString diff = mismatch(back, fromValues(std::vector<float>(expected.begin(), expected.end()), depth));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    // ---- image formats ----

    void formatRoundTrip_data()
    {
        QTest::addColumn<QString>("ext");
        QTest::addColumn<SampleDepth>("depth");
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("c");
        QTest::addColumn<double>("tol"); // > 0: lossy, tested on a smooth image
        const auto U8 = SampleDepth::U8, U16 = SampleDepth::U16, F32 = SampleDepth::F32;
        const auto add = [](const char* ext, SampleDepth d, int w, int h, int c, double tol = 0.0) {
            const char* dn = d == SampleDepth::U8 ? "8" : d == SampleDepth::U16 ? "16" : "32f";
            QTest::addRow("%s %s %dx%dx%d", ext, dn, w, h, c) << QString(ext) << d << w << h << c << tol;
        };
        for (int c : {1, 3, 4})
            for (SampleDepth d : {U8, U16}) {
                add(".png", d, 13, 5, c);
                add(".png", d, 1, 1, c);
                add(".png", d, 7, 1, c);
            }
        for (SampleDepth d : {U8, U16, F32})
            for (int c : {1, 3, 4}) add(".tif", d, 13, 5, c);
        add(".tiff", U8, 1, 7, 3);
        add(".PNG", U16, 13, 5, 3);
        add(".TIF", F32, 1, 1, 1);
        add(".bmp", U8, 13, 5, 1);
        add(".bmp", U8, 13, 5, 3);
        add(".bmp", U8, 1, 1, 3);
        add(".ppm", U8, 13, 5, 3);
        add(".ppm", U16, 13, 5, 3);
        add(".pgm", U8, 13, 5, 1);
        add(".pgm", U16, 1, 7, 1);
        add(".pnm", U8, 13, 5, 1);
        add(".pnm", U16, 13, 5, 3);
        add(".jpg", U8, 32, 24, 3, 6.0);
        add(".jpeg", U8, 32, 24, 1, 6.0);
        add(".webp", U8, 13, 5, 3);
        add(".webp", U8, 13, 5, 4);
    }
    void formatRoundTrip()
    {
        QFETCH(QString, ext);
        QFETCH(SampleDepth, depth);
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(int, c);
        QFETCH(double, tol);
        if (!imageFormatsAvailable()) QSKIP("image formats are not built in (no OpenCV)");
        QTemporaryDir dir;
        const QString path = dir.filePath("img" + ext);
        Image img = tol > 0 ? smoothImage(w, h, c) : randomImage(w, h, c, depth, std::uint32_t(w * 31 + h * 7 + c));
        img.hasAlpha = c == 4;
        if (ext == ".webp" && c == 4) // lossless WebP may change the colour of fully transparent pixels
            for (float* a = img.plane(3); a != img.plane(3) + img.planeSize(); ++a) *a = std::max(*a, 1.0f);
        const QString msg = errorOf([&] { saveImage(img, str(path)); });
        if (msg.contains("has no WebP writer")) QSKIP(qPrintable(msg));
        QCOMPARE(msg, QString("<no error>"));
        QCOMPARE(dirEntries(dir.path()), QStringList{"img" + ext}); // no temporary left behind

        const Image back = loadImage(str(path));
        QCOMPARE(back.depth, depth);
        QCOMPARE(back.hasAlpha, c == 4);
        const QString diff = mismatch(back, img, tol);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    // Without an explicit depth, a format that cannot hold the image's depth gets 8 bits.
    void defaultDepth_data()
    {
        QTest::addColumn<QString>("ext");
        QTest::addColumn<SampleDepth>("depth");
        QTest::addColumn<QList<float>>("values");
        QTest::addColumn<SampleDepth>("wantDepth");
        QTest::addColumn<QList<float>>("want");
        const QList<float> f32 = {0.0f, 0.25f, 0.5f, 1.0f, 1.5f, -0.25f};
        const QList<float> f32As8 = {0, 64, 128, 255, 255, 0};
        const QList<float> u16 = {0, 257, 65535, 32768, 1000, 65000};
        QTest::newRow("float png") << ".png" << SampleDepth::F32 << f32 << SampleDepth::U8 << f32As8;
        QTest::newRow("float bmp") << ".bmp" << SampleDepth::F32 << f32 << SampleDepth::U8 << f32As8;
        QTest::newRow("float tif") << ".tif" << SampleDepth::F32 << f32 << SampleDepth::F32 << f32;
        QTest::newRow("16-bit bmp") << ".bmp" << SampleDepth::U16 << u16 << SampleDepth::U8 << QList<float>{0, 1, 255, 128, 4, 253};
        QTest::newRow("16-bit png") << ".png" << SampleDepth::U16 << u16 << SampleDepth::U16 << u16;
        QTest::newRow("16-bit pgm") << ".pgm" << SampleDepth::U16 << u16 << SampleDepth::U16 << u16;
        QTest::newRow("16-bit jpg") << ".jpg" << SampleDepth::U16 << QList<float>(6, 32768.0f) << SampleDepth::U8
                                    << QList<float>(6, 128.0f);
    }
    void defaultDepth()
    {
        QFETCH(QString, ext);
        QFETCH(SampleDepth, depth);
        QFETCH(QList<float>, values);
        QFETCH(SampleDepth, wantDepth);
        QFETCH(QList<float>, want);
        if (!imageFormatsAvailable()) QSKIP("image formats are not built in (no OpenCV)");
        QTemporaryDir dir;
        const QString path = dir.filePath("d" + ext);
        saveImage(fromValues(std::vector<float>(values.begin(), values.end()), depth), str(path));
        const Image back = loadImage(str(path));
        QCOMPARE(back.depth, wantDepth);
        const QString diff = mismatch(back, fromValues(std::vector<float>(want.begin(), want.end()), wantDepth), ext == ".jpg" ? 1.0 : 0.0);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    void explicitDepthTheFormatCannotHold_data()
    {
        QTest::addColumn<QString>("ext");
        QTest::addColumn<SampleDepth>("depth");
        QTest::newRow("16-bit jpg") << ".jpg" << SampleDepth::U16;
        QTest::newRow("float png") << ".png" << SampleDepth::F32;
        QTest::newRow("16-bit bmp") << ".bmp" << SampleDepth::U16;
        QTest::newRow("float pgm") << ".pgm" << SampleDepth::F32;
        QTest::newRow("16-bit webp") << ".webp" << SampleDepth::U16;
    }
    void explicitDepthTheFormatCannotHold()
    {
        QFETCH(QString, ext);
        QFETCH(SampleDepth, depth);
        if (!imageFormatsAvailable()) QSKIP("image formats are not built in (no OpenCV)");
        QTemporaryDir dir;
        const QString path = dir.filePath("x" + ext);
        const QString msg = errorOf([&] { saveImage(randomImage(4, 3, 1, SampleDepth::U8, 1), str(path), SaveOptions{depth}); });
        if (msg.contains("has no WebP writer")) QSKIP(qPrintable(msg));
        QVERIFY2(msg.contains("cannot hold") && msg.contains(path), qPrintable(msg));
        QVERIFY(dirEntries(dir.path()).isEmpty());
    }

    // PPM stores RGB in file order, independently of OpenCV's BGR: checks both directions.
    void channelOrder()
    {
        if (!imageFormatsAvailable()) QSKIP("image formats are not built in (no OpenCV)");
        QTemporaryDir dir;
        const QString in = dir.filePath("red.ppm");
        QVERIFY(writeFile(in, QByteArray("P6\n2 1\n255\n\xff\x00\x00\x00\x00\xff", 17)));
        const Image red = loadImage(str(in));
        QCOMPARE(red.channels, 3);
        QCOMPARE(red.depth, SampleDepth::U8);
        QCOMPARE(red.at(0, 0, 0), 255.0f);
        QCOMPARE(red.at(1, 0, 0), 0.0f);
        QCOMPARE(red.at(2, 0, 0), 0.0f);
        QCOMPARE(red.at(2, 0, 1), 255.0f);

        Image rgb(1, 1, 3, SampleDepth::U8);
        rgb.data = {255.0f, 0.0f, 10.0f};
        const QString out = dir.filePath("out.ppm");
        saveImage(rgb, str(out));
        QVERIFY(readFile(out).endsWith(QByteArray("\xff\x00\x0a", 3)));

        Image rgba(1, 1, 4, SampleDepth::U8);
        rgba.data = {255.0f, 0.0f, 0.0f, 128.0f};
        rgba.hasAlpha = true;
        saveImage(rgba, str(dir.filePath("red.png")));
        const Image back = loadImage(str(dir.filePath("red.png")));
        QVERIFY(back.hasAlpha);
        QVERIFY(mismatch(back, rgba).isEmpty());
    }

    // Channel layouts a format cannot store directly.
    void channelLayouts()
    {
        if (!imageFormatsAvailable()) QSKIP("image formats are not built in (no OpenCV)");
        QTemporaryDir dir;
        Image grayAlpha = randomImage(3, 2, 2, SampleDepth::U8, 5);
        grayAlpha.hasAlpha = true;

        saveImage(grayAlpha, str(dir.filePath("ga.png"))); // gray+alpha -> RGBA
        const Image rgba = loadImage(str(dir.filePath("ga.png")));
        QCOMPARE(rgba.channels, 4);
        QVERIFY(rgba.hasAlpha);
        for (int c = 0; c < 3; ++c)
            QVERIFY(std::equal(rgba.plane(c), rgba.plane(c) + 6, grayAlpha.plane(0)));
        QVERIFY(std::equal(rgba.plane(3), rgba.plane(3) + 6, grayAlpha.plane(1)));

        saveImage(grayAlpha, str(dir.filePath("ga.pgm"))); // formats without alpha drop it
        const Image gray = loadImage(str(dir.filePath("ga.pgm")));
        QCOMPARE(gray.channels, 1);
        QVERIFY(std::equal(gray.plane(0), gray.plane(0) + 6, grayAlpha.plane(0)));

        const Image g = randomImage(3, 2, 1, SampleDepth::U8, 6); // gray -> RGB for PPM
        saveImage(g, str(dir.filePath("g.ppm")));
        const Image g3 = loadImage(str(dir.filePath("g.ppm")));
        QCOMPARE(g3.channels, 3);
        for (int c = 0; c < 3; ++c) QVERIFY(std::equal(g3.plane(c), g3.plane(c) + 6, g.plane(0)));

        const Image four = randomImage(3, 2, 4, SampleDepth::U8, 7); // 4th channel not alpha
        QString msg = errorOf([&] { saveImage(four, str(dir.filePath("four.jpg"))); });
        QVERIFY2(msg.contains("no alpha channel"), qPrintable(msg));
        msg = errorOf([&] { saveImage(randomImage(3, 2, 3, SampleDepth::U8, 8), str(dir.filePath("rgb.pgm"))); });
        QVERIFY2(msg.contains("gray images only"), qPrintable(msg));
    }

    void packedSamples()
    {
        if (!imageFormatsAvailable()) QSKIP("image formats are not built in (no OpenCV)");
        QTemporaryDir dir;
        struct Case {
            const char* name;
            int channels;
            SampleDepth depth;
            bool alpha;
        };
        for (const Case& c : {Case{"rgb8.png", 3, SampleDepth::U8, false}, Case{"rgba16.png", 4, SampleDepth::U16, true},
                              Case{"gray8.png", 1, SampleDepth::U8, false}, Case{"ga16.png", 2, SampleDepth::U16, true}}) {
            Image img = randomImage(37, 11, c.channels, c.depth, 9);
            img.hasAlpha = c.alpha;
            const std::string path = str(dir.filePath(c.name));
            saveImage(img, path);
            const auto packed = decodeImage(path).samples;
            QVERIFY2(packed.has_value(), c.name);
            QCOMPARE(packed->depth, c.depth);
            const Image loaded = loadImage(path);
            const Image unpacked = unpackImage(*packed);
            QVERIFY(unpacked.sameShape(loaded));
            QCOMPARE(unpacked.hasAlpha, loaded.hasAlpha);
            QVERIFY2(unpacked.data == loaded.data, c.name);
        }
        // Float data comes as float planes.
        const Image f = randomImage(4, 3, 1, SampleDepth::F32, 2);
        writeNpy(f, str(dir.filePath("f.npy")));
        const DecodedImage d = decodeImage(str(dir.filePath("f.npy")));
        QVERIFY(!d.samples.has_value());
        QVERIFY(d.image.data == f.data);
        // Inconsistent fields are refused with a reason.
        PackedImage bad;
        bad.width = 4;
        bad.height = 2;
        bad.channels = 3;
        bad.stride = 12;
        bad.bytes.resize(20);
        QString msg = errorOf([&] { unpackImage(bad); });
        QVERIFY2(msg.contains("too few"), qPrintable(msg));
        bad.stride = 10;
        msg = errorOf([&] { unpackImage(bad); });
        QVERIFY2(msg.contains("less than a row"), qPrintable(msg));
        bad.stride = 12;
        bad.bytes.resize(24);
        bad.order = {0, 1, 3, 0};
        msg = errorOf([&] { unpackImage(bad); });
        QVERIFY2(msg.contains("order"), qPrintable(msg));
    }

    // The image-format cases below skip only in a build without OpenCV: in one with it, the
    // codec module must open (codecs_abi.h), and a build without says so.
    void imageFormatsOpenWhereBuilt()
    {
        std::string why;
        const bool available = imageFormatsAvailable(&why);
#ifdef CONVLAB_TEST_BUILT_WITH_OPENCV
        QVERIFY2(available, why.c_str());
        QVERIFY(why.empty());
#else
        QVERIFY(!available);
        QCOMPARE(why, std::string("this build has no OpenCV"));
#endif
    }

    void imageFormatsWithoutOpenCV()
    {
        if (imageFormatsAvailable()) QSKIP("this build has image formats (OpenCV)");
        QTemporaryDir dir;
        const QString path = dir.filePath("x.png");
        QString msg = errorOf([&] { saveImage(Image(2, 2, 1), str(path)); });
        QVERIFY2(msg.contains("need OpenCV") && msg.contains(path), qPrintable(msg));
        QVERIFY(writeFile(path, "not really"));
        msg = errorOf([&] { loadImage(str(path)); });
        QVERIFY2(msg.contains("need OpenCV"), qPrintable(msg));
    }

    // ---- errors ----

    void loadErrors_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("bytes"); // null: no file at all
        QTest::addColumn<QString>("expected");
        QTest::newRow("missing png") << "missing.png" << QByteArray() << "no such file";
        QTest::newRow("missing npy") << "missing.npy" << QByteArray() << "no such file";
        QByteArray junk(300, '\0');
        std::mt19937 rng(3);
        for (char& b : junk) b = char(rng());
        QTest::newRow("random bytes png") << "junk.png" << junk << "cannot read";
        QTest::newRow("random bytes jpg") << "junk.jpg" << junk << "cannot read";
        QTest::newRow("empty png") << "empty.png" << QByteArray("") << "cannot read";
        QTest::newRow("text with no extension") << "notes" << QByteArray("hello") << "cannot read";
        QTest::newRow("png claiming 60000x60000") << "huge.png" << hugePng() << "too large to load";
    }

    // A valid PNG whose header claims 60000x60000 RGB (10 GB as float) with almost no data: the
    // loader must refuse before allocating.
    static QByteArray hugePng()
    {
        auto chunk = [](const QByteArray& type, const QByteArray& data) {
            QByteArray c;
            QDataStream s(&c, QIODevice::WriteOnly);
            s << quint32(data.size());
            c += type + data;
            const QByteArray crcInput = type + data;
            quint32 crc = 0xffffffffu;
            for (char ch : crcInput) {
                crc ^= quint8(ch);
                for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
            }
            QDataStream t(&c, QIODevice::Append);
            t << quint32(~crc);
            return c;
        };
        QByteArray ihdr;
        QDataStream h(&ihdr, QIODevice::WriteOnly);
        h << quint32(60000) << quint32(60000) << quint8(8) << quint8(2) << quint8(0) << quint8(0) << quint8(0);
        const QByteArray idat = qCompress(QByteArray(1 + 3 * 60000, '\0')).mid(4); // zlib stream
        return QByteArray("\x89PNG\r\n\x1a\n", 8) + chunk("IHDR", ihdr) + chunk("IDAT", idat) + chunk("IEND", {});
    }
    void loadErrors()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        if (!bytes.isNull() && !name.endsWith(".npy") && !imageFormatsAvailable()) QSKIP("image formats are not built in");
        QTemporaryDir dir;
        const QString path = dir.filePath(name);
        if (!bytes.isNull()) QVERIFY(writeFile(path, bytes));
        const QString msg = errorOf([&] { loadImage(str(path)); });
        QVERIFY2(msg.contains(expected) && msg.contains(path), qPrintable(msg));
    }

    // Damaged files are one error each: the message names the file and the damage, the codecs'
    // own complaints are folded into it, and nothing reaches stderr.
    void corruptFilesAreOneQuietError_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("mention");
        if (!imageFormatsAvailable()) return;
        for (const test::CorruptFile& f : test::corruptImageFiles(goodFile(".png"), goodFile(".jpg"), goodFile(".tif")))
            QTest::newRow(qPrintable(f.name)) << f.name << f.bytes << f.mention;
    }
    void corruptFilesAreOneQuietError()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, bytes);
        QFETCH(QString, mention);
        QTemporaryDir dir;
        const QString path = dir.filePath(name);
        QVERIFY(writeFile(path, bytes));
        QString msg;
        const QByteArray printed = stderrOf([&] { msg = errorOf([&] { decodeImage(str(path)); }); });
        QVERIFY2(printed.isEmpty(), printed.constData());
        QVERIFY2(msg.contains(path) && msg.contains(mention, Qt::CaseInsensitive), qPrintable(msg));
        QVERIFY2(!msg.contains('\n'), qPrintable(msg));
    }

    // A truncated JPEG decodes "successfully" with its missing half grey; that is an error, and
    // so is one whose image data breaks off in the middle (the decoder fills the rest).
    void truncatedJpegIsAnError()
    {
        if (!imageFormatsAvailable()) QSKIP("image formats are not built in (no OpenCV)");
        QTemporaryDir dir;
        const QByteArray jpg = goodFile(".jpg");
        const QString cut = dir.filePath("cut.jpg");
        QVERIFY(writeFile(cut, jpg.left(jpg.size() * 2 / 3)));
        QVERIFY2(errorOf([&] { loadImage(str(cut)); }).contains("truncated or corrupt JPEG"),
                 qPrintable(errorOf([&] { loadImage(str(cut)); })));
        // The end marker kept, the data in between cut out: only the decoder can tell.
        const QString hole = dir.filePath("hole.jpg");
        const qsizetype sos = jpg.indexOf(QByteArray("\xff\xda", 2));
        QVERIFY(writeFile(hole, jpg.left(sos + 200) + jpg.right(2)));
        QVERIFY2(errorOf([&] { loadImage(str(hole)); }).contains("truncated or corrupt JPEG"),
                 qPrintable(errorOf([&] { loadImage(str(hole)); })));
    }

    // A tiny file whose header claims 30000x30000 RGB (2.7e9 values, over the limit) is refused
    // from its header, before the decoder allocates the image.
    void hugeClaimIsRefusedBeforeDecoding_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("bytes");
        if (!imageFormatsAvailable()) return;
        QTest::newRow("png") << "claims.png" << test::pngClaiming(30000, 30000);
        QTest::newRow("jpeg") << "claims.jpg" << test::jpegClaiming(goodFile(".jpg"), 30000, 30000);
        QTest::newRow("png, 70000 wide") << "wide.png" << test::pngClaiming(70000, 2);
    }
    void hugeClaimIsRefusedBeforeDecoding()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, bytes);
        QTemporaryDir dir;
        const QString path = dir.filePath(name);
        QVERIFY(writeFile(path, bytes));
        const QString msg = errorOf([&] { decodeImage(str(path)); });
        const QString claimed = name == "wide.png" ? "70000x2" : "30000x30000";
        QVERIFY2(msg.contains(claimed) && msg.contains(QString::number(kMaxImageValues)) &&
                     msg.contains(QString::number(kMaxImageSide)) && msg.contains("refused before decoding"),
                 qPrintable(msg));
    }

    // Within the size limits, but far more pixels than the file's bytes can encode (found by
    // the image_decode fuzzer: 419 bytes claiming 8198x64516 took 3 GB and 11 s before the
    // decoder reported the missing data): refused from the header.
    void claimLargerThanItsDataIsRefused_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("claimed");
        if (!imageFormatsAvailable()) return;
        QTest::newRow("jpeg") << "big.jpg" << test::jpegClaiming(goodFile(".jpg"), 8198, 64516) << "8198x64516";
        QTest::newRow("png") << "big.png" << test::pngClaiming(20000, 20000) << "20000x20000";
    }
    void claimLargerThanItsDataIsRefused()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, bytes);
        QFETCH(QString, claimed);
        QTemporaryDir dir;
        const QString path = dir.filePath(name);
        QVERIFY(writeFile(path, bytes));
        const QString msg = errorOf([&] { decodeImage(str(path)); });
        QVERIFY2(msg.contains(claimed) && msg.contains("cannot hold"), qPrintable(msg));
    }

    // The bound never refuses a real file: a flat image, the best case of every encoder, saved
    // by the library at 4000x3000 loads as PNG and as JPEG.
    void flatLargeImagesStillLoad()
    {
        if (!imageFormatsAvailable()) QSKIP("image formats are not built in (no OpenCV)");
        QTemporaryDir dir;
        Image flat(4000, 3000, 3, SampleDepth::U8); // all zero
        for (const char* ext : {".png", ".jpg"}) {
            const QString path = dir.filePath(QStringLiteral("flat") + ext);
            saveImage(flat, str(path));
            const DecodedImage d = decodeImage(str(path));
            QVERIFY2(d.samples && d.samples->width == 4000 && d.samples->height == 3000, ext);
        }
    }

    // A warning about a file that still decoded whole (stray bytes between two segments) is a
    // notice of the result, not text on stderr.
    void decoderWarningsBecomeNotices()
    {
        if (!imageFormatsAvailable()) QSKIP("image formats are not built in (no OpenCV)");
        QTemporaryDir dir;
        QByteArray jpg = goodFile(".jpg");
        jpg.insert(jpg.indexOf(QByteArray("\xff\xdb", 2)), QByteArray("\x01\x02\x03", 3));
        const QString path = dir.filePath("stray.jpg");
        QVERIFY(writeFile(path, jpg));
        DecodedImage d;
        const QByteArray printed = stderrOf([&] { d = decodeImage(str(path)); });
        QVERIFY2(printed.isEmpty(), printed.constData());
        QVERIFY(d.samples);
        QCOMPARE(d.samples->width, 64);
        QCOMPARE(d.notices.size(), std::size_t(1));
        QVERIFY2(QString::fromStdString(d.notices[0]).contains("extraneous bytes") &&
                     QString::fromStdString(d.notices[0]).contains(path),
                 d.notices[0].c_str());
    }

    // What a caller checks before it computes: which depths a format holds, and the save
    // target as saveImage would refuse it.
    void saveTargetCheckedUpFront()
    {
        QCOMPARE(formatHoldsDepth("x.npy", SampleDepth::F32), true);
        QVERIFY(errorOf([] { checkSaveTarget("x.npy", SaveOptions{SampleDepth::F32}, 3, false); }) == "<no error>");
        if (!imageFormatsAvailable()) QSKIP("image formats are not built in (no OpenCV)");
        QCOMPARE(formatHoldsDepth("x.png", SampleDepth::F32), false);
        QCOMPARE(formatHoldsDepth("x.PNG", SampleDepth::U16), true);
        QCOMPARE(formatHoldsDepth("x.tif", SampleDepth::F32), true);
        QCOMPARE(formatHoldsDepth("x.jpg", SampleDepth::U16), false);
        QVERIFY(errorOf([] { formatHoldsDepth("x.xyz", SampleDepth::U8); }).contains("unknown image format '.xyz'"));
        QVERIFY(errorOf([] { checkSaveTarget("x.png", SaveOptions{SampleDepth::F32}, 1, false); }).contains("cannot hold"));
        QVERIFY(errorOf([] { checkSaveTarget("x.pgm", {}, 3, false); }).contains("gray images only"));
        QVERIFY(errorOf([] { checkSaveTarget("x.jpg", {}, 4, false); }).contains("no alpha channel"));
        QVERIFY(errorOf([] { checkSaveTarget("x.png", SaveOptions{SampleDepth::U16}, 4, true); }) == "<no error>");
    }

    void saveErrors_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("expected");
        QTest::newRow("missing directory npy") << "nodir/x.npy" << "output directory";
        QTest::newRow("missing directory png") << "nodir/x.png" << "output directory";
        QTest::newRow("unknown extension") << "x.xyz" << "unknown image format '.xyz'";
        QTest::newRow("no extension") << "x" << "no file extension";
    }
    void saveErrors()
    {
        QFETCH(QString, name);
        QFETCH(QString, expected);
        if (!name.endsWith(".npy") && !imageFormatsAvailable()) QSKIP("image formats are not built in");
        QTemporaryDir dir;
        const QString path = dir.filePath(name);
        const QString msg = errorOf([&] { saveImage(randomImage(4, 3, 1, SampleDepth::U8, 2), str(path)); });
        QVERIFY2(msg.contains(expected) && msg.contains(path), qPrintable(msg));
        if (name.startsWith("nodir")) QVERIFY2(msg.contains("does not exist"), qPrintable(msg));
        QVERIFY(dirEntries(dir.path()).isEmpty());
    }

    void malformedImage()
    {
        QTemporaryDir dir;
        Image bad(4, 3, 1);
        bad.data.pop_back();
        QString msg = errorOf([&] { saveImage(bad, str(dir.filePath("bad.npy"))); });
        QVERIFY2(msg.contains("malformed"), qPrintable(msg));
        msg = errorOf([&] { saveImage(Image(), str(dir.filePath("empty.npy"))); });
        QVERIFY2(msg.contains("empty"), qPrintable(msg));
        QVERIFY(dirEntries(dir.path()).isEmpty());
    }

    // ---- atomic writes ----

    void atomicWrite()
    {
        QTemporaryDir dir;
        const QString target = dir.filePath("target.png");
        QVERIFY(writeFile(target, "previous contents"));

        // A writer that fails half-way: the target is untouched and the temporary is removed.
        QString tmpSeen;
        const QString msg = errorOf([&] {
            writeAtomically(str(target), [&](const std::string& tmp) {
                tmpSeen = QString::fromStdString(tmp);
                QVERIFY(writeFile(tmpSeen, "partial"));
                throw Error("encoder gave up");
            });
        });
        QCOMPARE(msg, QString("encoder gave up"));
        QCOMPARE(QFileInfo(tmpSeen).absolutePath(), QFileInfo(target).absolutePath());
        QVERIFY2(QFileInfo(tmpSeen).fileName().startsWith(".target.tmp-") && tmpSeen.endsWith(".png"), qPrintable(tmpSeen));
        QCOMPARE(readFile(target), QByteArray("previous contents"));
        QCOMPARE(dirEntries(dir.path()), QStringList{"target.png"});

        // Other exceptions pass through unchanged, with the same clean-up.
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, writeAtomically(str(target), [](const std::string& tmp) {
                                     QFile f(QString::fromStdString(tmp));
                                     if (f.open(QIODevice::WriteOnly)) f.write("x");
                                     throw std::runtime_error("other");
                                 }));
        QCOMPARE(readFile(target), QByteArray("previous contents"));
        QCOMPARE(dirEntries(dir.path()), QStringList{"target.png"});

        // A writer that creates nothing is an error too.
        QVERIFY(errorOf([&] { writeAtomically(str(target), [](const std::string&) {}); }).contains("produced no file"));
        QCOMPARE(readFile(target), QByteArray("previous contents"));

        // Success replaces the target.
        writeAtomically(str(target), [](const std::string& tmp) { QVERIFY(writeFile(QString::fromStdString(tmp), "new")); });
        QCOMPARE(readFile(target), QByteArray("new"));
        QCOMPARE(dirEntries(dir.path()), QStringList{"target.png"});
    }

    // A failing save through the public API leaves an existing file byte-identical.
    void failingSaveKeepsTarget_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<SampleDepth>("depth");
        QTest::newRow("png as float") << "keep.png" << SampleDepth::F32;
        QTest::newRow("jpg as 16-bit") << "keep.jpg" << SampleDepth::U16;
    }
    void failingSaveKeepsTarget()
    {
        QFETCH(QString, name);
        QFETCH(SampleDepth, depth);
        if (!imageFormatsAvailable()) QSKIP("image formats are not built in (no OpenCV)");
        QTemporaryDir dir;
        const QString path = dir.filePath(name);
        saveImage(randomImage(6, 4, 3, SampleDepth::U8, 11), str(path));
        const QByteArray before = readFile(path);
        QVERIFY(!before.isEmpty());
        const QString msg = errorOf([&] { saveImage(randomImage(6, 4, 3, SampleDepth::U8, 12), str(path), SaveOptions{depth}); });
        QVERIFY2(msg.contains("cannot hold"), qPrintable(msg));
        QCOMPARE(readFile(path), before);
        QCOMPARE(dirEntries(dir.path()), QStringList{name});
    }

    // Overwriting an existing file (including with a different depth) works and is complete.
    void overwrite()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("o.npy");
        saveImage(randomImage(9, 9, 3, SampleDepth::F32, 1), str(path));
        const Image small = randomImage(2, 3, 1, SampleDepth::U8, 2);
        saveImage(small, str(path), SaveOptions{SampleDepth::U8});
        QVERIFY(mismatch(loadImage(str(path)), small).isEmpty());
        QCOMPARE(dirEntries(dir.path()), QStringList{"o.npy"});
    }
};

QTEST_APPLESS_MAIN(TestIo)
#include "test_io.moc"
